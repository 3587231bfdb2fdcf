"""Reconciliation (SPEC §7): every net change in a contract's scope since it opened, each attributed to the
contract's own journaled work, another contract's, or work outside the server named by what saw it (the
repository, the manifest); folders are no work, a link is what it points at, a name no address can spell
is counted and never named, and the content a file had at open is known wherever anything kept it."""

import os
from pathlib import Path

from attrs import evolve
from dulwich import porcelain

from adapters.memory_state import MemoryState
from app.bootstrap import build_core
from domain.contracts.lifecycle import OpenRequest
from domain.contracts.reconciliation import Reconciled, reconcile
from domain.policy.pacing import Rates
from domain.replies.frozen import thaw
from domain.use_cases.contract_work import Cancel, Open, Renew
from domain.use_cases.file_access import Write
from domain.use_cases.repository import GitAdd, GitCommit, GitStatus
from domain.vocabulary import RootCategory
from ports.contracts import TargetRecord
from tests.fakes import FakeClock
from tests.gates import Desk, desk, nested_repository
from tests.worlds import sample_world_on_disk

A = ("ROOT_REPO:/src/a.py", "modify")
HOUR_AGO = 3600


def aged(base: Path, *more: str) -> Desk:
    """A desk whose files (and `more` untracked ones, made first) are an hour old: the manifest taken at
    open knows them by their stat alone."""
    bench = desk(base)
    for name in more:
        (bench.repo / name).write_text(f"{name}\n", encoding="utf-8")
    return aged_again(bench)


def aged_again(bench: Desk) -> Desk:
    """`bench` with every file an hour older."""
    for folder, _, files in os.walk(bench.repo):
        for name in files:
            path = Path(folder) / name
            stat = path.lstat()
            os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns - HOUR_AGO * 10**9), follow_symlinks=False)
    return bench


def seen(bench: Desk) -> Reconciled:
    record = bench.stored(bench.session.contract_id)
    return reconcile(bench.session, bench.core.services, record)


def change(address: str, kind: str, source: str) -> dict[str, object]:
    return {"address": address, "kind": kind, "source": source, "outside": source != "journal"}


def test_work_through_the_server_is_the_contracts_own_and_work_by_hand_is_outside(tmp_path: Path):
    bench = aged(tmp_path)
    bench.open(A, ("ROOT_REPO:/src/hand.py", "add"))
    bench.write("src/a.py", "a = 2\n")
    (bench.repo / "src" / "hand.py").write_text("by hand\n", encoding="utf-8")
    found = seen(bench)

    assert found.changes == [
        change("ROOT_REPO:/src/a.py", "modify", "journal"),
        change("ROOT_REPO:/src/hand.py", "add", "manifest"),
    ]
    assert (found.others, found.transient, found.unnamed) == ([], [], 0)


def test_a_tracked_file_edited_by_hand_is_seen_by_its_repository_and_an_untracked_one_by_the_manifest(
    tmp_path: Path,
):
    bench = aged(tmp_path, "notes.txt", "todo.txt")
    bench.open(A)
    (bench.repo / "src" / "a.py").write_text("a = 3\n", encoding="utf-8")
    (bench.repo / "notes.txt").write_text("notes.txt\n", encoding="utf-8")  # same content, new stat
    (bench.repo / "todo.txt").write_text("done\n", encoding="utf-8")
    (bench.repo / "src" / "b.py").write_text("b\n", encoding="utf-8")
    (bench.repo / "src" / "b.py").unlink()  # made and removed: never there
    found = seen(bench)

    assert found.changes == [
        change("ROOT_REPO:/src/a.py", "modify", "repository"),
        change("ROOT_REPO:/todo.txt", "modify", "manifest"),
    ]


def test_outside_every_repository_a_file_whose_content_nothing_kept_is_modified_once_its_stat_is(
    tmp_path: Path,
):
    bench = aged(tmp_path)
    config = bench.repo.parent / "data" / "config"
    config.mkdir()
    (config / "touched.txt").write_text("x\n", encoding="utf-8")
    os.utime(config / "touched.txt", ns=(0, 10**18))
    bench.open(("ROOT_CK3RAVEN_DATA:/config/touched.txt", "modify"), root_category="ROOT_CK3RAVEN_DATA")
    (config / "touched.txt").write_text("x\n", encoding="utf-8")
    found = seen(bench)

    assert found.changes == [change("ROOT_CK3RAVEN_DATA:/config/touched.txt", "modify", "manifest")]
    assert found.at_open(("config", "touched.txt")) == (None, False)


def test_a_tracked_file_written_back_as_it_was_is_no_change(tmp_path: Path):
    bench = aged(tmp_path)
    bench.open(A)
    (bench.repo / "src" / "a.py").write_text("a = 1\n", encoding="utf-8")

    assert seen(bench).changes == []


def test_a_file_already_changed_at_open_is_judged_by_the_content_the_manifest_took(tmp_path: Path):
    bench = aged(tmp_path)
    (bench.repo / "src" / "a.py").write_text("a = 5\n", encoding="utf-8")  # changed before the contract
    bench.open(A)
    (bench.repo / "src" / "a.py").write_text("a = 5\n", encoding="utf-8")
    unchanged = seen(bench).changes
    (bench.repo / "src" / "a.py").write_text("a = 7\n", encoding="utf-8")

    assert unchanged == []
    assert seen(bench).changes == [change("ROOT_REPO:/src/a.py", "modify", "manifest")]


def test_folders_are_no_work_and_deletions_are(tmp_path: Path):
    bench = aged(tmp_path, "gone.txt")
    bench.open(A)
    (bench.repo / "src" / "empty").mkdir()
    (bench.repo / "gone.txt").unlink()
    bench.delete("src/a.py")
    found = seen(bench)

    assert found.changes == [
        change("ROOT_REPO:/gone.txt", "delete", "manifest"),
        change("ROOT_REPO:/src/a.py", "delete", "journal"),
    ]


def test_a_link_is_what_it_points_at(tmp_path: Path):
    bench = aged(tmp_path)
    (bench.repo / "kept").symlink_to("src/a.py")
    (bench.repo / "moved").symlink_to("src/a.py")
    (bench.repo / "swapped").write_text("file\n", encoding="utf-8")
    bench.open(A)
    (bench.repo / "kept").unlink()
    (bench.repo / "kept").symlink_to("src/a.py")  # made again, same target
    (bench.repo / "moved").unlink()
    (bench.repo / "moved").symlink_to("README")
    (bench.repo / "swapped").unlink()
    (bench.repo / "swapped").symlink_to("src/a.py")
    (bench.repo / "new_link").symlink_to("src")

    assert seen(bench).changes == [
        change("ROOT_REPO:/moved", "modify", "manifest"),
        change("ROOT_REPO:/new_link", "add", "manifest"),
        change("ROOT_REPO:/swapped", "modify", "manifest"),
    ]


def test_what_was_committed_since_open_counts_even_when_the_tree_no_longer_shows_it(tmp_path: Path):
    bench = aged(tmp_path)
    bench.open(A)
    (bench.repo / "src" / "c.py").write_text("c\n", encoding="utf-8")
    porcelain.add(str(bench.repo), paths=[str(bench.repo / "src" / "c.py")])
    porcelain.commit(str(bench.repo), message=b"c", author=b"T <t@x>", committer=b"T <t@x>")
    (bench.repo / "src" / "c.py").unlink()

    assert seen(bench).changes == [change("ROOT_REPO:/src/c.py", "add", "repository")]


def test_a_file_written_and_put_back_by_the_contract_is_transient(tmp_path: Path):
    bench = aged(tmp_path)
    bench.open(A, ("ROOT_REPO:/src/tmp.py", "add"))
    bench.write("src/tmp.py", "x\n")
    bench.delete("src/tmp.py")
    bench.write("src/a.py", "a = 2\n")
    bench.write("src/a.py", "a = 1\n")
    found = seen(bench)

    assert found.changes == []
    assert found.transient == ["ROOT_REPO:/src/a.py", "ROOT_REPO:/src/tmp.py"]


def test_work_another_sessions_contract_did_since_is_theirs_until_someone_changes_it_again(tmp_path: Path):
    bench = aged(tmp_path)
    bench.open(A)
    two = bench.core.start_session("s-2")
    theirs = OpenRequest(
        "ROOT_REPO", "theirs", ("WRITE",), (TargetRecord("ROOT_REPO:/src/t.py", "add"),), "w"
    )
    other_id = bench.ask(Open(theirs), two).data["contract_id"]
    bench.ask(Write("src/t.py", "theirs\n"), two)
    bench.ask(Write("src/u.py", "theirs\n"), two)
    (bench.repo / "src" / "u.py").write_text("changed by hand\n", encoding="utf-8")
    found = seen(bench)

    assert found.others == [{"address": "ROOT_REPO:/src/t.py", "kind": "add", "contract_id": other_id}]
    assert found.changes == [change("ROOT_REPO:/src/u.py", "add", "manifest")]


def test_a_change_to_a_name_no_address_can_spell_is_counted_never_named(tmp_path: Path):
    bench = aged(tmp_path)
    bench.open(A)
    (bench.repo / "src" / "what:is.txt").write_text("x\n", encoding="utf-8")
    found = seen(bench)

    assert (found.changes, found.unnamed) == ([], 1)


def test_the_content_at_open_is_what_the_journal_kept_else_what_the_repository_held(tmp_path: Path):
    bench = aged(tmp_path, "notes.txt")
    bench.open(A, ("ROOT_REPO:/src/new.py", "add"), ("ROOT_REPO:/notes.txt", "modify"))
    (bench.repo / "src" / "a.py").write_text("a = 3, by hand\n", encoding="utf-8")
    before_server = seen(bench).at_open
    bench.write("src/a.py", "a = 4\n")
    bench.write("src/new.py", "new\n")
    (bench.repo / "notes.txt").write_text("by hand\n", encoding="utf-8")
    at_open = seen(bench).at_open

    assert before_server(("src", "a.py")) == (b"a = 1\n", True)  # the repository's, at the baseline
    assert at_open(("src", "a.py")) == (b"a = 3, by hand\n", True)  # what the server overwrote first
    assert at_open(("src", "new.py")) == (None, True)  # the contract made it
    assert at_open(("src", "other.py")) == (None, True)  # in no manifest: it was not there
    assert at_open(("notes.txt",)) == (None, False)  # there, untracked, and nothing kept it


def test_git_status_names_only_the_changes_an_agent_could_have_made(tmp_path: Path):
    bench = aged(tmp_path)
    (bench.repo / "src" / "a.py").write_text("a = 3\n", encoding="utf-8")
    (bench.repo / "src" / "new.py").write_text("new\n", encoding="utf-8")
    (bench.repo / ".env").write_text("TOKEN=secret\n", encoding="utf-8")  # a hidden secret the user edited
    (bench.repo / "src" / "gone.py").write_text("gone\n", encoding="utf-8")
    porcelain.add(str(bench.repo), paths=[str(bench.repo / "src" / "gone.py")])
    porcelain.commit(str(bench.repo), message=b"gone", author=b"T <t@x>", committer=b"T <t@x>")
    (bench.repo / "src" / "gone.py").unlink()
    (bench.repo / "src" / ".new.py.ck3raven-tmp").write_text(
        "half\n", encoding="utf-8"
    )  # a write's temporary
    status = bench.ask(GitStatus())

    assert status.code == "WA-READ-S-004"
    assert sorted(thaw(status.data["changes"]), key=str) == [
        {"address": "ROOT_REPO:/src/a.py", "kind": "modify"},
        {"address": "ROOT_REPO:/src/gone.py", "kind": "delete"},
        {"address": "ROOT_REPO:/src/new.py", "kind": "add"},
    ]


def test_where_the_journal_lost_the_content_it_kept_the_repository_tells_the_content_at_open(tmp_path: Path):
    bench = aged(tmp_path)
    bench.open(A)
    bench.write("src/a.py", "a = 2\n")
    rows = bench.state.data["journal"]
    rows[:] = [(entry, None) for entry, _ in rows]  # lost from the store

    assert seen(bench).at_open(("src", "a.py")) == (b"a = 1\n", True)


def test_a_file_of_a_repository_nested_in_the_scope_is_judged_by_that_repository(tmp_path: Path):
    bench = desk(tmp_path)
    lib = nested_repository(bench)
    bench = aged_again(bench)
    bench.open(A)
    (lib / "x.py").write_text("x = 2\n", encoding="utf-8")
    found = seen(bench)

    assert found.changes == [change("ROOT_REPO:/vendor/lib/x.py", "modify", "repository")]
    assert found.at_open(("vendor", "lib", "x.py")) == (b"x = 1\n", True)


def test_a_file_is_judged_by_the_repository_that_held_it_at_open_even_when_another_holds_it_now(
    tmp_path: Path,
):
    bench = aged(tmp_path)
    bench.open(A)
    porcelain.init(str(bench.repo / "src"))  # a repository made inside the scope since
    (bench.repo / "src" / "a.py").write_text("a = 1\n", encoding="utf-8")  # touched, same content

    assert seen(bench).changes == []


def test_what_stands_where_the_contract_deleted_a_file_decides_whose_the_deletion_is(tmp_path: Path):
    bench = aged(tmp_path, "b.txt")
    bench.open(A, ("ROOT_REPO:/b.txt", "delete"))
    bench.delete("src/a.py")
    bench.delete("b.txt")
    (bench.repo / "src" / "a.py").mkdir()  # a folder is no work: the deletion stays the contract's
    (bench.repo / "b.txt").symlink_to("README.md")  # a link is: the change is no longer the contract's

    assert seen(bench).changes == [
        change("ROOT_REPO:/b.txt", "modify", "manifest"),
        change("ROOT_REPO:/src/a.py", "delete", "journal"),
    ]


def test_a_target_outside_the_scopes_folders_is_in_the_baseline_when_declared(tmp_path: Path):
    settings = evolve(sample_world_on_disk(tmp_path), state_dir=tmp_path / "state", limits=Rates(0, 0))
    registry = settings.roots[RootCategory.ROOT_USER_DOCS] / "launcher-v2.sqlite"
    core = build_core(settings, stored=MemoryState(), clock=FakeClock())
    session = core.start_session("s")
    target = TargetRecord("ROOT_USER_DOCS:/launcher-v2.sqlite", "modify")
    declared = Open(OpenRequest("ROOT_USER_DOCS", "tune", ("WRITE",), (target,), "the registry"))
    asked = core.answer(session, declared)
    assert core.decide_approval(str(asked.data["approval_id"]), approve=True)
    assert core.answer(session, declared).code == "CT-GATE-S-001"
    registry.write_bytes(b"the launcher's own change")
    record = core.services.contracts.get(str(session.contract_id))
    assert record is not None

    assert reconcile(session, core.services, record).changes == [
        change("ROOT_USER_DOCS:/launcher-v2.sqlite", "modify", "manifest")
    ]


def test_work_done_before_a_renewal_is_the_renewed_contracts_own(tmp_path: Path):
    bench = aged(tmp_path)
    old_id = str(bench.open(A).data["contract_id"])
    bench.write("src/a.py", "a = 2\n")
    bench.clock.advance(minutes=61)
    assert bench.ask(Renew(old_id)).code == "CT-GATE-S-006"
    rows = bench.state.data["journal"]
    rows[:] = [(evolve(entry, state="pending"), content) for entry, content in rows]  # the server died

    assert seen(bench).changes == [change("ROOT_REPO:/src/a.py", "modify", "journal")]


def test_an_earlier_contracts_work_is_neither_this_ones_nor_transient(tmp_path: Path):
    bench = aged(tmp_path)
    bench.open(("ROOT_REPO:/src/b.py", "add"))
    bench.write("src/b.py", "b\n")
    bench.ask(Cancel())
    bench.open(A)
    found = seen(bench)

    assert (found.changes, found.transient, found.others) == ([], [], [])


def test_a_file_the_contract_committed_then_wrote_back_is_its_own_change(tmp_path: Path):
    bench = aged(tmp_path)
    bench.open(A)
    bench.write("src/a.py", "a = 2\n")
    assert bench.ask(GitAdd(("ROOT_REPO:/src/a.py",))).reply_type.value == "S"
    assert bench.ask(GitCommit(message="a = 2")).reply_type.value == "S"
    bench.write("src/a.py", "a = 1\n")

    assert seen(bench).changes == [change("ROOT_REPO:/src/a.py", "modify", "journal")]
