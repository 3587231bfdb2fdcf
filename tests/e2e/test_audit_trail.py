"""No mutation without its audit row: the row of a governed change is written with its journal entry, before
the file changes, so a store that cannot take it refuses the change; each server numbers its calls, so a
call that left no row is a gap; the log's anchors report a database deleted, replaced or re-hashed."""

import json
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import anyio
import pytest
from fastmcp import Client

from adapters.audit_anchors import Anchors, read_anchors
from adapters.log_setup import configure_logging
from adapters.reply_middleware import ReplyMiddleware
from adapters.sqlite_audit import chain
from adapters.sqlite_state import SqliteState
from app.audit_calls import one_per_call
from app.bootstrap import build, build_core
from app.config import Settings
from app.doctor_checks import verified
from domain.vocabulary import RootCategory
from ports.audit import AuditEntry
from ports.errors import Unavailable

pytestmark = pytest.mark.anyio
OPEN = {
    "command": "open",
    "root_category": "ROOT_REPO",
    "intent": "Work",
    "work_declaration": "Add one file",
    "operations": ["WRITE"],
    "targets": [{"path": "ROOT_REPO:/src/new.py", "edit_kind": "add"}],
}
WRITE = {"command": "write", "path": "ROOT_REPO:/src/new.py", "content": "x = 1\n"}
HOLDER = """
import sqlite3, sys
held = sqlite3.connect(sys.argv[1], isolation_level=None)
held.execute("BEGIN EXCLUSIVE")
print("held", flush=True)
sys.stdin.read()
held.execute("ROLLBACK")
"""


def holding(path: Path) -> subprocess.Popen[bytes]:
    """Another process, holding the database's write lock until its input ends."""
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(path)], stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    assert holder.stdout is not None
    assert holder.stdout.readline() == b"held\n"
    return holder


async def call(client: Client, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    result = await client.call_tool(tool, args, raise_on_error=False)
    return dict(result.structured_content)


@pytest.fixture
def state_db(tmp_path: Path) -> Path:
    return tmp_path / "state" / "ck3raven.db"


async def test_a_governed_write_writes_its_audit_row_with_its_journal_entry_before_the_reply(
    git_settings: Settings, state_db: Path
):
    stored = SqliteState(state_db)
    async with Client(build(git_settings, core=build_core(git_settings, stored=stored))) as client:
        await call(client, "ck3_contract", OPEN)
        written = await call(client, "ck3_file", WRITE)

    rows = [row.entry for row in stored.audit.rows()]
    change = next(entry for entry in rows if entry.stage == "change")
    reply = next(
        entry for entry in rows if entry.trace_id == written["meta"]["trace_id"] and entry.stage == "reply"
    )
    assert written["code"] == "WA-WRITE-S-001"
    assert change.targets == ("ROOT_REPO:/src/new.py",)
    assert change.trace_id == reply.trace_id
    assert (change.server_id, change.call) == (reply.server_id, reply.call)
    assert rows.index(change) < rows.index(reply)
    assert stored.audit.verify() == []


async def test_a_governed_write_while_another_process_holds_the_store_is_refused_and_changes_nothing(
    git_settings: Settings, state_db: Path
):
    stored = SqliteState(state_db, busy_timeout=0.2)
    target = git_settings.roots[next(iter(git_settings.roots))] / "src" / "new.py"
    async with Client(build(git_settings, core=build_core(git_settings, stored=stored))) as client:
        await call(client, "ck3_contract", OPEN)
        holder = holding(state_db)
        try:
            written = await call(client, "ck3_file", WRITE)
        finally:
            holder.communicate(b"")  # its input ends: it rolls back and exits

    assert (written["code"], written["data"]["store"]) == ("WA-IO-E-002", "busy")
    assert len(written["error"]["trace_id"]) == 32
    assert not target.exists()
    assert stored.journal.entries() == []
    assert [row.entry.stage for row in stored.audit.rows()].count("change") == 0


async def test_a_full_store_refuses_the_change_and_changes_nothing(git_settings: Settings, state_db: Path):
    stored = SqliteState(state_db)
    target = git_settings.roots[next(iter(git_settings.roots))] / "src" / "new.py"
    big = "x = 1\n" * 50_000
    async with Client(build(git_settings, core=build_core(git_settings, stored=stored))) as client:
        await call(client, "ck3_contract", OPEN)
        first = await call(client, "ck3_file", {**WRITE, "content": big})
        (pages,) = stored.execute("PRAGMA page_count")[0]
        stored.execute(f"PRAGMA max_page_count = {pages}")  # the store is full: not one page more
        written = await call(client, "ck3_file", WRITE)  # its journal keeps the 300 KB before: no room

    assert first["code"] == "WA-WRITE-S-001"
    assert written["reply_type"] == "E"
    assert target.read_text() == big
    assert len(stored.journal.entries()) == 1


async def test_the_rows_the_store_refused_are_written_once_it_answers_and_leave_no_gap(
    git_settings: Settings, state_db: Path
):
    stored = SqliteState(state_db)
    appended = stored.audit.append_all
    refused: list[int] = []

    def refusing_the_second_call_once(entries: Sequence[AuditEntry]) -> None:
        # the rows of calls replied close together are written together: the batch with call 2 is refused
        if not refused and any(entry.call == 2 for entry in entries):
            refused.extend(entry.call for entry in entries if entry.call is not None)
            raise Unavailable("injected: the store is locked")
        appended(entries)

    stored.audit.append_all = refusing_the_second_call_once  # type: ignore[method-assign]
    server = build(git_settings, core=build_core(git_settings, stored=stored))
    middleware = next(m for m in server.middleware if isinstance(m, ReplyMiddleware))
    async with Client(server) as client:
        for _ in range(3):
            await call(client, "ck3_dir", {"command": "pwd"})
        assert await anyio.to_thread.run_sync(middleware.after_reply.settle, 30)
        await call(client, "ck3_dir", {"command": "pwd"})

    assert 2 in refused
    assert [row.entry.call for row in stored.audit.rows()] == [1, 2, 3, 4]
    assert stored.audit.verify() == []


async def test_a_reply_is_on_its_way_before_its_audit_row_and_a_stopping_server_writes_the_row(
    git_settings: Settings, state_db: Path
):
    stored = SqliteState(state_db)
    appended = stored.audit.append_all
    replied = threading.Event()
    seen: list[bool] = []

    def after_the_reply(entries: Sequence[AuditEntry]) -> None:
        seen.append(replied.wait(timeout=30))  # the reply is out before this row is written
        time.sleep(0.3)  # and the row is slow to come: the client has left before it is written
        appended(entries)

    stored.audit.append_all = after_the_reply  # type: ignore[method-assign]
    async with Client(build(git_settings, core=build_core(git_settings, stored=stored))) as client:
        answered = await call(client, "ck3_dir", {"command": "pwd"})
        replied.set()

    assert answered["code"] == "MCP-CFG-S-001"
    assert seen == [True]
    assert [row.entry.trace_id for row in stored.audit.rows()] == [answered["meta"]["trace_id"]]


def _append_many(path: Path, server: str, count: int) -> subprocess.Popen[bytes]:
    code = f"""
import sys
from adapters.sqlite_state import SqliteState
from ports.audit import AuditEntry
state = SqliteState(__import__("pathlib").Path({str(path)!r}))
for call in range(1, {count} + 1):
    state.audit.append(AuditEntry(at="2026-01-01T00:00:00+00:00", session_id=None, trace_id=None, tool="t",
        command=None, targets=(), reply_type="S", code="X", contract_id=None, approval_id=None,
        duration_ms=0.0, server_id={server!r}, call=call))
"""
    return subprocess.Popen([sys.executable, "-c", code])


def test_two_servers_appending_a_thousand_rows_each_at_once_keep_one_chain(state_db: Path):
    SqliteState(state_db).close()
    writers = [_append_many(state_db, f"srv-{name}", 1000) for name in ("a", "b")]
    assert [writer.wait(timeout=120) for writer in writers] == [0, 0]

    state = SqliteState(state_db, read_only=True)
    assert len(state.audit.rows()) == 2000
    assert state.audit.verify() == []


def _anchored(state: SqliteState, folder: Path) -> None:
    """A server's start anchor, written to the log in `folder` as a server writes it."""
    sink = configure_logging(folder / "ck3raven.log")
    Anchors(state.audit, "srv-test").start()
    sink.close()


def _rows(state: SqliteState, count: int) -> None:
    from tests.integration.test_state_store import entry

    for index in range(count):
        state.audit.append(entry(f"A-{index}"))


def test_a_chain_edited_and_re_hashed_whole_is_reported_against_the_log(tmp_path: Path, state_db: Path):
    state = SqliteState(state_db)
    _rows(state, 3)
    _anchored(state, state_db.parent / "logs")
    prev = "0" * 64
    for seq, stored in state.execute("SELECT seq, entry FROM audit ORDER BY seq"):  # rewritten, re-hashed
        text = str(stored).replace("A-1", "A-9")
        digest = chain(prev, text)
        state.execute(
            "UPDATE audit SET entry = ?, prev = ?, digest = ? WHERE seq = ?", (text, prev, digest, seq)
        )
        prev = digest
    state.execute("UPDATE audit_head SET digest = ?", (prev,))

    assert state.audit.verify() == []  # the database alone cannot tell
    problems = state.audit.against(read_anchors(state_db.parent / "logs"))
    assert problems == [
        f"row 3 is not the row the log anchored at {_when(state_db)}: the chain was rewritten"
    ]


def _when(state_db: Path) -> str:
    line = (state_db.parent / "logs" / "ck3raven.log").read_text().splitlines()[-1]
    return str(json.loads(line)["timestamp"])


def test_a_deleted_or_rolled_back_database_is_reported_against_the_log(state_db: Path):
    state = SqliteState(state_db)
    _rows(state, 3)
    _anchored(state, state_db.parent / "logs")
    state.execute("DELETE FROM audit WHERE seq = 3")
    state.execute("UPDATE audit_head SET seq = 2, digest = (SELECT digest FROM audit WHERE seq = 2)")

    assert state.audit.verify() == []
    (problem,) = state.audit.against(read_anchors(state_db.parent / "logs"))
    assert problem.startswith("the log anchored row 3 at ")


def test_verify_reports_a_deleted_database_whose_rows_the_log_anchored(tmp_path: Path, state_db: Path):
    state = SqliteState(state_db)
    _rows(state, 2)
    _anchored(state, state_db.parent / "logs")
    state.close()
    state_db.unlink()
    settings = Settings("test", {}, RootCategory.ROOT_REPO, state_dir=state_db.parent)

    problems, _ = verified(settings)
    assert problems == ["the state database is missing: the log anchored 2 audit rows written to it"]


def test_verify_reports_a_garbage_database_in_one_line(state_db: Path):
    state_db.parent.mkdir(parents=True)
    state_db.write_bytes(b"not a database at all\n" * 100)
    settings = Settings("test", {}, RootCategory.ROOT_REPO, state_dir=state_db.parent)

    problems, _ = verified(settings)
    assert len(problems) == 1
    assert "cannot be read: it is damaged or not one" in problems[0]


async def test_a_contract_seen_expired_stays_expired_when_the_clock_steps_back(
    git_settings: Settings, state_db: Path
):
    from tests.fakes import FakeClock

    clock = FakeClock()
    stored = SqliteState(state_db)
    async with Client(
        build(git_settings, core=build_core(git_settings, stored=stored, clock=clock))
    ) as client:
        opened = await call(client, "ck3_contract", {**OPEN, "ttl_minutes": 5})
        clock.advance(minutes=6)
        expired = await call(client, "ck3_contract", {"command": "status"})
        clock.advance(minutes=-6)
        after = await call(client, "ck3_contract", {"command": "status"})
        written = await call(client, "ck3_file", WRITE)

    assert expired["data"]["active"] is None
    assert after["data"]["active"] is None
    assert written["reply_type"] != "S"
    assert stored.contracts.get(opened["data"]["contract_id"]).status == "expired"


async def test_a_change_whose_audit_row_cannot_be_written_is_refused_and_changes_nothing(
    git_settings: Settings, state_db: Path
):
    stored = SqliteState(state_db)
    appended = stored.audit.append

    def failing_changes(entry: Any) -> None:
        if entry.stage == "change":
            raise Unavailable("injected: the audit row cannot be written")
        appended(entry)

    stored.audit.append = failing_changes  # type: ignore[method-assign]
    target = git_settings.roots[next(iter(git_settings.roots))] / "src" / "new.py"
    async with Client(build(git_settings, core=build_core(git_settings, stored=stored))) as client:
        await call(client, "ck3_contract", OPEN)
        written = await call(client, "ck3_file", WRITE)

    assert written["reply_type"] == "E"
    assert not target.exists()
    assert stored.journal.entries() == []


async def test_writes_across_a_lock_another_process_held_leave_one_row_each_and_a_whole_audit(
    git_settings: Settings, state_db: Path
):
    stored = SqliteState(state_db, busy_timeout=0.5)
    server = build(git_settings, core=build_core(git_settings, stored=stored))
    middleware = next(m for m in server.middleware if isinstance(m, ReplyMiddleware))
    async with Client(server) as client:
        await call(client, "ck3_contract", OPEN)
        holder = holding(state_db)
        try:
            locked = [await call(client, "ck3_file", {**WRITE, "content": f"x = {n}\n"}) for n in range(3)]
            (hurried,) = stored.execute("PRAGMA busy_timeout")[0]  # the lock is known: later waits are short
        finally:
            holder.communicate(b"")
        free = [await call(client, "ck3_file", {**WRITE, "content": f"y = {n}\n"}) for n in range(2)]
        (whole,) = stored.execute("PRAGMA busy_timeout")[0]
        assert await anyio.to_thread.run_sync(middleware.after_reply.settle, 30)

    files = [row for row, _ in one_per_call(stored.audit.rows()) if row.entry.tool == "ck3_file"]
    assert [(w["code"], w["data"].get("store")) for w in locked] == [("WA-IO-E-002", "busy")] * 3
    assert [w["code"] for w in free] == ["WA-WRITE-S-001"] * 2
    assert [row.entry.code for row in files] == ["WA-IO-E-002"] * 3 + ["WA-WRITE-S-001"] * 2
    assert (hurried, whole) == (250, 500)
    problems, _ = verified(git_settings)
    assert problems == []
