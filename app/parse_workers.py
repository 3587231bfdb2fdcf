"""The parsing of a whole build spread over processes of their own, one a processor: the builder reads
and stores, the workers parse (domain.ck3.content_index.parse_bytes), so a build takes about a share of
the machine's processors each and more processors make it faster.

The workers run at a low priority (`nice` 10): while a build runs, every processor still goes first
to the server that answers calls, whose own work is short. Each worker is started fresh (`spawn`) and
ends at once when the builder that started it is gone, as the builder does with its server.
"""

import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from types import TracebackType
from typing import Final, Self

from app.collection import resumed
from domain.ck3.content_index import parse_bytes
from ports.content_index import Parsed

WATCH_SECONDS: Final = 1.0
"""How often a child process looks whether the process that started it is still there."""
NICE: Final = 10
"""The workers' niceness: a low priority, yet not so low that any other busy program stops a build."""


def processors() -> int:
    """The processors this process may run on."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


class Workers:
    """`count` parsing processes, as a context manager that ends them."""

    def __init__(self, count: int) -> None:
        self._pool = ProcessPoolExecutor(
            max(1, count), mp_context=get_context("spawn"), initializer=_started, initargs=(os.getpid(),)
        )

    def submit(self, files: list[tuple[tuple[str, ...], bytes]]) -> Callable[[], list[Parsed | None]]:
        """Hand `files` to a worker; the call returned waits for their results."""
        return self._pool.submit(_parse_all, files).result

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)


def lowered() -> None:
    """Run this process (and what it starts) at niceness NICE at least."""
    os.nice(max(0, NICE - os.nice(0)))


def _started(builder: int) -> None:
    lowered()
    watch_parent(builder)
    resumed(started=True)  # the spawned worker imported the command line's module, which paused it


def _parse_all(files: list[tuple[tuple[str, ...], bytes]]) -> list[Parsed | None]:
    return [parse_bytes(path, data) for path, data in files]


def watch_parent(parent: int) -> None:
    """End this process as soon as the server that started it (process `parent`, named by the server
    itself: one killed before this child ran is gone already) is gone; killed, it could not end us."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(WATCH_SECONDS)
        os._exit(0)

    threading.Thread(target=watch, name="ck3raven-index-watch", daemon=True).start()
