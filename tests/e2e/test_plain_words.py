"""Replies say what happened in plain, true words: `truncated` only when something was cut, the files an
index has not read yet, "not a local mod" for a mod that is in the playset but not local, nouns in number,
and tables of the tools that name every command."""

import re
from pathlib import Path

import pytest
from dulwich import porcelain
from fastmcp import Client

from app.bootstrap import build
from app.config import Settings
from app.playset_import import import_playsets
from domain.use_cases.commands import COMMANDS
from domain.vocabulary import RootCategory
from tests.e2e.test_reply_budget_sweep import _big_playset
from tests.worlds import sample_world_on_disk

pytestmark = pytest.mark.anyio
CHECKOUT = Path(__file__).resolve().parents[2]


async def test_git_log_says_truncated_only_when_older_commits_were_left_out(git_settings: Settings):
    repo = git_settings.roots[RootCategory.ROOT_REPO]
    (repo / "b.txt").write_text("b\n", encoding="utf-8")
    porcelain.add(str(repo), paths=[str(repo / "b.txt")])
    porcelain.commit(str(repo), message=b"second", author=b"T <t@x>", committer=b"T <t@x>")
    async with Client(build(git_settings)) as client:
        whole = (await client.call_tool("ck3_git", {"command": "log"})).structured_content
        newest = (await client.call_tool("ck3_git", {"command": "log", "limit": 1})).structured_content

    assert (whole["data"]["truncated"], whole["data"]["count"]) == (False, 2)
    assert "truncated" not in whole["message"]
    assert "older" not in whole["message"]
    assert (newest["data"]["truncated"], newest["data"]["count"]) == (True, 1)
    assert "older commits follow" in newest["message"]


async def test_conflicts_while_files_are_not_indexed_yet_say_how_many(tmp_path: Path):
    async with Client(build(_big_playset(tmp_path))) as client:
        answer = (await client.call_tool("ck3_playset", {"command": "conflicts"})).structured_content

    pending = answer["data"]["pending"]
    assert pending > 0
    assert f"{pending} files are not indexed yet" in answer["message"]


async def test_conflicts_of_a_whole_index_say_nothing_of_pending_files(tmp_path: Path):
    from tests.e2e.test_content_index import index_world

    async with Client(build(index_world(tmp_path))) as client:
        answer = (await client.call_tool("ck3_playset", {"command": "conflicts"})).structured_content

    assert answer["data"]["pending"] == 0
    assert "not indexed" not in answer["message"]


async def test_override_into_a_workshop_mod_of_the_playset_says_it_is_not_a_local_mod(tmp_path: Path):
    args = {"command": "override", "path": "ROOT_GAME:/events/birth_events.txt", "name": "Better Traits"}
    async with Client(build(sample_world_on_disk(tmp_path))) as client:
        refused = (await client.call_tool("ck3_file", args, raise_on_error=False)).structured_content

    assert refused["reply_type"] == "I"
    assert "Better Traits is a mod of the active playset but not a local mod" in refused["message"]
    assert refused["data"]["local_mods"] == ["Local Fix"]


def test_importing_a_playset_of_one_mod_says_one_mod(tmp_path: Path):
    import sqlite3

    settings = sample_world_on_disk(tmp_path)
    database = settings.roots[RootCategory.ROOT_USER_DOCS] / "launcher-v2.sqlite"
    with sqlite3.connect(database) as db:
        db.execute("delete from playsets_mods where playsetId = 'p-events' and modId = 'm-traits'")

    lines, status, _ = import_playsets(settings, "Events Only")

    assert status == 0
    assert any(re.search(r"\(1 mod\)", line) for line in lines), lines


@pytest.mark.parametrize("document", ["README.md", "docs/operator-guide.md"])
def test_the_tables_of_the_tools_name_every_command_of_every_tool(document: str):
    text = (CHECKOUT / document).read_text(encoding="utf-8")
    rows = {row.split("|")[1].strip(" `"): row for row in text.splitlines() if row.startswith("| `ck3_")}

    missing = [
        (tool, command)
        for tool, routes in COMMANDS.items()
        for command in routes
        if len(routes) > 1 and f"`{command}`" not in rows.get(tool, "")
    ]

    assert sorted(rows) == sorted(COMMANDS)
    assert missing == []


async def test_staging_where_no_repository_exists_says_so_before_asking_for_a_contract(tmp_path: Path):
    args = {"command": "add", "paths": ["mod:Local Fix:/common/traits/zzz_local_fix.txt"]}
    async with Client(build(sample_world_on_disk(tmp_path))) as client:
        refused = (await client.call_tool("ck3_commit", args, raise_on_error=False)).structured_content

    assert refused["code"] == "WA-RES-I-018"
    assert "git init" in refused["message"]


OPEN_A = {
    "command": "open",
    "root_category": "ROOT_REPO",
    "intent": "Fix a",
    "work_declaration": "Edit a",
    "operations": ["WRITE"],
    "targets": [{"path": "ROOT_REPO:/src/a.py", "edit_kind": "modify"}],
    "ttl_minutes": 5,
}


@pytest.mark.parametrize("command", ["close", "renew"])
async def test_close_or_renew_of_a_contract_that_expired_names_it_and_holds_the_ready_renew(
    git_settings: Settings, command: str
):
    from app.bootstrap import build_core
    from tests.fakes import FakeClock

    clock = FakeClock()
    async with Client(build(git_settings, core=build_core(git_settings, clock=clock))) as client:
        opened = (await client.call_tool("ck3_contract", OPEN_A)).structured_content
        clock.advance(minutes=6)
        refused = await client.call_tool("ck3_contract", {"command": command}, raise_on_error=False)

    contract_id = opened["data"]["contract_id"]
    answer = refused.structured_content
    assert answer["reply_type"] == "I"
    assert contract_id in answer["message"]
    assert "expired" in answer["message"]
    assert answer["data"]["request"] == {
        "tool": "ck3_contract",
        "arguments": {"command": "renew", "contract_id": contract_id},
    }


async def test_status_of_a_mod_that_is_its_own_repository_names_the_mod_not_the_documents_root(
    tmp_path: Path,
):
    settings = sample_world_on_disk(tmp_path)
    mod = settings.roots[RootCategory.ROOT_USER_DOCS] / "mod" / "LocalFix"
    porcelain.init(str(mod))
    files = [str(path) for path in mod.rglob("*") if path.is_file() and ".git" not in path.parts]
    porcelain.add(str(mod), paths=files)
    porcelain.commit(str(mod), message=b"first", author=b"T <t@x>", committer=b"T <t@x>")
    (mod / "common" / "traits" / "zzz_local_fix.txt").write_text("changed = {\n}\n", encoding="utf-8")
    async with Client(build(settings)) as client:
        answer = (
            await client.call_tool("ck3_git", {"command": "status", "path": "mod:Local Fix:/"})
        ).structured_content

    assert answer["data"]["count"] == 1
    assert answer["data"]["repository"] == "mod:Local Fix:/"
    assert "1 change in the repository at mod:Local Fix:/" in answer["message"]
