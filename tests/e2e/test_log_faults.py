"""Logging can never break or stall a reply: a failing or stuck log stream loses lines, not calls."""

import json
import logging
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TextIO

import anyio
import pytest
import structlog
from fastmcp import Client

from adapters.log_setup import QUEUED, Sink, configure_logging
from app.bootstrap import build
from app.config import Settings

pytestmark = pytest.mark.anyio


class Broken:
    """A stream whose every write fails, as a full disk or a closed pipe does."""

    def write(self, text: str) -> int:
        raise OSError(28, "No space left on device")

    def flush(self) -> None:
        raise BrokenPipeError(32, "Broken pipe")


class Stuck:
    """A stream nobody reads: every write waits forever, as a full stderr pipe does."""

    def __init__(self) -> None:
        self.release = threading.Event()

    def write(self, text: str) -> int:
        self.release.wait()
        return len(text)

    def flush(self) -> None:
        """Nothing to flush."""


@pytest.fixture
def logging_to() -> Iterator:
    handlers = logging.root.handlers[:]
    sinks: list[Sink] = []

    def configure(stream: object) -> Sink:
        sink = configure_logging(None, stderr=stream)  # type: ignore[arg-type]
        sinks.append(sink)
        return sink

    yield configure
    structlog.reset_defaults()
    logging.root.handlers[:] = handlers


async def test_calls_answer_while_every_log_write_fails(repo_settings: Settings, logging_to):
    sink = logging_to(Broken())
    async with Client(build(repo_settings)) as client:
        answers = [await client.call_tool("ck3_dir", {"command": "pwd"}) for _ in range(20)]
    sink.drain()

    assert {answer.structured_content["code"] for answer in answers} == {"MCP-CFG-S-001"}
    assert sink.failed >= 20


async def test_calls_never_stall_when_nobody_reads_the_log(repo_settings: Settings, logging_to):
    stuck = Stuck()
    logging_to(stuck)
    try:
        with anyio.fail_after(300):  # a guard against a hang, not a measure of speed
            async with Client(build(repo_settings)) as client:
                answers = [await client.call_tool("ck3_dir", {"command": "pwd"}) for _ in range(400)]
    finally:
        stuck.release.set()

    assert len(answers) == 400
    assert answers[-1].structured_content["code"] == "MCP-CFG-S-001"


def test_a_full_queue_drops_and_counts_instead_of_waiting():
    stuck = Stuck()
    sink = Sink(stuck)  # type: ignore[arg-type]
    try:
        # the writer holds at most one queue's worth in its stuck write, and the queue one more
        for _ in range(2 * QUEUED + 50):
            sink.write("line\n")
    finally:
        stuck.release.set()

    assert sink.dropped >= 50


def test_the_log_file_is_private(tmp_path: Path):
    handlers = logging.root.handlers[:]
    sink = configure_logging(tmp_path / "logs" / "ck3raven.log", stderr=_Null())
    try:
        assert (tmp_path / "logs" / "ck3raven.log").stat().st_mode & 0o077 == 0
    finally:
        structlog.reset_defaults()
        logging.root.handlers[:] = handlers
        sink.close()


class _Null(TextIO):  # type: ignore[misc]
    def write(self, text: str) -> int:
        return len(text)


def test_a_log_line_reaches_the_sink_whole_so_no_other_line_lands_inside_it(logging_to, monkeypatch):
    handed: list[str] = []
    monkeypatch.setattr(Sink, "write", lambda _, text: handed.append(text) or len(text))
    logging_to(_Null())

    structlog.get_logger().info("tool.replied", code="MCP-CFG-S-001")
    logging.getLogger("fastmcp.x").warning("from a library")

    assert len(handed) == 2
    assert all(text.endswith("\n") and json.loads(text) for text in handed)


class Recording:
    """A stream that keeps each write it is handed."""

    def __init__(self) -> None:
        self.writes: list[str] = []

    def write(self, text: str) -> int:
        self.writes.append(text)
        return len(text)

    def flush(self) -> None:
        """Nothing to flush."""


def test_lines_logged_while_the_writer_gathers_reach_the_stream_in_one_write():
    stream = Recording()
    sink = Sink(stream, gather=1.0)  # type: ignore[arg-type]

    sink.write("first\n")
    time.sleep(0.15)  # a writer woken at once would have written the first line by now, alone
    sink.write("second\n")
    sink.drain()

    assert stream.writes == ["first\nsecond\n"]
