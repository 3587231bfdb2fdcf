"""Named work off the request path, one daemon thread per piece of work, and what it did in the log: a
finished content-index build is logged as `MCP-DB-S-001` with its figures; a failure with its stack trace.

Work of one name runs one at a time; a request that comes while one runs is kept (the latest only) and
runs after it, so a playset switched twice in a row is built once more, for the playset now active.
"""

import threading
from collections.abc import Callable

import structlog

from ports.content_index import Build

log = structlog.get_logger()


class BackgroundWork:
    """Runs named work on daemon threads, one at a time per name, the latest waiting request next."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._running: set[str] = set()
        self._waiting: dict[str, Callable[[], object]] = {}

    def __call__(self, name: str, work: Callable[[], object]) -> None:
        with self._lock:
            if name in self._running:
                self._waiting[name] = work
                return
            self._running.add(name)
        threading.Thread(target=self._run, args=(name, work), name=f"ck3raven-{name}", daemon=True).start()

    def _run(self, name: str, work: Callable[[], object]) -> None:
        while True:
            try:
                done = work()
            except Exception:
                log.exception("background.failed", work=name)
            else:
                if isinstance(done, Build):
                    log.info(
                        "index.built",
                        code="MCP-DB-S-001",
                        playset=done.playset,
                        files=done.files,
                        parsed=done.parsed,
                        seconds=done.seconds,
                    )
            with self._lock:
                next_work = self._waiting.pop(name, None)
                if next_work is None:
                    self._running.discard(name)
                    return
            work = next_work
