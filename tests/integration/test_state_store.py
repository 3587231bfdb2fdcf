"""One contract for the state stores, run against the SQLite adapter and the in-memory one alike: records
read back equal, ended records are never replaced, counters are per root, `atomic()` is all or nothing,
the audit chain detects edits and deletions."""

import json
import sqlite3
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from attrs import asdict, evolve

from adapters.hmac_signer import HmacSigner
from adapters.memory_state import MemoryState
from adapters.sqlite_state import SqliteState
from app.embedding import Embedded, in_memory
from domain.policy import approvals
from domain.policy.approvals import Authority, State
from domain.use_cases.core import Core
from ports.audit import AuditEntry
from ports.contracts import ContractRecord, TargetRecord
from ports.errors import Unavailable
from ports.journal import JournalEntry
from tests.fakes import CountingIds, FakeClock


@pytest.fixture(params=["sqlite", "memory"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[SqliteState | MemoryState]:
    if request.param == "memory":
        yield MemoryState()
        return
    state = SqliteState(tmp_path / "state" / "ck3raven.db")
    yield state
    state.close()


def contract(contract_id: str = "ct-1", status: str = "open") -> ContractRecord:
    return ContractRecord(
        contract_id=contract_id,
        created_at="2026-11-26T00:00:00+00:00",
        session_id="s-1",
        mode="ck3raven-dev",
        root_category="ROOT_REPO",
        intent="i",
        operations=("WRITE",),
        targets=(TargetRecord("ROOT_REPO:/a.py", "modify"),),
        work_declaration="w",
        author="agent",
        baseline_sha=None,
        repositories=(("ROOT_REPO:/", None),),
        expires_at="2026-11-26T02:00:00+00:00",
        renewed_from=None,
        approvals=(),
        session_signature="sig",
        status=status,
        closed_at=None,
        state_signature="sig",
    )


def entry(code: str = "WA-READ-S-001", contract_id: str | None = None) -> AuditEntry:
    return AuditEntry(
        at="2026-11-26T00:00:00+00:00",
        session_id="s-1",
        trace_id="t",
        tool="ck3_file",
        command="read",
        targets=("ROOT_REPO:/a.py",),
        reply_type="S",
        code=code,
        contract_id=contract_id,
        approval_id=None,
        duration_ms=1.5,
    )


def test_a_contract_reads_back_equal(store):
    store.contracts.put(contract())

    assert store.contracts.get("ct-1") == contract()


def test_a_closed_contract_is_never_replaced_by_an_open_copy(store):
    store.contracts.put(contract())
    store.contracts.put(contract(status="closed"))

    with pytest.raises(Unavailable):
        store.contracts.put(contract())
    assert store.contracts.get("ct-1").status == "closed"


def test_a_consumed_approval_is_never_approved_again(store):
    authority = Authority(store.approvals, FakeClock(), CountingIds(), HmacSigner())
    asked = approvals.request(authority, "mode", b"session:s\nmode:ck3lens", "switch")
    approvals.human_decision(authority, asked.approval_id, approve=True)
    approved = store.approvals.get(asked.approval_id)
    first, _ = approvals.settle(authority, "mode", b"mode:ck3lens", "switch", session_id="s")

    with pytest.raises(Unavailable):
        store.approvals.put(approved)
    again, _ = approvals.settle(authority, "mode", b"mode:ck3lens", "switch", session_id="s")

    assert (first, again) == (State.APPROVED, State.PENDING)


def test_a_swap_from_a_record_no_longer_stored_changes_nothing(store):
    signer = HmacSigner()
    authority = Authority(store.approvals, FakeClock(), CountingIds(), signer)
    asked = approvals.request(authority, "mode", b"session:s\nmode:ck3lens", "switch")
    approved = approvals.human_decision(authority, asked.approval_id, approve=True)
    declined = approvals.decide(asked, approve=False, now=FakeClock().now(), signer=signer)
    assert declined is not None

    swapped = store.approvals.swap(asked, declined)

    assert not swapped
    assert store.approvals.get(asked.approval_id) == approved


def test_one_approval_consumed_from_two_threads_at_once_serves_exactly_one(store):
    signer = HmacSigner()
    authority = Authority(store.approvals, FakeClock(), CountingIds(), signer)
    payload = b"session:s\nmode:ck3lens"
    asked = approvals.request(authority, "mode", payload, "switch")
    approvals.human_decision(authority, asked.approval_id, approve=True)
    both_read = threading.Barrier(2, timeout=10)

    def consume() -> bool:
        record = store.approvals.get(asked.approval_id)
        both_read.wait()  # each thread holds the approved record before either consumes it
        consumed = approvals.consume(record, "mode", payload, now=FakeClock().now(), signer=signer)
        return consumed is not None and store.approvals.swap(record, consumed)

    with ThreadPoolExecutor(max_workers=2) as pool:
        served = [future.result() for future in [pool.submit(consume), pool.submit(consume)]]

    assert sorted(served) == [False, True]
    assert store.approvals.get(asked.approval_id).state == State.CONSUMED


def test_approvals_are_found_by_kind_and_payload(store):
    authority = Authority(store.approvals, FakeClock(), CountingIds(), HmacSigner())
    wanted = approvals.request(authority, "mode", b"a", "s")
    approvals.request(authority, "mode", b"b", "s")

    assert store.approvals.matching("mode", approvals.digest(b"a")) == [wanted]


def test_counters_of_one_root_never_touch_another(store):
    store.ledger.save("ROOT_REPO", {"ROOT_REPO:/a.py": 2})
    store.ledger.save("ROOT_USER_DOCS", {})

    assert store.ledger.load("ROOT_REPO") == {"ROOT_REPO:/a.py": 2}


def decide_and_fail(store) -> None:
    with store.atomic():
        store.contracts.put(contract())
        store.ledger.save("ROOT_REPO", {"ROOT_REPO:/a.py": 1})
        raise RuntimeError("the next step failed")


def test_a_failing_decision_leaves_nothing_behind(store):
    with pytest.raises(RuntimeError):
        decide_and_fail(store)

    assert (store.contracts.get("ct-1"), store.ledger.load("ROOT_REPO")) == (None, {})


def test_evidence_is_found_once_stored(store):
    ref = store.evidence.put("close", "ct-1", "{}")

    assert (ref, store.evidence.find("close", "ct-1"), store.evidence.find("close", "ct-2")) == (
        "evidence:close/ct-1",
        "evidence:close/ct-1",
        None,
    )


def test_an_untouched_audit_chain_verifies(store):
    for code in ("A-1", "A-2", "A-3"):
        store.audit.append(entry(code))

    assert [row.entry.code for row in store.audit.rows()] == ["A-1", "A-2", "A-3"]
    assert store.audit.verify() == []


def test_rows_appended_together_chain_on_from_the_row_before_them_in_their_order(store):
    store.audit.append(entry("A-1"))
    store.audit.append_all([entry("A-2"), entry("A-3")])
    store.audit.append_all([])
    store.audit.append(entry("A-4"))

    assert [row.entry.code for row in store.audit.rows()] == ["A-1", "A-2", "A-3", "A-4"]
    assert store.audit.verify() == []


def sqlite_db(path: Path) -> sqlite3.Connection:
    return sqlite3.connect(path)


@pytest.fixture
def sqlite_store(tmp_path: Path) -> Iterator[SqliteState]:
    state = SqliteState(tmp_path / "ck3raven.db")
    for code in ("A-1", "A-2", "A-3"):
        state.audit.append(entry(code))
    yield state
    state.close()


def test_every_write_but_an_audit_row_is_forced_to_disk_again_after_an_audit_row(sqlite_store):
    sqlite_store.audit.append(entry("A-4"))

    assert sqlite_store.execute("PRAGMA synchronous") == [(2,)]  # FULL


def test_audit_rows_written_without_forcing_are_there_when_the_database_is_opened_again(sqlite_store):
    sqlite_store.close()
    reopened = SqliteState(sqlite_store.path)

    assert [row.entry.code for row in reopened.audit.rows()] == ["A-1", "A-2", "A-3"]
    reopened.close()


def test_a_deleted_audit_row_is_detected(sqlite_store):
    with sqlite_db(sqlite_store.path) as db:
        db.execute("DELETE FROM audit WHERE seq = 2")

    assert sqlite_store.audit.verify() == ["row 3: the row before it is missing or was changed"]


def test_an_edited_audit_row_is_detected(sqlite_store):
    with sqlite_db(sqlite_store.path) as db:
        db.execute("UPDATE audit SET entry = replace(entry, 'A-2', 'A-9') WHERE seq = 2")

    assert sqlite_store.audit.verify() == ["row 2: its content was changed"]


def test_a_deleted_last_audit_row_is_detected(sqlite_store):
    with sqlite_db(sqlite_store.path) as db:
        db.execute("DELETE FROM audit WHERE seq = 3")

    assert sqlite_store.audit.verify() == ["the log ends at row 2, but row 3 was written last"]


def test_a_row_edited_outside_the_server_is_not_a_genuine_contract(tmp_path: Path):
    from domain.contracts import records

    signer = HmacSigner()
    state = SqliteState(tmp_path / "ck3raven.db")
    state.contracts.put(records.sign(contract(), signer))
    with sqlite_db(tmp_path / "ck3raven.db") as db:
        db.execute("UPDATE contracts SET record = replace(record, ':/\", null', ':/\", \"f00d\"')")

    edited = state.contracts.get("ct-1")
    assert edited.repositories == (("ROOT_REPO:/", "f00d"),)
    assert not records.genuine(edited, signer)


def test_a_database_newer_than_the_code_is_refused(tmp_path: Path):
    SqliteState(tmp_path / "ck3raven.db").close()
    with sqlite3.connect(tmp_path / "ck3raven.db") as db:
        db.execute("INSERT INTO schema_migrations VALUES (99, 'later')")

    with pytest.raises(Unavailable):
        SqliteState(tmp_path / "ck3raven.db")


def test_the_database_file_is_private(tmp_path: Path):
    SqliteState(tmp_path / "state" / "ck3raven.db").close()

    assert (tmp_path / "state" / "ck3raven.db").stat().st_mode & 0o077 == 0


def test_a_renamed_status_keeps_its_record(store):
    store.contracts.put(contract())
    store.contracts.put(evolve(contract(), status="cancelled"))

    assert [r.status for r in store.contracts.all()] == ["cancelled"]


def test_an_older_copy_written_back_over_a_consumed_approval_is_no_record(tmp_path: Path):
    from tests.state_db import record, write_record

    state = SqliteState(tmp_path / "ck3raven.db")
    authority = Authority(state.approvals, FakeClock(), CountingIds(), HmacSigner())
    asked = approvals.request(authority, "mode", b"session:s\nmode:ck3lens", "switch")
    approvals.human_decision(authority, asked.approval_id, approve=True)
    approved = record(tmp_path, "approvals", asked.approval_id)
    first, _ = approvals.settle(authority, "mode", b"mode:ck3lens", "switch", session_id="s")
    write_record(tmp_path, "approvals", asked.approval_id, approved)

    again, _ = approvals.settle(authority, "mode", b"mode:ck3lens", "switch", session_id="s")

    assert (first, again) == (State.APPROVED, State.PENDING)
    assert state.approvals.get(asked.approval_id) is None


@pytest.mark.parametrize(
    "text", ["null", "[]", "42", "[" * 5000 + "]" * 5000, "not json", '{"contract_id": 1}']
)
def test_a_corrupt_contract_row_is_quarantined_and_blocks_nothing_else(tmp_path: Path, text: str):
    state = SqliteState(tmp_path / "ck3raven.db")
    state.contracts.put(contract("ct-good"))
    state.contracts.put(contract("ct-bad"))
    with sqlite_db(tmp_path / "ck3raven.db") as db:
        db.execute("UPDATE contracts SET record = ? WHERE contract_id = 'ct-bad'", (text,))

    listed = state.contracts.all()

    assert [r.contract_id for r in listed] == ["ct-good"]
    assert state.contracts.get("ct-bad") is None
    assert [(kind, record_id) for kind, record_id, _ in state.quarantined()] == [("contract_id", "ct-bad")]


def journal_entry(entry_id: str, contract_id: str | None, path: str = "a.py") -> JournalEntry:
    return JournalEntry(
        entry_id=entry_id,
        at="2026-11-26T00:00:00+00:00",
        session_id="s-1",
        contract_id=contract_id,
        root="ROOT_REPO",
        address=f"ROOT_REPO:/{path}",
        kind="write",
        before=None,
        after="ab" * 32,
        size=3,
        path=path,
    )


def test_journal_entries_come_back_in_order_per_contract_with_the_content_before(store):
    store.journal.begin(journal_entry("jr-1", "ct-1"), b"old")
    store.journal.begin(journal_entry("jr-2", None), None)
    store.journal.begin(journal_entry("jr-3", "ct-2"), b"other")
    store.journal.settle("jr-1", "done")

    assert [e.entry_id for e in store.journal.entries()] == ["jr-1", "jr-2", "jr-3"]
    assert [e.entry_id for e in store.journal.entries(["ct-1", None])] == ["jr-1", "jr-2"]
    assert [e.state for e in store.journal.entries(["ct-1"])] == ["done"]
    assert store.journal.entries([]) == []
    assert store.journal.content_before("jr-1") == b"old"
    assert store.journal.content_before("jr-2") is None


def test_a_settled_entry_keeps_a_path_that_is_no_utf8_and_one_beyond_ascii_as_they_were(store):
    odd = "caf\udce9/\u00e9t\u00e9/\U0001f600.txt"  # a byte no UTF-8 decodes, as the filesystem hands it over
    store.journal.begin(journal_entry("jr-1", "ct-1", path=odd), b"old")

    store.journal.settle("jr-1", "done")

    (entry,) = store.journal.entries(["ct-1"])
    assert (entry.path, entry.address, entry.state) == (odd, f"ROOT_REPO:/{odd}", "done")


def test_settling_an_entry_whose_stored_record_is_not_json_is_a_store_error_and_changes_nothing(
    sqlite_store: SqliteState,
):
    sqlite_store.journal.begin(journal_entry("jr-1", "ct-1"), b"old")
    sqlite_store.execute("UPDATE journal SET record = '{torn' WHERE entry_id = 'jr-1'")

    with pytest.raises(Unavailable):
        sqlite_store.journal.settle("jr-1", "done")

    assert sqlite_store.execute("SELECT record FROM journal WHERE entry_id = 'jr-1'") == [("{torn",)]


@pytest.mark.parametrize(
    ("steps", "state"),
    [
        ([("failed", True), ("done", False)], "done"),  # another's look at it, then its writer's word
        ([("done", False), ("failed", True)], "done"),  # a look settles only what is still pending
        ([("done", True), ("failed", False)], "done"),  # an entry once done is never turned failed
        ([("failed", True), ("done", True)], "failed"),
        ([("failed", False)], "failed"),
    ],
)
def test_a_journal_entrys_writer_decides_it_and_a_done_entry_stays_done(store, steps, state):
    begun = JournalEntry(
        "jr-1", "2026-11-26T00:00:00+00:00", "s-1", "ct-1", "ROOT_REPO", "a", "write", None, "d", 1
    )
    store.journal.begin(begun, None)

    for settled, if_pending in steps:
        store.journal.settle("jr-1", settled, if_pending=if_pending)

    assert [entry.state for entry in store.journal.entries(["ct-1"])] == [state]


def test_a_journal_entry_begun_in_a_failed_decision_is_not_kept(store):
    def failing() -> None:
        with store.atomic():
            store.journal.begin(journal_entry("jr-1", "ct-1"), b"old")
            raise RuntimeError("the decision failed")

    with pytest.raises(RuntimeError):
        failing()

    assert store.journal.entries() == []


def test_a_contract_stored_before_the_journal_existed_is_read_after_the_upgrade(tmp_path: Path):
    from adapters.sqlite_schema import MIGRATIONS

    path = tmp_path / "ck3raven.db"
    with sqlite3.connect(path) as db:  # a database as the release before the journal left it
        db.execute("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT)")
        for version, step in enumerate(MIGRATIONS[:2], 1):
            db.executescript(step)
            db.execute("INSERT INTO schema_migrations VALUES (?, datetime('now'))", (version,))
        old = {**json.loads(json.dumps(asdict(contract()))), "baseline_snapshot": [["ROOT_REPO:/a.py", None]]}
        del old["repositories"]
        db.execute(
            "INSERT INTO contracts VALUES (?, ?, ?, ?, ?)",
            ("ct-1", "s-1", "open", "2026-11-26T00:00:00+00:00", json.dumps(old)),
        )

    state = SqliteState(path)

    assert state.contracts.get("ct-1").repositories == ()
    assert state.quarantined() == []


def test_a_truncated_shared_memory_index_found_at_start_is_rebuilt_and_said_in_one_line(tmp_path: Path):
    import shutil

    from structlog.testing import capture_logs

    crashed, found = tmp_path / "crashed", tmp_path / "found"
    state = SqliteState(crashed / "ck3raven.db")
    for code in ("A-1", "A-2"):
        state.audit.append(entry(code))
    found.mkdir()
    for name in ("ck3raven.db", "ck3raven.db-wal", "ck3raven.db-shm"):  # as a killed server leaves them
        shutil.copyfile(crashed / name, found / name)
    (found / "ck3raven.db-shm").write_bytes(b"\x01" * 100)

    with capture_logs() as logged:
        reopened = SqliteState(found / "ck3raven.db")

    assert [row.entry.code for row in reopened.audit.rows()] == ["A-1", "A-2"]
    assert reopened.audit.verify() == []
    assert [line["event"] for line in logged] == ["state.shm_truncated"]


def change_everything_and_fail(store) -> None:
    with store.atomic():
        store.contracts.put(contract("ct-1", status="closed"))
        store.contracts.put(contract("ct-2"))
        store.ledger.save("ROOT_REPO", {"ROOT_REPO:/a.py": 2})
        store.evidence.put("close", "ct-1", "{}")
        store.journal.begin(journal_entry("jr-2", "ct-1"), None)
        store.journal.settle("jr-1", "done")
        store.audit.append(entry("A-2"))
        raise RuntimeError("the next step failed")


def test_a_failing_decision_over_stored_records_leaves_each_of_them_as_it_was(store):
    store.contracts.put(contract("ct-1"))
    store.ledger.save("ROOT_REPO", {"ROOT_REPO:/a.py": 1})
    store.evidence.put("close", "ct-0", "{}")
    store.journal.begin(journal_entry("jr-1", "ct-1"), b"old")
    store.audit.append(entry("A-1"))
    rows = store.audit.rows()

    with pytest.raises(RuntimeError):
        change_everything_and_fail(store)

    assert store.contracts.get("ct-1") == contract("ct-1")
    assert store.contracts.get("ct-2") is None
    assert store.ledger.load("ROOT_REPO") == {"ROOT_REPO:/a.py": 1}
    assert store.evidence.find("close", "ct-1") is None
    assert [(e.entry_id, e.state) for e in store.journal.entries()] == [
        ("jr-1", journal_entry("jr-1", "ct-1").state)
    ]
    assert store.audit.rows() == rows
    assert store.audit.verify() == []


def embedded_over(store: SqliteState | MemoryState) -> Embedded:
    """The embedding door (in memory files), its state kept in `store`."""
    host = in_memory({"ROOT_REPO": {"src": {"a.py": b"a = 1\n"}}})
    stores = {"contracts": store.contracts, "journal": store.journal, "audit": store.audit}
    services = evolve(host.core.services, **stores, ledger=store.ledger, evidence=store.evidence)
    return Embedded(Core(evolve(services, transactions=store), host.core.defaults), host.files, host.state)


def test_a_governed_write_through_the_embedding_door_leaves_its_change_row_with_its_journal_entry(store):
    host = embedded_over(store)
    session = host.session()
    targets = [{"path": "ROOT_REPO:/src/a.py", "edit_kind": "modify"}]
    declared = {"intent": "i", "work_declaration": "w", "operations": ["WRITE"], "targets": targets}
    opened = host.call(session, "ck3_contract", "open", root_category="ROOT_REPO", **declared)
    written = host.call(session, "ck3_file", "write", path="ROOT_REPO:/src/a.py", content="a = 2\n")

    (begun,) = store.journal.entries(None)
    rows = [
        (r.entry.stage, r.entry.tool, r.entry.command, r.entry.contract_id, r.entry.targets, r.entry.notes)
        for r in store.audit.rows()
    ]
    assert (opened.code, written.code) == ("CT-GATE-S-001", "WA-WRITE-S-001")
    contract_id = opened.data["contract_id"]
    assert rows == [
        ("decision", "ck3_contract", "open", contract_id, (), ("contract opened",)),
        (
            "change",
            "ck3_file",
            "write",
            contract_id,
            ("ROOT_REPO:/src/a.py",),
            (f"write begun (journal {begun.entry_id})",),
        ),
    ]
    assert store.audit.verify() == []


def test_a_change_whose_audit_row_cannot_be_written_leaves_no_journal_entry_either(store):
    host = embedded_over(store)
    session = host.session()
    targets = [{"path": "ROOT_REPO:/src/a.py", "edit_kind": "modify"}]
    declared = {"intent": "i", "work_declaration": "w", "operations": ["WRITE"], "targets": targets}
    host.call(session, "ck3_contract", "open", root_category="ROOT_REPO", **declared)

    def failing(_: AuditEntry) -> None:
        raise Unavailable("the audit log cannot be written")

    store.audit.append = failing  # type: ignore[method-assign]
    written = host.call(session, "ck3_file", "write", path="ROOT_REPO:/src/a.py", content="a = 2\n")

    assert written.code == "WA-IO-E-001"
    assert store.journal.entries(None) == []
    assert "a = 1" in str(host.call(session, "ck3_read", "read", path="ROOT_REPO:/src/a.py").data["content"])


def test_the_calls_a_server_that_ended_left_without_rows_are_recorded_once_as_a_gap_row(tmp_path: Path):
    state = SqliteState(tmp_path / "ck3raven.db")
    calls = [("srv-ended", 1), ("srv-ended", 4), ("srv-ended", 7), ("srv-live", 1), ("srv-live", 3)]
    state.audit.append_all([evolve(entry(), server_id=server, call=call) for server, call in calls])

    recorded = state.audit.record_gaps(lambda server: server == "srv-ended", "2026-11-27T00:00:00+00:00")
    again = state.audit.record_gaps(lambda server: server == "srv-ended", "2026-11-27T00:00:00+00:00")

    assert recorded == ["server srv-ended: calls 2-3, 5-6 left no row"]
    assert again == []
    (gap,) = [row.entry for row in state.audit.rows() if row.entry.stage == "gap"]
    assert (gap.server_id, gap.tool, gap.call) == ("srv-ended", "<gap>", None)
    # the live server's calls may yet get their rows: named, not recorded
    assert state.audit.verify() == ["server srv-live: call 2 left no audit row"]
    with sqlite_db(state.path) as db:  # a gap row edited to cover a deleted row breaks the chain
        db.execute("UPDATE audit SET entry = replace(entry, '2-3', '2-4') WHERE entry LIKE '%<gap>%'")
    assert state.audit.verify()[0].endswith("its content was changed")


def test_no_gap_row_is_recorded_for_calls_whose_rows_were_deleted_from_the_chain(tmp_path: Path):
    state = SqliteState(tmp_path / "ck3raven.db")
    calls = [("srv-ended", 1), ("srv-ended", 2), ("srv-ended", 3)]
    state.audit.append_all([evolve(entry(), server_id=server, call=call) for server, call in calls])
    with sqlite_db(state.path) as db:  # tampering: the row of call 2 is deleted
        db.execute("DELETE FROM audit WHERE json_extract(entry, '$.call') = 2")

    recorded = state.audit.record_gaps(lambda server: server == "srv-ended", "2026-11-27T00:00:00+00:00")

    assert recorded == []
    assert not [row for row in state.audit.rows() if row.entry.stage == "gap"]
    assert any("missing or was changed" in problem for problem in state.audit.verify())
