"""A mod that is a git repository with a checked-out submodule (SPEC §7): the submodule is what it is. An
untouched one is no change and no carry-over, however often contracts open; its own working-tree changes
are reconciled like those of any repository in the scope, listed and never an Error; bytes put back are
no change; a submodule whose commit moved is one listed change."""

from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client

from app.bootstrap import build
from app.config import Settings
from domain.vocabulary import Mode, RootCategory
from tests.git_cli import git, with_submodule

pytestmark = pytest.mark.anyio
R = RootCategory
MOD = "ROOT_USER_DOCS:/mod/GitMod"
SUB = f"{MOD}/sub"


@pytest.fixture
def documents(tmp_path: Path) -> Settings:
    """A documents folder whose mod `GitMod` is a repository holding a checked-out submodule `sub`."""
    mod = tmp_path / "documents" / "mod" / "GitMod"
    with_submodule(tmp_path, mod)
    assert git(mod, "status", "--porcelain") == ""
    roots = {R.ROOT_USER_DOCS: tmp_path / "documents"}
    return Settings("t", roots, R.ROOT_USER_DOCS, Mode.CK3RAVEN_DEV, state_dir=tmp_path / "state")


def mod_folder(settings: Settings) -> Path:
    return settings.roots[R.ROOT_USER_DOCS] / "mod" / "GitMod"


async def call(client: Client, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    result = await client.call_tool(tool, args, raise_on_error=False)
    return dict(result.structured_content)


def contract(targets: list[tuple[str, str]]) -> dict[str, Any]:
    return {
        "command": "open",
        "root_category": "ROOT_USER_DOCS",
        "intent": "Work on a mod",
        "work_declaration": "The declared files only",
        "operations": ["WRITE", "DELETE"],
        "targets": [{"path": address, "edit_kind": kind} for address, kind in targets],
    }


def listed(reply: dict[str, Any]) -> set[tuple[str, str]]:
    return {(c["address"], c["kind"]) for c in reply["data"]["undeclared"]}


async def test_an_untouched_submodule_is_no_carry_over_however_often_contracts_open(documents: Settings):
    async with Client(build(documents)) as client:
        opened = []
        for _ in range(4):
            opened.append(await call(client, "ck3_contract", contract([(f"{MOD}/a.txt", "modify")])))
            await call(client, "ck3_contract", {"command": "cancel"})

    assert [reply["code"] for reply in opened] == ["CT-GATE-S-001"] * 4
    assert [reply["data"]["carry_over"] for reply in opened] == [None] * 4


async def test_an_untouched_submodule_is_no_change_at_close(documents: Settings):
    async with Client(build(documents)) as client:
        await call(client, "ck3_contract", contract([(f"{MOD}/a.txt", "modify")]))
        await call(client, "ck3_file", {"command": "write", "path": f"{MOD}/a.txt", "content": "changed\n"})
        closed = await call(client, "ck3_contract", {"command": "close"})

    assert closed["code"] == "CT-GATE-S-002", closed
    assert [c["address"] for c in closed["data"]["changes"]] == [f"{MOD}/a.txt"]


async def test_an_undeclared_edit_inside_a_submodule_is_listed_not_an_error(documents: Settings):
    async with Client(build(documents)) as client:
        await call(client, "ck3_contract", contract([(f"{MOD}/a.txt", "modify")]))
        (mod_folder(documents) / "sub" / "u.txt").write_text("edited by a human\n", encoding="utf-8")
        closed = await call(client, "ck3_contract", {"command": "close"})

    assert closed["code"] == "CT-GATE-I-007", closed
    assert listed(closed) == {(f"{SUB}/u.txt", "modify")}


async def test_an_edit_inside_a_submodule_closes_once_declared(documents: Settings):
    async with Client(build(documents)) as client:
        await call(client, "ck3_contract", contract([(f"{SUB}/u.txt", "modify")]))
        (mod_folder(documents) / "sub" / "u.txt").write_text("edited by a human\n", encoding="utf-8")
        closed = await call(client, "ck3_contract", {"command": "close"})

    assert closed["code"] == "CT-GATE-S-002", closed
    assert {(c["address"], c["kind"]) for c in closed["data"]["changes"]} == {(f"{SUB}/u.txt", "modify")}


async def test_the_agents_write_inside_a_submodule_closes_once_declared(documents: Settings):
    async with Client(build(documents)) as client:
        await call(client, "ck3_contract", contract([(f"{SUB}/u.txt", "modify"), (f"{SUB}/w.txt", "add")]))
        await call(client, "ck3_file", {"command": "write", "path": f"{SUB}/u.txt", "content": "agent\n"})
        await call(client, "ck3_file", {"command": "write", "path": f"{SUB}/w.txt", "content": "new\n"})
        closed = await call(client, "ck3_contract", {"command": "close"})

    assert closed["code"] == "CT-GATE-S-002", closed
    assert {(c["address"], c["kind"], c["source"]) for c in closed["data"]["changes"]} == {
        (f"{SUB}/u.txt", "modify", "journal"),
        (f"{SUB}/w.txt", "add", "journal"),
    }


async def test_a_submodules_file_put_back_byte_for_byte_is_no_change(documents: Settings):
    target = mod_folder(documents) / "sub" / "u.txt"
    async with Client(build(documents)) as client:
        await call(client, "ck3_contract", contract([(f"{MOD}/a.txt", "modify")]))
        target.write_text("edited by a human\n", encoding="utf-8")
        target.write_text("upstream\n", encoding="utf-8")
        closed = await call(client, "ck3_contract", {"command": "close"})

    assert closed["code"] == "CT-GATE-S-002", closed
    assert closed["data"]["changes"] == []


async def test_work_left_inside_a_submodule_is_carry_over_of_that_file_alone(documents: Settings):
    (mod_folder(documents) / "sub" / "u.txt").write_text("left by a human\n", encoding="utf-8")

    async with Client(build(documents)) as client:
        opened = await call(client, "ck3_contract", contract([(f"{MOD}/a.txt", "modify")]))

    assert opened["code"] == "CT-GATE-S-001", opened
    carried = opened["data"]["carry_over"]
    assert [(f["address"], f["kind"]) for rows in carried["clusters"].values() for f in rows] == [
        (f"{SUB}/u.txt", "modify")
    ]


async def test_a_submodule_whose_commit_moved_is_one_listed_change(documents: Settings):
    sub = mod_folder(documents) / "sub"
    async with Client(build(documents)) as client:
        await call(client, "ck3_contract", contract([(f"{MOD}/a.txt", "modify")]))
        (sub / "u.txt").write_text("moved upstream\n", encoding="utf-8")
        (sub / "v.txt").unlink()
        git(sub, "commit", "-q", "-am", "Move")
        closed = await call(client, "ck3_contract", {"command": "close"})

    assert closed["code"] == "CT-GATE-I-007", closed
    assert closed["data"]["undeclared"] == [
        {"address": SUB, "kind": "modify", "source": "repository", "outside": True}
    ]


async def test_a_submodule_whose_commit_moved_closes_once_declared(documents: Settings):
    sub = mod_folder(documents) / "sub"
    async with Client(build(documents)) as client:
        opened = await call(client, "ck3_contract", contract([(SUB, "modify")]))
        (sub / "u.txt").write_text("moved upstream\n", encoding="utf-8")
        git(sub, "commit", "-q", "-am", "Move")
        closed = await call(client, "ck3_contract", {"command": "close"})

    assert opened["code"] == "CT-GATE-S-001", opened
    assert closed["code"] == "CT-GATE-S-002", closed
    assert [(c["address"], c["kind"]) for c in closed["data"]["changes"]] == [(SUB, "modify")]


async def test_the_agents_write_of_a_submodule_files_own_bytes_is_no_change(documents: Settings):
    async with Client(build(documents)) as client:
        await call(client, "ck3_contract", contract([(f"{MOD}/a.txt", "modify")]))
        await call(client, "ck3_file", {"command": "write", "path": f"{SUB}/u.txt", "content": "upstream\n"})
        closed = await call(client, "ck3_contract", {"command": "close"})

    assert closed["code"] == "CT-GATE-S-002", closed
    assert closed["data"]["changes"] == []
