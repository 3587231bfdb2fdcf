"""structlog configuration: JSON lines to stderr (stdout is the MCP protocol) and to a log file.

Called once, by the application, before the server starts. Nothing else configures logging.
"""

import logging
import os
import sys
from pathlib import Path
from typing import Any, TextIO

import structlog


class _Tee:
    """A file-like that writes each log line to several streams."""

    def __init__(self, *streams: TextIO) -> None:
        self._streams = streams

    def write(self, text: str) -> int:
        for stream in self._streams:
            stream.write(text)
        return len(text)

    def flush(self) -> None:
        for stream in self._streams:
            stream.flush()


def configure_logging(log_file: Path | None, *, level: int = logging.INFO) -> TextIO | None:
    """Route structlog (and FastMCP's stdlib records) to stderr and, when given, to `log_file`, whose open
    handle is returned (it lives as long as the process; tests close it)."""
    streams: list[TextIO] = [sys.stderr]
    opened = None
    if log_file is not None:
        log_file.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        # stack traces may name host paths: the log is the operator's alone (0600)
        descriptor = os.open(log_file, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o600)
        os.fchmod(descriptor, 0o600)
        opened = os.fdopen(descriptor, "a", encoding="utf-8")
        streams.append(opened)
    sink: Any = _Tee(*streams)
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.ExceptionRenderer(
                structlog.tracebacks.ExceptionDictTransformer(show_locals=False)
            ),
            structlog.processors.JSONRenderer(),
        ],
        wrapper_class=structlog.make_filtering_bound_logger(level),
        logger_factory=structlog.PrintLoggerFactory(file=sink),
        cache_logger_on_first_use=False,  # True would pin module loggers to the first sink for good
    )
    logging.basicConfig(stream=sink, level=logging.WARNING, format="%(name)s %(levelname)s %(message)s")
    return opened
