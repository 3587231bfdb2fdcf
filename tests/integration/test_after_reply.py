"""What a reply leaves for after it is written by one thread in the order it was handed over, a piece of
work that fails stops none after it, and settling waits for all of it."""

import threading

from adapters.after_reply import AfterReply


def test_work_is_done_in_the_order_it_was_handed_over_and_settling_waits_for_all_of_it():
    after = AfterReply()
    done: list[int] = []
    gate = threading.Event()
    after(gate.wait)
    for number in range(100):
        after(lambda number=number: done.append(number))

    assert done == []  # nothing runs on the caller's thread
    gate.set()
    assert after.settle(timeout=30)
    assert done == list(range(100))


def test_a_piece_of_work_that_fails_stops_none_after_it():
    after = AfterReply()
    done: list[str] = []

    def failing() -> None:
        raise RuntimeError("injected")

    after(failing)
    after(lambda: done.append("next"))

    assert after.settle(timeout=30)
    assert done == ["next"]


def test_settling_with_nothing_handed_over_answers_at_once_and_settling_too_soon_says_so():
    after = AfterReply()
    assert after.settle(timeout=0)
    gate = threading.Event()
    after(gate.wait)

    assert not after.settle(timeout=0.05)
    gate.set()
    assert after.settle(timeout=30)
