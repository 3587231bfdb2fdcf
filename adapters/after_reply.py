"""What a call leaves for after its reply: its audit row and its log line, handed to one writer thread in
the order the replies were made, so a reply never waits for a database write or a log line.

The writer gathers: once something is handed over it waits `gather` seconds more, then writes everything
waiting in one go (one transaction for the rows of many calls). Calls that come close together then
wake it once, not once each, and do not share the processor with one write per call.

A governed change has its own row already, written with its journal entry before the file changed (SPEC
§13): what waits here only describes a reply that has been made. `settle` cuts the gathering short and
waits until everything handed over is written; the server settles when it stops, so an orderly stop loses
no row. A row the process never wrote (it was killed first) is a gap in the call numbers, which
`ck3raven audit --verify` names. So is a row handed over while WAITING pieces already wait (a store that
has stopped answering): it is dropped and counted, rather than held in memory without end.

A batch the store refuses (locked by another process, full, failing) is not dropped: it is written again,
with what came after it, once the store answers (tried again every RETRY seconds at most, and at once when
more comes or the server settles), so a lock or a full disk that passes leaves no gap.
"""

import queue
import threading
from collections.abc import Callable, Sequence
from typing import Final, Generic, TypeVar

import structlog

T = TypeVar("T")
log = structlog.get_logger()
GATHER: Final = 0.05
"""Seconds the writer waits, once woken, for more to write with it."""
BATCH: Final = 1000
"""Pieces written together at most (one transaction of rows stays short)."""
WAITING: Final = 100_000
"""Pieces waiting for the writer at most; more are dropped (and counted) rather than kept."""
DROPS_LOGGED: Final = 1000
"""Dropped pieces a log line stands for (the first drop is logged at once)."""
RETRY: Final = 5.0
"""Seconds at most between two tries of a batch the store refused."""


class AfterReply(Generic[T]):
    """One writer thread, started on first use, handing what was given to it to `write` in order, a batch
    at a time; a batch that fails is logged and the writer goes on."""

    def __init__(
        self,
        write: Callable[[Sequence[T]], object],
        *,
        gather: float = GATHER,
        most: int = WAITING,
        retry: float = RETRY,
    ) -> None:
        self._write_batch = write
        self._gather = gather
        self._retry = retry
        self._work: queue.Queue[T] = queue.Queue(most)
        self.dropped = 0
        self._hurry = threading.Event()
        self._lock = threading.Lock()
        self._writer: threading.Thread | None = None

    def __call__(self, piece: T) -> None:
        """Have `piece` written after what was handed over before it; never waits (a piece handed over
        while `most` wait is dropped, counted and logged)."""
        with self._lock:
            if self._writer is None:
                self._writer = threading.Thread(target=self._write, name="ck3raven-after-reply", daemon=True)
                self._writer.start()
        try:
            self._work.put_nowait(piece)
        except queue.Full:
            self.dropped += 1
        else:
            return
        if self.dropped % DROPS_LOGGED == 1:  # the first, then one line a thousand: never a flood
            log.error("after_reply.dropped", dropped=self.dropped)

    def settle(self, timeout: float) -> bool:
        """Write what waits now, and wait up to `timeout` seconds until everything handed over is written;
        whether it is."""
        self._hurry.set()
        try:
            with self._work.all_tasks_done:
                return self._work.all_tasks_done.wait_for(lambda: not self._work.unfinished_tasks, timeout)
        finally:
            self._hurry.clear()

    def _write(self) -> None:
        held: list[T] = []  # refused by the store: written again, first, with what comes after
        refusals = 0
        while True:
            batch = held + self._gathered(waiting=self._pause(refusals) if held else None)
            try:
                self._write_batch(batch)
            except Exception:  # kept for the next try: the writer serves every later call all the same
                if not refusals:
                    log.exception("after_reply.refused", pieces=len(batch))
                refusals += 1
                held = batch
                continue
            if refusals:
                log.info("after_reply.written_again", pieces=len(batch), tries=refusals + 1)
            held, refusals = [], 0
            for _ in batch:
                self._work.task_done()

    def _pause(self, refusals: int) -> float:
        """Seconds to wait for more before trying a refused batch again: longer each time, up to `retry`;
        none while the server settles."""
        return 0.0 if self._hurry.is_set() else min(self._retry, 0.1 * 2**refusals)

    def _gathered(self, *, waiting: float | None) -> list[T]:
        """What was handed over: at least one piece (`waiting` None: waiting for it as long as it takes;
        else up to `waiting` seconds, and maybe none), then what comes within the gathering time."""
        try:
            batch = [self._work.get(timeout=waiting)] if waiting != 0 else [self._work.get_nowait()]
        except queue.Empty:
            return []
        self._hurry.wait(self._gather)
        while len(batch) < BATCH:
            try:
                batch.append(self._work.get_nowait())
            except queue.Empty:
                break
        return batch
