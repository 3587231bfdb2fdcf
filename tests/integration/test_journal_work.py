"""The journal of governed changes (SPEC §7) on a real repository: each governed write is recorded before it
lands, under the contract that governs the session, with the digests and the content before; a commit is
recorded once made; an entry left pending is settled by the file's digest; and what the journal says per
file is what undoing and attributing work go by."""

import hashlib
import json
from pathlib import Path

import pytest
from attrs import evolve

from domain.contracts import journal
from domain.contracts.journal import UNKNOWN, FileWork
from domain.session import Session
from ports.journal import JournalEntry
from tests.fakes import Servers
from tests.integration.repo_work import Work, committed


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@pytest.fixture
def work(tmp_path: Path) -> Work:
    repo = tmp_path / "repo"
    repo.mkdir()
    committed(repo, {"src/a.py": "a = 1\n"})
    return Work(tmp_path, repo)


def test_a_governed_write_is_journaled_under_its_contract_with_both_digests_and_the_content_before(
    work: Work,
):
    session = work.session()
    contract_id = work.open(session, ("src/a.py", "modify")).data["contract_id"]
    work.clock.advance(minutes=3)

    work.write(session, "src/a.py", "a = 22\n")

    (entry,) = work.state.journal.entries([contract_id])
    assert entry == JournalEntry(
        entry_id=entry.entry_id,
        at="2030-01-01T00:03:00+00:00",
        session_id="s-1",
        contract_id=contract_id,
        root="ROOT_REPO",
        address="ROOT_REPO:/src/a.py",
        kind="write",
        before=sha(b"a = 1\n"),
        after=sha(b"a = 22\n"),
        size=7,
        state="done",
        detail="",
        path="src/a.py",
    )
    assert work.state.journal.content_before(entry.entry_id) == b"a = 1\n"


def ref_of(session: Session, address: str):
    return session.world.resolve(address, session.home, must_exist=False)[1]


def test_a_change_made_under_no_contract_and_one_whose_content_before_is_unknown_are_journaled_so(work: Work):
    session = work.session()
    ref = ref_of(session, "ROOT_REPO:/src/a.py")

    entry = journal.begin(session, work.core.services, ref, "write", before=UNKNOWN, after=None, detail="why")

    stored = work.state.journal.entries(None)
    assert stored == [entry]
    assert (entry.contract_id, entry.before, entry.after, entry.size, entry.detail) == (
        None,
        "unknown",
        None,
        0,
        "why",
    )
    assert (entry.state, entry.path, entry.address) == ("pending", "src/a.py", "ROOT_REPO:/src/a.py")
    assert work.state.journal.content_before(entry.entry_id) is None


def test_a_commit_is_journaled_once_made_with_the_old_and_the_new_head(work: Work):
    session = work.session()
    contract_id = work.open(session, ("src/a.py", "modify")).data["contract_id"]
    work.write(session, "src/a.py", "a = 2\n")
    head = work.call(session, "ck3_contract", "status").data["active"]["repositories"][0]["commit"]
    work.call(session, "ck3_commit", "add", paths=["ROOT_REPO:/src/a.py"])

    made = work.call(session, "ck3_commit", "commit", message="Raise a")

    assert made.code == "WA-WRITE-S-004"
    commits = journal.commits(work.core.services, [contract_id])
    assert [(e.kind, e.before, e.after, e.size, e.state) for e in commits] == [
        ("commit", head, made.data["sha"], 0, "done")
    ]
    assert (commits[0].root, commits[0].path, commits[0].address, commits[0].contract_id) == (
        "ROOT_REPO",
        "",
        "ROOT_REPO:/",
        contract_id,
    )
    assert list(journal.per_file(session, work.core.services, [contract_id], "ROOT_REPO")) == ["src/a.py"]


def test_a_failed_commit_is_not_among_the_commits_made(work: Work):
    session = work.session()
    contract_id = work.open(session, ("src/a.py", "modify")).data["contract_id"]
    journal.commit(session, work.core.services, ("ROOT_REPO", ()), "c1", "c2")
    (made,) = work.state.journal.entries([contract_id])
    failed = evolve(made, entry_id="jr-failed", at="2000-01-01T00:00:00+00:00", after="c1", state="failed")
    work.state.journal.begin(failed, None)  # a commit recorded as failed: it is none of the commits made

    assert [e.after for e in journal.commits(work.core.services, [contract_id])] == ["c2"]


def test_an_entry_left_pending_is_settled_by_the_files_digest_once_no_writer_can_be_at_work_on_it(work: Work):
    session = work.session()
    services = work.core.services
    contract_id = work.open(session, ("src/a.py", "modify"), ("src/b.py", "add"), ("src/c.py", "add")).data[
        "contract_id"
    ]
    a, b, c = (ref_of(session, f"ROOT_REPO:/src/{name}.py") for name in "abc")
    landed = journal.begin(session, services, a, "write", before=b"a = 1\n", after=b"a = 3\n")
    lost = journal.begin(
        session, services, b, "write", before=None, after=b"b = 1\n"
    )  # the server died first
    same = journal.begin(session, services, c, "write", before=b"c\n", after=b"c\n")  # nothing would change
    (work.root / "src" / "a.py").write_text("a = 3\n", encoding="utf-8")
    (work.root / "src" / "c.py").write_text("c\n", encoding="utf-8")

    work_done = journal.per_file(session, services, [contract_id], "ROOT_REPO")
    while_in_flight = {e.entry_id: e.state for e in work.state.journal.entries([contract_id])}
    work.clock.advance(minutes=11)  # past journal.IN_FLIGHT: no writer is still at work on them
    journal.per_file(session, services, [contract_id], "ROOT_REPO")

    assert list(work_done) == ["src/a.py"]
    assert work_done["src/a.py"].entries[0].state == "done"
    # a change that has not landed may still be landing: only its writer, or time, settles it failed
    assert while_in_flight == {landed.entry_id: "done", lost.entry_id: "pending", same.entry_id: "pending"}
    states = {e.entry_id: e.state for e in work.state.journal.entries([contract_id])}
    assert states == {landed.entry_id: "done", lost.entry_id: "failed", same.entry_id: "failed"}


def test_a_settled_entry_stays_pending_when_the_store_cannot_mark_it(work: Work):
    session = work.session()
    entry = journal.begin(
        session, work.core.services, ref_of(session, "ROOT_REPO:/src/a.py"), "write", before=None, after=b"x"
    )

    def failing(entry_id: str, state: str) -> None:
        from ports.errors import Unavailable

        raise Unavailable("injected")

    work.state.journal.settle = failing  # type: ignore[method-assign]
    journal.settle(work.core.services, entry, landed=True)

    assert work.state.journal.entries(None)[0].state == "pending"


def test_work_per_file_lists_each_files_landed_changes_oldest_first_since_a_time(work: Work):
    session = work.session()
    contract_id = work.open(session, ("src/a.py", "modify"), ("src/b.py", "add")).data["contract_id"]
    work.write(session, "src/a.py", "a = 2\n")
    work.clock.advance(minutes=10)
    work.write(session, "src/a.py", "a = 3\n")
    work.write(session, "src/b.py", "b\n")
    journal.commit(session, work.core.services, ("ROOT_REPO", ()), "p", "c")

    every = journal.per_file(session, work.core.services, None, "ROOT_REPO")
    later = journal.per_file(
        session, work.core.services, [contract_id], "ROOT_REPO", since="2030-01-01T00:05:00+00:00"
    )

    assert sorted(every) == ["src/a.py", "src/b.py"]
    a = every["src/a.py"]
    assert (a.root, a.path, a.address) == ("ROOT_REPO", "src/a.py", "ROOT_REPO:/src/a.py")
    assert [(e.before, e.after) for e in a.entries] == [
        (sha(b"a = 1\n"), sha(b"a = 2\n")),
        (sha(b"a = 2\n"), sha(b"a = 3\n")),
    ]
    assert (a.first.before, a.last.after) == (sha(b"a = 1\n"), sha(b"a = 3\n"))
    assert [(e.before, e.after) for e in later["src/a.py"].entries] == [(sha(b"a = 2\n"), sha(b"a = 3\n"))]
    assert journal.per_file(session, work.core.services, [contract_id], "ROOT_GAME") == {}


def entry(before: str | None, after: str | None) -> JournalEntry:
    return JournalEntry("jr", "t", "s", "ct", "ROOT_REPO", "ROOT_REPO:/a", "write", before, after, 1, "done")


def test_undoing_goes_back_newest_first_while_the_file_is_what_each_change_left():
    one, two, three = entry(None, "d1"), entry("d1", "d2"), entry("d2", "d3")
    human = entry("d9", "d4")  # made over a human's edit of d2 into d9
    work = FileWork("ROOT_REPO", "a", "ROOT_REPO:/a", (one, two, three))

    assert journal.undoable(work, "d3") is one
    assert journal.undoable(work, "d2") is None  # the newest change was undone by hand: nothing is undone
    assert journal.undoable(FileWork("ROOT_REPO", "a", "ROOT_REPO:/a", (one, two, human)), "d4") is human


def test_a_renewed_contract_shares_its_journal_and_opened_when_the_first_of_its_line_opened(work: Work):
    session = work.session()
    first = work.open(session, ("src/a.py", "modify")).data["contract_id"]
    work.clock.advance(hours=2, minutes=1)
    renewed = work.call(session, "ck3_contract", "renew", contract_id=first, ttl_minutes=60)
    second = work.state.contracts.get(renewed.data["contract_id"])
    assert second is not None

    assert journal.chain(work.core.services, second) == [second.contract_id, first]
    assert journal.opened_at(work.core.services, second) == "2030-01-01T00:00:00+00:00"
    del work.state.data["contracts"][first]  # a predecessor the store no longer holds
    assert journal.opened_at(work.core.services, second) == second.created_at


def test_the_work_and_commits_of_some_contracts_leave_out_every_other_contracts(work: Work):
    first, second = work.session("a"), work.session("b")
    mine = work.open(first, ("src/a.py", "modify"), ("src/c.py", "add")).data["contract_id"]
    theirs = work.open(second, ("src/b.py", "add")).data["contract_id"]
    journal.commit(first, work.core.services, ("ROOT_REPO", ()), "p", "mine")
    journal.commit(second, work.core.services, ("ROOT_REPO", ()), "p", "theirs")
    work.write(first, "src/a.py", "a = 2\n")  # after a commit: the walk goes on past it
    work.write(second, "src/b.py", "b\n")
    work.write(first, "src/c.py", "c\n")

    assert sorted(journal.per_file(first, work.core.services, [mine], "ROOT_REPO")) == [
        "src/a.py",
        "src/c.py",
    ]
    assert [e.after for e in journal.commits(work.core.services, [mine])] == ["mine"]
    assert [e.after for e in journal.commits(work.core.services, [theirs])] == ["theirs"]


def test_a_write_in_flight_when_another_contract_opened_is_its_writers_at_that_contracts_close(work: Work):
    services = work.core.services
    writer, other = work.session("s-writer"), work.session("s-other")
    writers = work.open(writer, ("src/b.py", "add")).data["contract_id"]
    entry = journal.begin(
        writer, services, ref_of(writer, "ROOT_REPO:/src/b.py"), "write", before=None, after=b"b\n"
    )
    work.clock.advance(seconds=2)
    assert work.open(other, ("src/a.py", "modify")).code == "CT-GATE-S-001"  # its manifest: no b.py yet
    (work.root / "src" / "b.py").write_text("b\n", encoding="utf-8")  # the write lands after it
    journal.settle(services, entry, landed=True)
    work.write(other, "src/a.py", "a = 9\n")

    closed = work.close(other)

    assert closed.code == "CT-GATE-S-002", closed.data
    evidence = json.loads(services.evidence.document("close", str(closed.data["contract_id"])) or "{}")
    assert evidence["others"] == [{"address": "ROOT_REPO:/src/b.py", "kind": "add", "contract_id": writers}]


def test_another_readers_look_at_a_write_not_yet_landed_never_hides_it_from_the_next_close(work: Work):
    services = work.core.services
    writer, other = work.session("s-writer"), work.session("s-other")
    work.open(other, ("src/a.py", "modify"))
    writers = work.open(writer, ("src/b.py", "add")).data["contract_id"]
    entry = journal.begin(
        writer, services, ref_of(writer, "ROOT_REPO:/src/b.py"), "write", before=None, after=b"b\n"
    )
    looked = journal.per_file(other, services, None, "ROOT_REPO")  # the file has not changed yet
    (work.root / "src" / "b.py").write_text("b\n", encoding="utf-8")
    work.write(other, "src/a.py", "a = 9\n")

    closed = work.close(other)  # before the writer settled its entry
    journal.settle(services, entry, landed=True)

    assert "src/b.py" not in looked
    assert closed.code == "CT-GATE-S-002", closed.data
    assert [e.state for e in services.journal.entries([writers])] == ["done"]


def test_a_pending_entry_whose_time_was_edited_unreadable_is_settled_by_digest_and_fails_nothing(work: Work):
    session = work.session()
    services = work.core.services
    contract_id = work.open(session, ("src/b.py", "add")).data["contract_id"]
    entry = journal.begin(
        session, services, ref_of(session, "ROOT_REPO:/src/b.py"), "write", before=None, after=b"b\n"
    )
    edited = evolve(entry, entry_id="jr-edited", at="not a time")
    work.state.journal.begin(edited, None)

    found = journal.per_file(session, services, [contract_id], "ROOT_REPO")

    assert found == {}
    states = {e.entry_id: e.state for e in work.state.journal.entries([contract_id])}
    assert states[edited.entry_id] == "failed"


def test_a_pending_entry_is_settled_by_another_server_only_once_its_writers_server_is_gone(work: Work):
    session = work.session()
    work.with_services(servers=Servers("srv-writer", set()))
    contract_id = work.open(session, ("src/a.py", "modify"), ("src/b.py", "add")).data["contract_id"]
    services = work.core.services
    a, b = (ref_of(session, f"ROOT_REPO:/src/{name}.py") for name in "ab")
    landed = journal.begin(session, services, a, "write", before=b"a = 1\n", after=b"a = 3\n")
    lost = journal.begin(session, services, b, "write", before=None, after=b"b = 1\n")
    (work.root / "src" / "a.py").write_text("a = 3\n", encoding="utf-8")
    running = {"srv-writer"}
    work.with_services(servers=Servers("srv-reader", running))

    work.clock.advance(minutes=30)  # long past journal.IN_FLIGHT: time alone settles nothing of a live writer
    journal.per_file(session, work.core.services, [contract_id], "ROOT_REPO")
    while_running = {e.entry_id: e.state for e in work.state.journal.entries([contract_id])}
    running.clear()  # the writer's server was killed between its begin and its settle
    journal.per_file(session, work.core.services, [contract_id], "ROOT_REPO")

    assert {e.server_id for e in work.state.journal.entries([contract_id])} == {"srv-writer"}
    assert while_running == {landed.entry_id: "pending", lost.entry_id: "pending"}
    states = {e.entry_id: e.state for e in work.state.journal.entries([contract_id])}
    assert states == {landed.entry_id: "done", lost.entry_id: "failed"}


def test_a_live_writers_own_settle_decides_its_entry_on_any_server(work: Work):
    session = work.session()
    work.with_services(servers=Servers("srv-writer", set()))
    contract_id = work.open(session, ("src/a.py", "modify")).data["contract_id"]
    a = ref_of(session, "ROOT_REPO:/src/a.py")
    entry = journal.begin(session, work.core.services, a, "write", before=b"a = 1\n", after=b"a = 3\n")
    work.with_services(servers=Servers("srv-reader", {"srv-writer"}))
    work.clock.advance(minutes=30)
    journal.per_file(session, work.core.services, [contract_id], "ROOT_REPO")  # the file is not written yet
    (work.root / "src" / "a.py").write_text("a = 3\n", encoding="utf-8")

    journal.settle(work.core.services, entry, landed=True)

    assert [e.state for e in work.state.journal.entries([contract_id])] == ["done"]
