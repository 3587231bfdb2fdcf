"""What a reply leaves for after it is written by one thread in the order it was handed over, in batches
gathered over a moment; a batch that fails stops none after it, and settling writes what waits at once and
waits for all of it; a store that stops answering never makes a caller wait (what cannot wait is dropped
and counted)."""

import threading
import time
from collections.abc import Sequence

from adapters.after_reply import BATCH, AfterReply


def test_pieces_are_written_in_the_order_they_were_handed_over_and_settling_waits_for_all_of_them():
    written: list[int] = []
    gate = threading.Event()

    def write(batch: Sequence[int]) -> None:
        gate.wait()
        written.extend(batch)

    after: AfterReply[int] = AfterReply(write, gather=0.0)
    for number in range(100):
        after(number)

    assert written == []  # nothing is written on the caller's thread
    gate.set()
    assert after.settle(timeout=30)
    assert written == list(range(100))


def test_pieces_handed_over_close_together_are_written_in_one_batch():
    batches: list[list[int]] = []
    after: AfterReply[int] = AfterReply(lambda batch: batches.append(list(batch)), gather=0.5)
    for number in range(20):
        after(number)

    assert after.settle(timeout=30)
    assert batches == [list(range(20))]


def test_settling_writes_what_waits_without_waiting_out_the_gathering():
    written: list[int] = []
    after: AfterReply[int] = AfterReply(written.extend, gather=60.0)
    after(1)
    time.sleep(0.05)  # the writer has taken the piece and is gathering more

    assert after.settle(timeout=30)
    assert written == [1]


def test_a_batch_the_store_refuses_is_written_again_with_what_follows_once_the_store_answers():
    written: list[str] = []
    answers = threading.Event()
    refused: list[list[str]] = []

    def write(batch: Sequence[str]) -> None:
        if not answers.is_set():
            refused.append(list(batch))
            raise RuntimeError("injected: the store is locked")
        written.extend(batch)

    after: AfterReply[str] = AfterReply(write, gather=0.0, retry=0.01)
    after("first")
    assert not after.settle(timeout=0.2)  # refused: nothing is dropped, nothing settles
    after("next")
    answers.set()

    assert after.settle(timeout=30)
    assert written == ["first", "next"]
    assert refused[0] == ["first"]


def test_settling_with_nothing_handed_over_answers_at_once_and_settling_too_soon_says_so():
    gate = threading.Event()
    after: AfterReply[int] = AfterReply(lambda _batch: gate.wait(), gather=0.0)
    assert after.settle(timeout=0)
    after(1)

    assert not after.settle(timeout=0.05)
    gate.set()
    assert after.settle(timeout=30)


def test_a_batch_holds_a_bounded_number_of_pieces():
    sizes: list[int] = []
    writing, gate = threading.Event(), threading.Event()

    def write(batch: Sequence[int]) -> None:
        writing.set()
        gate.wait()
        sizes.append(len(batch))

    after: AfterReply[int] = AfterReply(write, gather=0.0)
    after(0)
    assert writing.wait(timeout=30)  # the writer holds its first batch, waiting
    for number in range(2 * BATCH + 1):
        after(number)
    gate.set()

    assert after.settle(timeout=30)
    assert sizes == [1, BATCH, BATCH, 1]


def test_pieces_beyond_those_that_may_wait_are_dropped_and_counted_without_waiting():
    writing, gate = threading.Event(), threading.Event()

    def write(_batch: Sequence[int]) -> None:
        writing.set()
        gate.wait()

    after: AfterReply[int] = AfterReply(write, gather=0.0, most=10)
    after(0)
    assert writing.wait(timeout=30)  # the writer holds its first batch: the store has stopped answering
    for number in range(25):
        after(number)  # never waits for the writer

    assert after.dropped == 15
    gate.set()
    assert after.settle(timeout=30)
