"""`stash_carry_over` (law §13.5): one cluster of carry-over set aside with a human's approval of exactly
that cluster: every file saved first (a deletion too), then put back as it was before the contract's work,
or as the repository has it at HEAD when no contract's journal knows it; the files' counters start over."""

import json
from pathlib import Path

from attrs import evolve

from domain.contracts.baseline import digest
from domain.replies.frozen import thaw
from domain.use_cases.contract_work import Cancel, StashCarryOver
from ports.errors import Unavailable
from tests.gates import Desk, desk, nested_repository, worked

CHANGED = ["ROOT_REPO:/src/a.py", "ROOT_REPO:/src/b.py", "ROOT_REPO:/src/new.py"]


def cancelled(base: Path) -> tuple[Desk, str]:
    """A desk whose contract did the work of `worked` and was cancelled: its work is carry-over."""
    bench = worked(base)
    contract_id = str(bench.session.contract_id)
    assert bench.ask(Cancel()).code == "CT-GATE-S-003"
    return bench, contract_id


def text(bench: Desk, name: str) -> str | None:
    path = bench.repo / "src" / name
    return path.read_text(encoding="utf-8") if path.exists() else None


def test_a_stash_waits_for_a_human_shown_every_file_and_changes_nothing_until_then(tmp_path: Path):
    bench, contract_id = cancelled(tmp_path)
    asked = bench.ask(StashCarryOver("ROOT_REPO", contract_id))
    data = thaw(asked.data)

    assert (asked.code, data["state"], data["targets"]) == ("CT-GATE-I-005", "pending", CHANGED)
    assert data["approval_id"] in data["hint"]
    assert bench.core.approval_summary(data["approval_id"]) == (
        "Stash (save, then put back as before) 3 carried-over files: " + ", ".join(CHANGED)
    )
    assert (text(bench, "a.py"), text(bench, "b.py"), text(bench, "new.py")) == ("a = 2\n", None, "new\n")


def test_an_approved_stash_saves_each_file_then_puts_back_what_the_journal_kept(tmp_path: Path):
    bench, contract_id = cancelled(tmp_path)
    services = bench.core.services
    assert bench.open(("ROOT_REPO:/src/other.py", "add")).code == "CT-GATE-S-001"  # counts the carry-over
    bench.ask(Cancel())
    assert set(services.ledger.load("ROOT_REPO")) == set(CHANGED)
    bench.approve(bench.ask(StashCarryOver("ROOT_REPO", contract_id)))
    stashed = bench.ask(StashCarryOver("ROOT_REPO", contract_id))

    assert (stashed.code, thaw(stashed.data["files"])) == ("CT-GATE-S-007", CHANGED)
    assert (text(bench, "a.py"), text(bench, "b.py"), text(bench, "new.py")) == ("a = 1\n", "b = 1\n", None)
    saved = json.loads(services.evidence.document("stash", str(stashed.data["stash_id"])) or "{}")
    assert saved == {
        "root": "ROOT_REPO",
        "files": [
            {"address": "ROOT_REPO:/src/a.py", "kind": "modify", "content": "YSA9IDIK"},
            {"address": "ROOT_REPO:/src/b.py", "kind": "delete", "content": None},
            {"address": "ROOT_REPO:/src/new.py", "kind": "add", "content": "bmV3Cg=="},
        ],
    }
    assert services.ledger.load("ROOT_REPO") == {}


def test_a_declined_stash_changes_nothing(tmp_path: Path):
    bench, contract_id = cancelled(tmp_path)
    bench.approve(bench.ask(StashCarryOver("ROOT_REPO", contract_id)), approve=False)
    declined = bench.ask(StashCarryOver("ROOT_REPO", contract_id))

    assert (declined.code, declined.data["state"]) == ("CT-GATE-I-005", "declined")
    assert text(bench, "new.py") == "new\n"


def test_work_made_through_no_contract_is_stashed_back_to_head_only_as_the_unattributed_cluster(
    tmp_path: Path,
):
    bench = desk(tmp_path)
    (bench.repo / "src" / "a.py").write_text("a = 9, by hand\n", encoding="utf-8")
    (bench.repo / "src" / "stray.py").write_text("stray\n", encoding="utf-8")
    someone = bench.ask(StashCarryOver("ROOT_REPO", "ct-nobody"))
    asked = bench.ask(StashCarryOver("ROOT_REPO", None))
    bench.approve(asked)
    stashed = bench.ask(StashCarryOver("ROOT_REPO", None))

    assert (someone.code, thaw(someone.data)) == (
        "CT-GATE-I-006",
        {"contract_id": "ct-nobody", "problem": "no carry-over to stash"},
    )
    assert thaw(asked.data["targets"]) == ["ROOT_REPO:/src/a.py", "ROOT_REPO:/src/stray.py"]
    assert stashed.code == "CT-GATE-S-007"
    assert (text(bench, "a.py"), text(bench, "stray.py")) == ("a = 1\n", None)


def test_stashing_in_a_root_the_session_does_not_see_is_invalid(tmp_path: Path):
    refused = desk(tmp_path).ask(StashCarryOver("ROOT_STEAM", None))

    assert (refused.code, thaw(refused.data)) == (
        "WA-RES-I-009",
        {"roots": ["ROOT_CK3RAVEN_DATA", "ROOT_GAME", "ROOT_REPO"]},
    )


def test_a_cluster_whose_file_cannot_be_saved_is_refused_before_a_human_is_asked(tmp_path: Path):
    bench = desk(tmp_path)
    (bench.repo / "src" / "stray.py").write_text("stray\n", encoding="utf-8")
    (bench.repo / "twin.py").hardlink_to(bench.repo / "src" / "stray.py")  # two links: never read
    refused = bench.ask(StashCarryOver("ROOT_REPO", "unattributed"))

    assert (refused.code, thaw(refused.data)) == (
        "CT-GATE-I-006",
        {
            "contract_id": "unattributed",
            "problem": "ROOT_REPO:/src/stray.py cannot be saved before it is restored "
            "(too large, or not a regular file)",
        },
    )
    assert bench.core.services.authority.store.all() == []


def test_a_cluster_too_long_to_show_a_person_is_refused_before_one_is_asked(tmp_path: Path):
    bench = desk(tmp_path)
    for n in range(40):
        (bench.repo / "src" / f"a_file_with_a_rather_long_name_{n:03}.py").write_text("x\n", encoding="utf-8")
    refused = bench.ask(StashCarryOver("ROOT_REPO", None))

    assert (refused.code, refused.data["problem"]) == (
        "CT-GATE-I-006",
        "too many files to show a person at once",
    )
    assert bench.core.services.authority.store.all() == []


def test_a_cluster_whose_content_before_nothing_kept_is_refused(tmp_path: Path):
    bench = desk(tmp_path)
    (bench.repo / "src" / "a.py").write_bytes(b"#" * (16 * 1024 * 1024 + 1))  # larger than the journal keeps
    contract_id = str(bench.open(("ROOT_REPO:/src/a.py", "modify")).data["contract_id"])
    bench.write("src/a.py", "a = 2\n")
    bench.ask(Cancel())
    refused = bench.ask(StashCarryOver("ROOT_REPO", contract_id))

    assert (refused.code, refused.data["problem"]) == (
        "CT-GATE-I-006",
        "ROOT_REPO:/src/a.py cannot be saved before it is restored (too large, or not a regular file)",
    )


def test_a_cluster_whose_kept_content_is_gone_from_the_store_is_refused_not_removed(tmp_path: Path):
    bench, contract_id = cancelled(tmp_path)
    rows = bench.state.data["journal"]
    rows[:] = [(entry, None) for entry, _ in rows]  # the content the journal kept, lost from the store
    refused = bench.ask(StashCarryOver("ROOT_REPO", contract_id))

    assert (refused.code, refused.data["problem"]) == (
        "CT-GATE-I-006",
        "ROOT_REPO:/src/a.py cannot be saved before it is restored (too large, or not a regular file)",
    )
    assert text(bench, "a.py") == "a = 2\n"


def test_stashing_one_cluster_leaves_the_counters_of_the_others(tmp_path: Path):
    bench, contract_id = cancelled(tmp_path)
    (bench.repo / "src" / "stray.py").write_text("by hand\n", encoding="utf-8")
    assert bench.open(("ROOT_REPO:/src/other.py", "add")).code == "CT-GATE-S-001"
    bench.ask(Cancel())
    bench.approve(bench.ask(StashCarryOver("ROOT_REPO", contract_id)))
    assert bench.ask(StashCarryOver("ROOT_REPO", contract_id)).code == "CT-GATE-S-007"

    assert bench.core.services.ledger.load("ROOT_REPO") == {"ROOT_REPO:/src/stray.py": 1}


def test_a_file_changed_before_the_contract_is_stashed_back_to_what_the_contract_found_not_to_head(
    tmp_path: Path,
):
    bench = desk(tmp_path)
    (bench.repo / "src" / "a.py").write_text("a = 5, uncommitted\n", encoding="utf-8")
    contract_id = str(bench.open(("ROOT_REPO:/src/a.py", "modify")).data["contract_id"])
    bench.write("src/a.py", "a = 6\n")
    bench.ask(Cancel())
    bench.approve(bench.ask(StashCarryOver("ROOT_REPO", contract_id)))
    stashed = bench.ask(StashCarryOver("ROOT_REPO", contract_id))

    assert (stashed.code, thaw(stashed.data["files"])) == ("CT-GATE-S-007", ["ROOT_REPO:/src/a.py"])
    assert text(bench, "a.py") == "a = 5, uncommitted\n"


def test_a_journal_that_cannot_be_read_makes_the_stash_an_error(tmp_path: Path):
    bench, contract_id = cancelled(tmp_path)

    def down(*_: object, **__: object) -> object:
        raise Unavailable("injected: the journal cannot be read")

    bench.core.services.journal.entries = down  # type: ignore[method-assign]
    failed = bench.ask(StashCarryOver("ROOT_REPO", contract_id))

    assert (failed.code, thaw(failed.data)) == ("CT-GATE-E-001", {"root": "ROOT_REPO"})
    assert text(bench, "new.py") == "new\n"


def test_a_stash_undoes_only_the_chosen_contracts_changes_to_a_file(tmp_path: Path):
    bench = desk(tmp_path)
    bench.open(("ROOT_REPO:/src/a.py", "modify"))
    bench.write("src/a.py", "a = 2, the first contract's\n")
    bench.ask(Cancel())
    second = str(bench.open(("ROOT_REPO:/src/a.py", "modify")).data["contract_id"])
    bench.write("src/a.py", "a = 3, the second contract's\n")
    bench.ask(Cancel())
    bench.approve(bench.ask(StashCarryOver("ROOT_REPO", second)))
    stashed = bench.ask(StashCarryOver("ROOT_REPO", second))

    assert stashed.code == "CT-GATE-S-007"
    assert text(bench, "a.py") == "a = 2, the first contract's\n"


def test_a_human_approving_one_cluster_approves_no_other_and_sees_it_named_a_stash(tmp_path: Path):
    bench, contract_id = cancelled(tmp_path)
    (bench.repo / "src" / "stray.py").write_text("by hand\n", encoding="utf-8")
    asked = bench.ask(StashCarryOver("ROOT_REPO", contract_id))
    bench.approve(asked)
    other = bench.ask(StashCarryOver("ROOT_REPO", None))
    record = bench.core.services.authority.store.get(str(asked.data["approval_id"]))

    assert record is not None
    assert record.kind == "stash"  # what `ck3raven approvals` shows the human
    assert (other.code, other.data["state"], other.data["targets"]) == (
        "CT-GATE-I-005",
        "pending",
        ("ROOT_REPO:/src/stray.py",),
    )
    assert other.data["hint"].endswith("then stash again.")
    assert text(bench, "stray.py") == "by hand\n"


def test_a_file_of_a_nested_repository_is_stashed_back_to_that_repositorys_head(tmp_path: Path):
    bench = desk(tmp_path)
    lib = nested_repository(bench)
    (lib / "x.py").write_text("x = 2, by hand\n", encoding="utf-8")
    bench.approve(bench.ask(StashCarryOver("ROOT_REPO", None)))
    stashed = bench.ask(StashCarryOver("ROOT_REPO", None))

    assert (stashed.code, thaw(stashed.data["files"])) == ("CT-GATE-S-007", ["ROOT_REPO:/vendor/lib/x.py"])
    assert (lib / "x.py").read_text(encoding="utf-8") == "x = 1\n"


def test_a_change_recorded_but_never_seen_to_land_is_settled_by_the_files_content(tmp_path: Path):
    bench, contract_id = cancelled(tmp_path)
    rows = bench.state.data["journal"]
    rows[:] = [(evolve(entry, state="pending"), content) for entry, content in rows]  # the server died
    bench.approve(bench.ask(StashCarryOver("ROOT_REPO", contract_id)))
    stashed = bench.ask(StashCarryOver("ROOT_REPO", contract_id))

    assert (stashed.code, thaw(stashed.data["files"])) == ("CT-GATE-S-007", CHANGED)
    assert (text(bench, "a.py"), text(bench, "b.py"), text(bench, "new.py")) == ("a = 1\n", "b = 1\n", None)


def test_each_file_a_stash_puts_back_is_journaled_as_the_stash_it_is(tmp_path: Path):
    bench, contract_id = cancelled(tmp_path)
    bench.approve(bench.ask(StashCarryOver("ROOT_REPO", contract_id)))
    stash_id = bench.ask(StashCarryOver("ROOT_REPO", contract_id)).data["stash_id"]
    stashed = [e for e in bench.core.services.journal.entries(None, root="ROOT_REPO") if e.kind == "stash"]

    assert [(e.address, e.after, e.detail, e.contract_id) for e in stashed] == [
        ("ROOT_REPO:/src/a.py", digest(b"a = 1\n"), stash_id, None),
        ("ROOT_REPO:/src/b.py", digest(b"b = 1\n"), stash_id, None),
        ("ROOT_REPO:/src/new.py", None, stash_id, None),
    ]


def test_a_file_no_repository_holds_and_no_journal_knows_as_it_is_cannot_be_stashed(tmp_path: Path):
    bench = desk(tmp_path)
    config = bench.repo.parent / "data" / "config"
    config.mkdir()
    target = ("ROOT_CK3RAVEN_DATA:/config/x.txt", "add")
    bench.open(target, root_category="ROOT_CK3RAVEN_DATA")
    assert bench.write("ROOT_CK3RAVEN_DATA:/config/x.txt", "x\n").reply_type.value == "S"
    bench.ask(Cancel())
    (config / "x.txt").write_text("x, edited by hand\n", encoding="utf-8")  # no longer the contract's
    refused = bench.ask(StashCarryOver("ROOT_CK3RAVEN_DATA", None))

    assert (refused.code, refused.data["problem"]) == (
        "CT-GATE-I-006",
        (
            "ROOT_CK3RAVEN_DATA:/config/x.txt cannot be saved before it is restored "
            "(too large, or not a regular file)"
        ),
    )
    assert (config / "x.txt").read_text(encoding="utf-8") == "x, edited by hand\n"
