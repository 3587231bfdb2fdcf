"""How `ck3raven serve` ends: the steps that undo what it set up (its registration, approval socket, audit
anchors, a token made for the run), taken once and in reverse order whichever way it ends: its client's end
of input, or SIGINT or SIGTERM. A signal is answered at once and off the main thread, whatever the main
thread is doing (reading stdin, waiting on a worker): what is in flight is settled as a crash would be, by
the journal at the next start.
"""

import signal
import threading
from collections.abc import Callable
from typing import Final

from app.log_library import structlog

STOPS: Final = (signal.SIGINT, signal.SIGTERM)
"""The signals that end the server."""


class Stopping:
    """The steps a server takes as it ends, each run once; a step that fails is logged and the rest run.
    `status` is the exit status the server ends with, `signal` the signal that ended it (None: its client)."""

    def __init__(self) -> None:
        self._steps: list[Callable[[], None]] = []
        self._lock = threading.Lock()
        self._done = False
        self.status = 0
        self.signal: str | None = None

    def add(self, step: Callable[[], None]) -> None:
        """Take `step` as the server ends, before every step added earlier."""
        self._steps.append(step)

    def run(self, status: int) -> bool:
        """Take the steps for a server ending with `status` (once: a caller while they are being taken waits
        for them); True for the caller that took them."""
        with self._lock:
            if self._done:
                return False
            self._done = True
            self.status = status
            for step in reversed(self._steps):
                try:
                    step()
                except Exception:  # noqa: BLE001 - the steps after it (the lock's release above all) still run
                    structlog.get_logger().exception("server.stop_step_failed")
            return True

    def on_signals(self, end: Callable[[], None]) -> None:
        """Answer SIGINT and SIGTERM by noting the signal and calling `end()` on a thread of its own: the
        main thread may be blocked reading the client's input, which a signal does not end, and a step
        taken inside the handler could wait forever for a lock the interrupted main thread holds."""

        def handler(signum: int, _frame: object) -> None:
            self.signal = signal.Signals(signum).name
            threading.Thread(target=end, name="ck3raven-stop", daemon=True).start()

        for signum in STOPS:
            signal.signal(signum, handler)
