"""Medians of repeated runs, the one way every benchmark here times things."""

import statistics
import time
from collections.abc import Awaitable, Callable


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
