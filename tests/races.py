"""A race between one thread that keeps swapping parts of a tree and calls made meanwhile.

A race test proves two things: nothing from outside leaks, and the calls are not simply all refused (a
reader that refuses everything would pass the first half alone). So the calls go on past `rounds` until
`successes` of them went through, up to `limit` calls; each swap round leaves the tree in its real shape
for a moment, so that calls have a window to succeed in.
"""

import threading
from collections.abc import Callable
from typing import TypeVar

from ports.errors import PortError

T = TypeVar("T")


def race(
    swap_once: Callable[[], None],
    call: Callable[[int], T],
    rounds: int = 300,
    successes: int = 1,
    limit: int = 20_000,
) -> tuple[list[T], int]:
    """The results of the calls that went through, and how many were refused, while `swap_once` loops."""
    stop = threading.Event()

    def swap() -> None:
        while not stop.is_set():
            try:
                swap_once()
            except OSError:  # a call may have changed the tree in between: then this round just fails
                continue
            stop.wait(0.0002)

    swapper = threading.Thread(target=swap)
    swapper.start()
    results: list[T] = []
    refused = 0
    try:
        for index in range(limit):
            if index >= rounds and len(results) >= successes:
                break
            try:
                results.append(call(index))
            except PortError:
                refused += 1
    finally:
        stop.set()
        swapper.join()
    return results, refused
