"""`revert` (SPEC §7, §9): the open contract's own journaled work, shown exactly, undone only with a human's
approval of exactly that list, what was there saved first; a file changed since is left alone and listed,
commits are listed, and a file that cannot be read or saved refuses the revert before a human is asked."""

import json
from pathlib import Path

from dulwich import porcelain

from domain.contracts.baseline import digest
from domain.replies.frozen import thaw
from domain.use_cases.contract_work import Revert
from domain.use_cases.repository import GitAdd, GitCommit
from tests.gates import WORK, Desk, desk, worked


def text(bench: Desk, name: str) -> str | None:
    path = bench.repo / "src" / name
    return path.read_text(encoding="utf-8") if path.exists() else None


FILES = [
    {"address": "ROOT_REPO:/src/a.py", "kind": "modify", "action": "restore"},
    {"address": "ROOT_REPO:/src/b.py", "kind": "delete", "action": "recreate"},
    {"address": "ROOT_REPO:/src/new.py", "kind": "add", "action": "remove"},
]


def test_a_dry_run_shows_each_change_and_what_undoing_it_does_and_changes_nothing(tmp_path: Path):
    bench = worked(tmp_path)
    shown = bench.ask(Revert(dry_run=True))

    assert shown.code == "CT-GATE-S-008"
    assert thaw(shown.data) == {
        "contract_id": bench.session.contract_id,
        "files": FILES,
        "count": 3,
        "changed_since": [],
        "commits": [],
    }
    assert (text(bench, "a.py"), text(bench, "b.py"), text(bench, "new.py")) == ("a = 2\n", None, "new\n")


def test_a_contract_that_changed_nothing_has_nothing_to_revert_and_asks_no_one(tmp_path: Path):
    bench = desk(tmp_path)
    bench.open(*WORK)
    done = bench.ask(Revert())

    assert (done.code, done.data["count"], done.data["files"]) == ("CT-GATE-S-008", 0, ())
    assert bench.core.services.authority.store.all() == []


def test_a_revert_waits_for_a_human_who_is_shown_every_file_and_changes_nothing_until_then(tmp_path: Path):
    bench = worked(tmp_path)
    asked = bench.ask(Revert(str(bench.session.contract_id)))
    data = thaw(asked.data)

    assert (asked.code, data["state"]) == ("CT-GATE-I-005", "pending")
    assert data["targets"] == [f["address"] for f in FILES]
    assert data["approval_id"] in data["hint"]
    summary = bench.core.approval_summary(data["approval_id"])
    assert summary == (
        f"Revert contract {bench.session.contract_id}: restore ROOT_REPO:/src/a.py; "
        "recreate ROOT_REPO:/src/b.py; remove ROOT_REPO:/src/new.py"
    )
    assert text(bench, "a.py") == "a = 2\n"


def test_an_approved_revert_puts_back_each_file_and_saves_what_was_there(tmp_path: Path):
    bench = worked(tmp_path)
    bench.approve(bench.ask(Revert()))
    done = bench.ask(Revert())
    data = thaw(done.data)

    assert done.code == "CT-GATE-S-009"
    assert data["files"] == FILES
    assert (text(bench, "a.py"), text(bench, "b.py"), text(bench, "new.py")) == ("a = 1\n", "b = 1\n", None)
    saved = json.loads(bench.core.services.evidence.document("revert", data["saved_as"]) or "{}")
    assert saved["root"] == "ROOT_REPO"
    contents = {f["address"]: (f["kind"], f["content"]) for f in saved["files"]}
    assert contents == {
        "ROOT_REPO:/src/a.py": ("modify", "YSA9IDIK"),
        "ROOT_REPO:/src/b.py": ("delete", None),
        "ROOT_REPO:/src/new.py": ("add", "bmV3Cg=="),
    }
    assert bench.ask(Revert(dry_run=True)).data["count"] == 0


def test_a_declined_revert_changes_nothing(tmp_path: Path):
    bench = worked(tmp_path)
    bench.approve(bench.ask(Revert()), approve=False)
    declined = bench.ask(Revert())

    assert (declined.code, declined.data["state"]) == ("CT-GATE-I-005", "declined")
    assert text(bench, "new.py") == "new\n"


def test_an_approval_of_one_list_does_not_revert_another(tmp_path: Path):
    bench = worked(tmp_path)
    bench.approve(bench.ask(Revert()))
    bench.delete("src/new.py")
    again = bench.ask(Revert())

    assert (again.code, again.data["state"]) == ("CT-GATE-I-005", "pending")
    assert text(bench, "a.py") == "a = 2\n"


def test_a_file_changed_outside_the_contract_since_is_listed_and_left_alone(tmp_path: Path):
    bench = worked(tmp_path)
    (bench.repo / "src" / "a.py").write_text("a = 3, by hand\n", encoding="utf-8")
    shown = thaw(bench.ask(Revert(dry_run=True)).data)

    assert shown["changed_since"] == ["ROOT_REPO:/src/a.py"]
    assert shown["files"] == FILES[1:]


def test_a_file_written_back_as_it_was_needs_no_revert(tmp_path: Path):
    bench = worked(tmp_path)
    bench.write("src/a.py", "a = 1\n")
    shown = thaw(bench.ask(Revert(dry_run=True)).data)

    assert shown["files"] == FILES[1:]
    assert shown["changed_since"] == []


def test_the_contracts_commits_are_listed_and_stay_in_history(tmp_path: Path):
    bench = worked(tmp_path)
    assert bench.ask(GitAdd(("ROOT_REPO:/src/a.py",))).reply_type.value == "S"
    committed = bench.ask(GitCommit(message="a = 2"))
    assert committed.reply_type.value == "S", committed
    commits = thaw(bench.ask(Revert(dry_run=True)).data["commits"])

    assert len(commits) == 1
    assert commits[0]["address"] == "ROOT_REPO:/"
    assert commits[0]["commit"] != commits[0]["parent"]
    assert commits[0]["commit"] == porcelain.open_repo(str(bench.repo)).head().decode()


def test_without_an_open_contract_there_is_nothing_to_revert(tmp_path: Path):
    refused = desk(tmp_path).ask(Revert(dry_run=True))

    assert (refused.code, refused.data["problem"]) == ("CT-GATE-I-006", "not the open contract")


def test_a_file_that_cannot_be_read_refuses_even_the_dry_run(tmp_path: Path):
    bench = worked(tmp_path)
    (bench.repo / "twin.py").hardlink_to(bench.repo / "src" / "a.py")  # a file with two links is never read
    refused = bench.ask(Revert(dry_run=True))

    assert refused.code == "CT-GATE-I-006"
    assert refused.data["contract_id"] == bench.session.contract_id
    assert refused.data["problem"] == (
        "ROOT_REPO:/src/a.py cannot be read, so it cannot be saved before it is restored"
    )


def test_a_revert_too_long_to_show_a_person_is_refused_before_one_is_asked(tmp_path: Path):
    bench = desk(tmp_path)
    names = [f"src/a_file_with_a_rather_long_name_{n:03}.py" for n in range(40)]
    bench.open(*((f"ROOT_REPO:/{name}", "add") for name in names))
    for name in names:
        bench.write(name, "x\n")
    refused = bench.ask(Revert())

    assert (refused.code, refused.data["problem"]) == (
        "CT-GATE-I-006",
        "too many files to show a person at once",
    )
    assert bench.core.services.authority.store.all() == []


def test_a_file_the_contract_may_no_longer_change_refuses_the_revert_before_a_human_is_asked(tmp_path: Path):
    bench = desk(tmp_path)
    bench.open(("ROOT_REPO:/src/new.py", "add"), operations=("WRITE",))
    bench.write("src/new.py", "new\n")
    refused = bench.ask(Revert())

    assert refused.reply_type.value == "D"
    assert text(bench, "new.py") == "new\n"
    assert bench.core.services.authority.store.all() == []


def big(bench: Desk) -> None:
    """src/a.py made, by hand, larger than the journal keeps."""
    (bench.repo / "src" / "a.py").write_bytes(b"#" * (16 * 1024 * 1024 + 1))


def test_a_file_whose_content_before_was_too_large_to_keep_cannot_be_reverted(tmp_path: Path):
    bench = desk(tmp_path)
    big(bench)
    bench.open(("ROOT_REPO:/src/a.py", "modify"))
    assert bench.write("src/a.py", "a = 2\n").reply_type.value == "S"
    shown = thaw(bench.ask(Revert(dry_run=True)).data["files"])
    refused = bench.ask(Revert())

    assert shown == [{"address": "ROOT_REPO:/src/a.py", "kind": "modify", "action": "restore"}]
    assert (refused.code, refused.data["problem"]) == (
        "CT-GATE-I-006",
        "ROOT_REPO:/src/a.py: its content before was too large to keep, so it cannot be restored",
    )
    assert bench.core.services.authority.store.all() == []


def test_each_file_a_revert_puts_back_is_journaled_as_the_revert_it_is(tmp_path: Path):
    bench = worked(tmp_path)
    asked = bench.ask(Revert())
    record = bench.core.services.authority.store.get(str(asked.data["approval_id"]))
    bench.approve(asked)
    saved_as = bench.ask(Revert()).data["saved_as"]
    reverted = [e for e in bench.core.services.journal.entries(None, root="ROOT_REPO") if e.kind == "revert"]
    again = thaw(bench.ask(Revert(dry_run=True)).data)

    assert record is not None
    assert record.kind == "revert"  # what `ck3raven approvals` shows the human
    assert asked.data["hint"].endswith("then revert again.")
    assert [(e.address, e.after, e.detail, e.state) for e in reverted] == [
        ("ROOT_REPO:/src/a.py", digest(b"a = 1\n"), saved_as, "done"),
        ("ROOT_REPO:/src/b.py", digest(b"b = 1\n"), saved_as, "done"),
        ("ROOT_REPO:/src/new.py", None, saved_as, "done"),
    ]
    assert (again["files"], again["changed_since"]) == ([], [])


def test_a_deletion_is_undone_only_by_a_contract_that_may_write_the_file_back(tmp_path: Path):
    bench = desk(tmp_path)
    bench.open(("ROOT_REPO:/src/a.py", "delete"), operations=("DELETE",))
    bench.delete("src/a.py")
    refused = bench.ask(Revert())

    assert refused.reply_type.value == "D"
    assert text(bench, "a.py") is None
    assert bench.core.services.authority.store.all() == []
