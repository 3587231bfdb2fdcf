"""structlog configuration: JSON lines to stderr (stdout is the MCP protocol) and to a log file.

Called once, by the application, before the server starts. Nothing else configures logging.

Logging can never break or stall a reply: a log line is handed to a bounded queue per stream without
waiting, and one writer thread per stream copies it. A writer, once woken, gathers for GATHER seconds and
writes what came meanwhile in one go: lines logged one by one (a call's line each, after its reply) wake
it once, not once each, and the calls do not share the interpreter with a thread woken per line. A full
queue (a client that stops reading stderr) or a stream that fails (a full disk, a closed pipe) drops the
line and counts it; nothing is raised into a tool call.
"""

import faulthandler
import logging
import os
import queue
import sys
import threading
import time
from pathlib import Path
from typing import TextIO, cast

import structlog

QUEUED = 10_000
"""Log lines waiting for a writer at most; more are dropped (and counted) rather than waited for."""
GATHER = 0.02
"""Seconds a stream's writer waits, once woken, for more lines to write with the first."""
STDERR_GRACE = 0.5
"""Seconds an exit waits for stderr's queued lines: a client that stops reading it never holds the exit."""


class Sink:
    """A file-like whose `write` never blocks and never raises: lines go to one writer thread per stream, so
    a stream that blocks (a client that stops reading stderr) holds up only its own lines, never the log
    file's."""

    def __init__(self, *streams: TextIO, owned: TextIO | None = None, gather: float = GATHER) -> None:
        self._owned = owned
        self._gather = gather
        self._queues: list[tuple[TextIO, queue.Queue[str]]] = [
            (stream, queue.Queue(QUEUED)) for stream in streams
        ]
        self.dropped = 0
        self.failed = 0
        for stream, lines in self._queues:
            threading.Thread(
                target=self._drain, args=(stream, lines), name="ck3raven-log", daemon=True
            ).start()

    def write(self, text: str) -> int:
        for _, lines in self._queues:
            try:
                lines.put_nowait(text)
            except queue.Full:
                self.dropped += 1
        return len(text)

    def flush(self) -> None:
        """Lines are flushed by the writers as they go; a caller never waits for a stream."""

    def drain(self, timeout: float = 5.0, *, others: float | None = None) -> None:
        """Wait until every queued line was handed to the streams (tests, and an orderly exit): the log
        file's for up to `timeout` seconds, the other streams' for up to `others` (default: the same)."""
        for stream, lines in self._queues:
            wait = timeout if others is None or stream is self._owned else others
            deadline = time.monotonic() + wait
            while lines.unfinished_tasks and time.monotonic() < deadline:
                time.sleep(0.005)

    def close(self) -> None:
        """Drain (a blocked stderr is waited for briefly), then close the log file this sink opened."""
        self.drain(others=STDERR_GRACE)
        if self._owned is not None:
            self._owned.close()

    def _drain(self, stream: TextIO, lines: "queue.Queue[str]") -> None:
        while True:
            # every line waiting, and each that comes while the writer gathers, goes in one write
            batch = [lines.get()]
            time.sleep(self._gather)
            while len(batch) < QUEUED:  # a stuck stream holds one queue's worth at most
                try:
                    batch.append(lines.get_nowait())
                except queue.Empty:
                    break
            try:
                stream.write("".join(batch))
                stream.flush()
            except Exception:  # noqa: BLE001 - a failing stream loses these lines, nothing more
                self.failed += len(batch)
            for _ in batch:
                lines.task_done()


def configure_logging(
    log_file: Path | None, *, level: int = logging.INFO, stderr: TextIO | None = None
) -> Sink:
    """Route structlog (and FastMCP's stdlib records) to stderr and, when given, to `log_file`; the sink is
    returned (it lives as long as the process; tests drain and close it). Raises OSError when the log file
    cannot be opened: the caller says so and stops."""
    streams: list[TextIO] = [stderr or sys.stderr]
    opened = None
    if log_file is not None:
        log_file.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        # stack traces may name host paths: the log is the operator's alone (0600)
        descriptor = os.open(log_file, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o600)
        os.fchmod(descriptor, 0o600)
        opened = os.fdopen(descriptor, "a", encoding="utf-8")
        streams.append(opened)
    sink = Sink(*streams, owned=opened)
    stamped: list[structlog.typing.Processor] = [
        structlog.processors.add_log_level,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
        structlog.processors.ExceptionRenderer(
            structlog.tracebacks.ExceptionDictTransformer(show_locals=False)
        ),
    ]
    structlog.configure(
        processors=[structlog.contextvars.merge_contextvars, *stamped, structlog.processors.JSONRenderer()],
        wrapper_class=structlog.make_filtering_bound_logger(level),
        logger_factory=structlog.WriteLoggerFactory(file=cast("TextIO", sink)),  # one write a line
        cache_logger_on_first_use=False,  # True would pin module loggers to the first sink for good
    )
    _route_stdlib(sink, stamped)
    return sink


_CRASH_FILES: list[TextIO] = []
"""The files fatal signals are reported to: kept open for as long as the process lives."""


def report_crashes(log_file: Path) -> None:
    """Have a fatal signal (SIGSEGV, SIGBUS: e.g. the state database's `-shm` file truncated under the
    server's mapping) write its name and every thread's stack to `log_file` before the process ends, so the
    server never ends silently. Raises OSError when the file cannot be opened."""
    descriptor = os.open(log_file, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o600)
    opened = os.fdopen(descriptor, "a", encoding="utf-8")
    _CRASH_FILES.append(opened)
    faulthandler.enable(file=opened, all_threads=True)


def _route_stdlib(sink: Sink, stamped: list[structlog.typing.Processor]) -> None:
    """The libraries' own loggers (FastMCP's, the MCP SDK's, uvicorn's) as JSON lines on the same sink:
    FastMCP's rich console handlers are replaced, every other record goes through the root logger."""
    handler = logging.StreamHandler(cast("TextIO", sink))
    handler.setFormatter(
        structlog.stdlib.ProcessorFormatter(
            processors=[
                structlog.stdlib.ProcessorFormatter.remove_processors_meta,
                structlog.processors.JSONRenderer(),
            ],
            foreign_pre_chain=[structlog.stdlib.add_logger_name, *stamped],
        )
    )
    root = logging.getLogger()
    root.handlers = [handler]
    root.setLevel(logging.WARNING)
    library = logging.getLogger("fastmcp")
    library.handlers = [handler]
    library.propagate = False
