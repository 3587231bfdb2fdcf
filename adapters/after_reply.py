"""What a call leaves for after its reply: its audit row and its log line, handed to one writer thread in
the order the replies were made, so a reply never waits for a database write or a log line.

A governed change has its own row already, written with its journal entry before the file changed (SPEC
§13): what waits here only describes a reply that has been made. `settle` waits until everything handed
over is done; the server settles when it stops, so an orderly stop loses no row. A row the process never
wrote (it was killed first) is a gap in the call numbers, which `ck3raven audit --verify` names.
"""

import queue
import threading
from collections.abc import Callable

import structlog

log = structlog.get_logger()


class AfterReply:
    """One writer thread, started on first use, doing the work handed to it in order; work that fails is
    logged and the writer goes on."""

    def __init__(self) -> None:
        self._work: queue.Queue[Callable[[], object]] = queue.Queue()
        self._lock = threading.Lock()
        self._writer: threading.Thread | None = None

    def __call__(self, work: Callable[[], object]) -> None:
        """Do `work` after what was handed over before it; never waits."""
        with self._lock:
            if self._writer is None:
                self._writer = threading.Thread(target=self._write, name="ck3raven-after-reply", daemon=True)
                self._writer.start()
        self._work.put(work)

    def settle(self, timeout: float) -> bool:
        """Wait up to `timeout` seconds until everything handed over is done; whether it is."""
        with self._work.all_tasks_done:
            return self._work.all_tasks_done.wait_for(lambda: not self._work.unfinished_tasks, timeout)

    def _write(self) -> None:
        while True:
            work = self._work.get()
            try:
                work()
            except Exception:  # the writer serves every later call: one failure stops nothing
                log.exception("after_reply.failed")
            finally:
                self._work.task_done()
