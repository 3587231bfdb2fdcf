"""Whose work carry-over is (law §13.3) where a repository shows every change: a file as an open line of
work or a contract that closed S left it is never carry-over, whatever the repository shows; a pending
entry is settled before it is judged; work in another root is that root's; the LXE file the server wrote
is a human's approval, not work."""

from pathlib import Path

from app.config import Settings
from domain.contracts import journal
from domain.vocabulary import Mode, RootCategory
from tests.integration.repo_work import Work, committed, section


def repository(tmp_path: Path) -> Work:
    repo = tmp_path / "repo"
    repo.mkdir()
    committed(repo, {"a.txt": "a\n", "b.txt": "b\n", "z.txt": "z\n"})
    return Work(tmp_path, repo)


def test_in_a_repository_the_work_of_an_open_line_or_of_a_contract_closed_s_is_not_carried_over(
    tmp_path: Path,
):
    work = repository(tmp_path)
    first, second = work.session("a"), work.session("b")
    work.open(first, ("a.txt", "modify"))
    work.write(first, "a.txt", "a2\n")
    (work.root / "z.txt").write_text("the user's\n", encoding="utf-8")  # sorts after a.txt

    while_open = section(work.open(second, ("c.txt", "add")))
    work.call(second, "ck3_contract", "cancel")
    (work.root / "z.txt").write_text("z\n", encoding="utf-8")
    assert work.close(first).code == "CT-GATE-S-002"
    once_closed = section(work.open(second, ("c.txt", "add")))

    assert while_open is not None
    assert while_open["clusters"] == {
        "unattributed": [{"address": "ROOT_REPO:/z.txt", "kind": "modify", "opens": 1}]
    }
    assert once_closed is None


def test_a_tracked_file_a_human_deleted_after_a_contract_changed_it_is_carried_over_as_deleted(
    tmp_path: Path,
):
    work = repository(tmp_path)
    session = work.session("a")
    contract_id = work.open(session, ("b.txt", "modify")).data["contract_id"]
    work.write(session, "b.txt", "b2\n")
    work.call(session, "ck3_contract", "cancel")
    (work.root / "b.txt").unlink()

    found = section(work.open(work.session("b"), ("c.txt", "add")))

    assert found is not None
    assert found["clusters"] == {
        "unattributed": [
            {"address": "ROOT_REPO:/b.txt", "kind": "delete", "opens": 1, "declared_by": contract_id}
        ]
    }


def test_a_change_left_pending_is_settled_by_the_files_digest_before_it_is_carried_over(tmp_path: Path):
    root = tmp_path / "plain"
    root.mkdir()
    work = Work(tmp_path, root)
    session = work.session("a")
    contract_id = work.open(session, ("x.txt", "add")).data["contract_id"]
    ref = session.world.resolve("ROOT_REPO:/x.txt", session.home, must_exist=False)[1]
    journal.begin(
        session, work.core.services, ref, "write", before=None, after=b"x\n"
    )  # then the server died
    (root / "x.txt").write_text("x\n", encoding="utf-8")
    work.call(session, "ck3_contract", "cancel")

    found = section(work.open(work.session("b"), ("y.txt", "add")))

    assert found is not None
    assert found["clusters"] == {contract_id: [{"address": "ROOT_REPO:/x.txt", "kind": "add", "opens": 1}]}
    assert [e.state for e in work.state.journal.entries([contract_id])] == ["done"]


def test_outside_the_roots_repositories_work_beside_one_is_found_by_the_journal(tmp_path: Path):
    root = tmp_path / "plain"
    root.mkdir()
    committed(root / "sub", {"s.txt": "s\n"})
    work = Work(tmp_path, root)
    session = work.session("a")
    contract_id = work.open(session, ("y.txt", "add")).data["contract_id"]
    work.write(session, "y.txt", "y\n")
    work.call(session, "ck3_contract", "cancel")

    found = section(work.open(work.session("b"), ("w.txt", "add")))

    assert found is not None
    assert found["clusters"] == {contract_id: [{"address": "ROOT_REPO:/y.txt", "kind": "add", "opens": 1}]}


def test_work_in_another_root_is_carried_over_there_only(tmp_path: Path):
    repo, docs = tmp_path / "repo", tmp_path / "documents"
    (docs / "mod").mkdir(parents=True)
    repo.mkdir()
    roots = {RootCategory.ROOT_REPO: repo, RootCategory.ROOT_USER_DOCS: docs}
    settings = Settings("t", roots, RootCategory.ROOT_REPO, Mode.CK3RAVEN_DEV, state_dir=tmp_path / "state")
    work = Work(tmp_path, repo, settings=settings)
    session = work.session("a")
    contract_id = work.open(session, ("mod/x.txt", "add"), root="ROOT_USER_DOCS").data["contract_id"]
    work.call(session, "ck3_file", "write", path="ROOT_USER_DOCS:/mod/x.txt", content="x\n")
    work.call(session, "ck3_contract", "cancel")
    other = work.session("b")

    in_repo = section(work.open(other, ("y.txt", "add")))
    work.call(other, "ck3_contract", "cancel")
    in_docs = section(work.open(other, ("mod/y.txt", "add"), root="ROOT_USER_DOCS"))

    assert in_repo is None
    assert in_docs is not None
    assert in_docs["clusters"] == {
        contract_id: [{"address": "ROOT_USER_DOCS:/mod/x.txt", "kind": "add", "opens": 1}]
    }


def test_the_lxe_file_the_server_wrote_is_never_carried_over(tmp_path: Path):
    repo = tmp_path / "repo"
    repo.mkdir()
    committed(repo, {"a.txt": "a\n"})
    work = Work(tmp_path, repo)
    session = work.session("a")
    work.open(session, ("src/lint.py", "add"))
    work.write(session, "src/lint.py", "import os\n")
    lxe = {"rules": ["F401"], "paths": ["src/lint.py"], "max_violations": 1, "reason": "kept for later"}
    work.core.decide_approval(work.call(session, "ck3_token", "lxe", **lxe).data["approval_id"], approve=True)
    assert work.call(session, "ck3_token", "lxe", **lxe).code == "CT-GATE-S-011"
    work.call(session, "ck3_contract", "cancel")

    found = section(work.open(work.session("b"), ("c.txt", "add")))

    assert found is not None
    assert [row["address"] for rows in found["clusters"].values() for row in rows] == [
        "ROOT_REPO:/src/lint.py"
    ]


def test_a_carried_file_whose_name_has_a_space_is_named_by_its_own_address(tmp_path: Path):
    root = tmp_path / "plain"
    root.mkdir()
    work = Work(tmp_path, root)
    session = work.session("a")
    contract_id = work.open(session, ("my notes.txt", "add")).data["contract_id"]
    work.write(session, "my notes.txt", "n\n")
    work.call(session, "ck3_contract", "cancel")

    found = section(work.open(work.session("b"), ("y.txt", "add")))

    assert found is not None
    assert found["clusters"] == {
        contract_id: [{"address": "ROOT_REPO:/my notes.txt", "kind": "add", "opens": 1}]
    }


def test_work_a_nested_repository_has_committed_is_not_carried_over_in_a_root_of_no_repository(
    tmp_path: Path,
):
    root = tmp_path / "plain"
    root.mkdir()
    committed(root / "sub", {"s.txt": "s\n"})
    work = Work(tmp_path, root)
    session = work.session("a")
    work.open(session, ("sub/s.txt", "modify"))
    work.write(session, "sub/s.txt", "s2\n")
    work.call(session, "ck3_contract", "cancel")
    committed(root / "sub", {"s.txt": "s2\n"})

    assert section(work.open(work.session("b"), ("w.txt", "add"))) is None
