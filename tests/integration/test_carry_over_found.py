"""Carry-over found at open (law §13.3; SPEC §7) on real folders: what a repository shows changed, and outside
every repository what the journal says a contract that ended left, clustered by the contract whose work it
still is; work of a line of contracts still open, or closed S, is never carry-over; a file changed since
its contract left it is unattributed, with the ended contract that declared it."""

from pathlib import Path

from attrs import evolve

from domain.contracts.carried import carried_files
from domain.session import Session
from domain.vocabulary import RootCategory
from tests.integration.repo_work import Work, committed, section


def plain_root(tmp_path: Path) -> Work:
    """A folder in no repository: only the journal knows whose work a file is."""
    root = tmp_path / "plain"
    root.mkdir()
    for name in ("keep.txt", "old.txt", "gone.txt"):
        (root / name).write_text(f"{name}\n", encoding="utf-8")
    return Work(tmp_path, root)


def worked(work: Work, session: Session) -> str:
    """A contract of `session` that added x.txt, modified old.txt and deleted gone.txt."""
    contract_id = str(
        work.open(session, ("x.txt", "add"), ("old.txt", "modify"), ("gone.txt", "delete")).data[
            "contract_id"
        ]
    )
    work.write(session, "x.txt", "x\n")
    work.write(session, "old.txt", "new\n")
    work.call(session, "ck3_file", "delete", path="ROOT_REPO:/gone.txt")
    return contract_id


THREE = [
    {"address": "ROOT_REPO:/gone.txt", "kind": "delete", "opens": 1},
    {"address": "ROOT_REPO:/old.txt", "kind": "modify", "opens": 1},
    {"address": "ROOT_REPO:/x.txt", "kind": "add", "opens": 1},
]


def test_a_repositorys_uncommitted_work_is_unattributed_carry_over_at_the_next_open(tmp_path: Path):
    repo = tmp_path / "repo"
    repo.mkdir()
    committed(repo, {"a.txt": "a\n", "b.txt": "b\n", "sub/c.txt": "c\n"})
    (repo / "b.txt").write_text("changed\n", encoding="utf-8")
    (repo / "sub" / "new.txt").write_text("new\n", encoding="utf-8")
    (repo / "a.txt").unlink()
    work = Work(tmp_path, repo)

    found = section(work.open(work.session(), ("sub/c.txt", "modify")))

    assert found == {
        "severity": "informational",
        "clusters": {
            "unattributed": [
                {"address": "ROOT_REPO:/a.txt", "kind": "delete", "opens": 1},
                {"address": "ROOT_REPO:/b.txt", "kind": "modify", "opens": 1},
                {"address": "ROOT_REPO:/sub/new.txt", "kind": "add", "opens": 1},
            ]
        },
        "template": [
            {"path": "ROOT_REPO:/a.txt", "edit_kind": "delete"},
            {"path": "ROOT_REPO:/b.txt", "edit_kind": "modify"},
            {"path": "ROOT_REPO:/sub/new.txt", "edit_kind": "add"},
        ],
        "count": 3,
    }


def test_a_secret_file_the_user_changed_is_never_named_as_carry_over(tmp_path: Path):
    repo = tmp_path / "repo"
    repo.mkdir()
    committed(repo, {"a.txt": "a\n", ".env": "KEY=1\n"})
    (repo / ".env").write_text("KEY=2\n", encoding="utf-8")
    (repo / "a.txt").write_text("changed\n", encoding="utf-8")
    work = Work(tmp_path, repo)

    found = section(work.open(work.session(), ("b.txt", "add")))

    assert found is not None
    assert found["clusters"] == {
        "unattributed": [{"address": "ROOT_REPO:/a.txt", "kind": "modify", "opens": 1}]
    }


def test_outside_every_repository_a_cancelled_contracts_work_is_carried_over_as_its_cluster(tmp_path: Path):
    work = plain_root(tmp_path)
    session = work.session("a")
    contract_id = worked(work, session)
    work.call(session, "ck3_contract", "cancel")

    found = section(work.open(work.session("b"), ("keep.txt", "modify")))

    assert found is not None
    assert found["clusters"] == {contract_id: THREE}


def test_work_a_contract_closed_s_is_never_carry_over(tmp_path: Path):
    work = plain_root(tmp_path)
    session = work.session("a")
    worked(work, session)
    assert work.close(session).code == "CT-GATE-S-002"

    assert section(work.open(work.session("b"), ("keep.txt", "modify"))) is None


def test_work_of_another_sessions_live_contract_is_its_own_until_the_contract_expires(tmp_path: Path):
    work = plain_root(tmp_path)
    contract_id = worked(work, work.session("a"))
    other = work.session("b")

    live = section(work.open(other, ("keep.txt", "modify")))
    work.call(other, "ck3_contract", "cancel")
    work.clock.advance(hours=2, minutes=1)  # a's contract is still open in the store, past its expiry
    expired = section(work.open(work.session("c"), ("keep.txt", "modify")))

    assert live is None
    assert expired is not None
    assert expired["clusters"] == {contract_id: THREE}


def test_a_renewed_line_of_work_is_judged_by_its_newest_contract(tmp_path: Path):
    work = plain_root(tmp_path)
    session = work.session("a")
    first = worked(work, session)
    work.clock.advance(hours=2, minutes=1)
    renewed = work.call(session, "ck3_contract", "renew", contract_id=first, ttl_minutes=240)
    assert renewed.code == "CT-GATE-S-006"
    other = work.session("b")

    while_renewed = section(work.open(other, ("keep.txt", "modify")))
    work.call(other, "ck3_contract", "cancel")
    work.call(session, "ck3_contract", "cancel")
    once_cancelled = section(work.open(work.session("c"), ("keep.txt", "modify")))

    assert while_renewed is None
    assert once_cancelled is not None
    assert once_cancelled["clusters"] == {first: [{**row, "opens": 1} for row in THREE]}


def test_a_file_changed_since_its_contract_left_it_is_unattributed_naming_the_contract_that_declared_it(
    tmp_path: Path,
):
    work = plain_root(tmp_path)
    session = work.session("a")
    contract_id = worked(work, session)
    work.call(session, "ck3_contract", "cancel")
    (work.root / "x.txt").write_text("the user's own\n", encoding="utf-8")
    (work.root / "gone.txt").write_text("back again\n", encoding="utf-8")

    found = section(work.open(work.session("b"), ("keep.txt", "modify")))

    assert found is not None
    assert found["clusters"] == {
        contract_id: [{"address": "ROOT_REPO:/old.txt", "kind": "modify", "opens": 1}],
        "unattributed": [
            {"address": "ROOT_REPO:/gone.txt", "kind": "delete", "opens": 1, "declared_by": contract_id},
            {"address": "ROOT_REPO:/x.txt", "kind": "add", "opens": 1, "declared_by": contract_id},
        ],
    }


def test_a_renewal_loop_written_into_the_store_ends_the_search_for_the_newest_contract(tmp_path: Path):
    work = plain_root(tmp_path)
    session = work.session("a")
    contract_id = worked(work, session)
    work.call(session, "ck3_contract", "cancel")
    record = work.state.contracts.get(contract_id)
    assert record is not None
    work.state.data["contracts"][contract_id] = evolve(record, renewed_from=contract_id)  # it renews itself

    found = section(work.open(work.session("b"), ("keep.txt", "modify")))

    assert found is not None
    assert found["clusters"] == {contract_id: THREE}


def test_carry_over_without_what_the_repositories_show_finds_it_by_itself(tmp_path: Path):
    repo = tmp_path / "repo"
    repo.mkdir()
    committed(repo, {"a.txt": "a\n", ".gitignore": "mod/\n"})
    committed(repo / "mod", {"b.txt": "b\n"})  # a repository inside the root's, which ignores it
    (repo / "a.txt").write_text("changed\n", encoding="utf-8")
    (repo / "mod" / "b.txt").write_text("changed\n", encoding="utf-8")
    work = Work(tmp_path, repo)
    session = work.session()

    found = carried_files(session, work.core.services, RootCategory.ROOT_REPO)

    assert [(f.address, f.kind, f.origin) for f in found] == [
        ("ROOT_REPO:/a.txt", "modify", None),
        ("ROOT_REPO:/mod/b.txt", "modify", None),
    ]


def test_work_a_repository_has_committed_since_is_not_carried_over_though_the_journal_holds_it(
    tmp_path: Path,
):
    root = tmp_path / "root"
    root.mkdir()
    committed(root, {"a.txt": "a\n"})
    (root / "sub").mkdir()
    committed(root / "sub", {"b.txt": "b\n"})
    work = Work(tmp_path, root)
    session = work.session("a")
    work.open(session, ("a.txt", "modify"), ("sub/b.txt", "modify"))
    work.write(session, "a.txt", "a2\n")
    work.write(session, "sub/b.txt", "b2\n")
    work.call(session, "ck3_contract", "cancel")
    committed(root, {"a.txt": "a2\n"})
    committed(root / "sub", {"b.txt": "b2\n"})

    assert section(work.open(work.session("b"), ("c.txt", "add"))) is None


def test_a_file_changed_after_a_contract_closed_s_is_no_longer_declared_by_it(tmp_path: Path):
    repo = tmp_path / "repo"
    repo.mkdir()
    committed(repo, {"a.txt": "a\n"})
    work = Work(tmp_path, repo)
    session = work.session("a")
    work.open(session, ("a.txt", "modify"))
    work.write(session, "a.txt", "a2\n")
    assert work.close(session).code == "CT-GATE-S-002"
    (repo / "a.txt").write_text("the user's own\n", encoding="utf-8")

    found = section(work.open(work.session("b"), ("c.txt", "add")))

    assert found is not None
    assert found["clusters"] == {
        "unattributed": [{"address": "ROOT_REPO:/a.txt", "kind": "modify", "opens": 1}]
    }
