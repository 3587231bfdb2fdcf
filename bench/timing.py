"""Medians of repeated runs, and interleaved rounds: the ways every benchmark here times things.

`interleave` runs every contender of a case once per round, in turn, the order reversed every other round
(A B C, C B A, ...), so that whatever else the machine does at a moment falls on all of them alike and none
always runs right after the same other (a walk that warms the caches for the next one). A contender returns
the seconds it took: a stdio call its own request-to-response time, anything else its wall time
(`clocked`).
"""

import statistics
import time
from collections.abc import Awaitable, Callable, Mapping

Contender = Callable[[], float]


def clocked(fn: Callable[[], object]) -> Contender:
    """A contender timed by the wall clock around `fn`."""

    def run() -> float:
        started = time.perf_counter()
        fn()
        return time.perf_counter() - started

    return run


def interleave(
    contenders: Mapping[str, Contender], rounds: int, *, most: int | None = None, budget: float = 20.0
) -> dict[str, list[float]]:
    """Seconds of each contender per round, taken in turn, after one untimed round. `rounds` at least;
    up to `most` while the rounds fit in `budget` seconds (judged by the untimed round), so that fast
    cases take more rounds and slow ones no more than they must."""
    started = time.perf_counter()
    for run in contenders.values():
        run()
    once = time.perf_counter() - started
    if most is not None and most > rounds:
        rounds = max(rounds, min(most, int(budget / max(once, 1e-6))))
    samples: dict[str, list[float]] = {name: [] for name in contenders}
    forth = list(contenders.items())
    for number in range(rounds):
        for name, run in forth if number % 2 == 0 else reversed(forth):
            samples[name].append(run())
    return samples


def median(samples: list[float]) -> float:
    return statistics.median(samples)


def median_ms(fn: Callable[[], object], repeats: int) -> float:
    """The median wall time of `repeats` calls of `fn`, in milliseconds."""
    samples = []
    for _ in range(repeats):
        started = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - started)
    return statistics.median(samples) * 1000


async def median_async_ms(fn: Callable[[], Awaitable[object]], repeats: int) -> float:
    """The median wall time of `repeats` awaited calls of `fn`, in milliseconds."""
    samples = []
    for _ in range(repeats):
        started = time.perf_counter()
        await fn()
        samples.append(time.perf_counter() - started)
    return statistics.median(samples) * 1000
