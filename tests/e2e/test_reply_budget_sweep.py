"""No reply exceeds the operator's budget unless the call asked for more (SPEC §16): every tool's commands,
driven on a world far bigger than a small budget (`[replies] budget_kib` 4, 10 and 32; a folder of 2,000
files, a new file of 134 KB), answer envelopes within it, whatever their outcome."""

import json
from pathlib import Path
from typing import Any

import pytest
from attrs import evolve
from dulwich import porcelain
from fastmcp import Client

from app.bootstrap import build
from app.config import Settings
from domain.vocabulary import RootCategory
from tests.e2e.test_content_index import index_world, write

pytestmark = pytest.mark.anyio
BUDGET = 4 * 1024
BUDGETS = [4, 10, 32]
MANY = 300
FOLDER = 2_000
LONG_TEXT = "".join(
    f"line {n:06} of a new file, long enough to be a real script line\n" for n in range(2_100)
)
"""134 KB of new text: a dry run's diff of it is bigger than any budget."""


def _size(envelope: dict[str, Any]) -> int:
    return len(json.dumps(envelope, ensure_ascii=False, separators=(",", ":")).encode())


def _big(settings: Settings, budget_kib: int = 4) -> Settings:
    """The repository grown past the budget every way a reply could grow: a long file, many files and
    folders, long commit messages, a large change to a committed file, many untracked files."""
    repo = settings.roots[RootCategory.ROOT_REPO]
    for n in range(25):
        (repo / "src" / "a.py").write_text(f"a = {n}\n", encoding="utf-8")
        porcelain.add(str(repo), paths=[str(repo / "src" / "a.py")])
        message = f"change {n}: " + "a long commit message that says a great deal " * 12
        porcelain.commit(str(repo), message=message.encode(), author=b"T <t@x>", committer=b"T <t@x>")
    (repo / "src" / "a.py").write_text("".join(f"value_{n} = {n}\n" for n in range(2000)), encoding="utf-8")
    (repo / "long.txt").write_text(
        "".join(f"line {n:05} of a long file\n" for n in range(3000)), encoding="utf-8"
    )
    (repo / "many").mkdir()
    for n in range(MANY):
        (repo / "many" / f"file_{n:04}_with_a_longer_name.txt").write_text(f"needle {n}\n", encoding="utf-8")
        (repo / "tree" / f"folder_{n:04}_with_a_longer_name").mkdir(parents=True)
    return evolve(settings, budget_kib=budget_kib)


def _targets() -> list[dict[str, str]]:
    return [{"path": f"many/file_{n:04}_with_a_longer_name.txt", "edit_kind": "modify"} for n in range(MANY)]


OPEN_MANY: dict[str, Any] = {
    "command": "open",
    "root_category": "ROOT_REPO",
    "intent": "Touch many files",
    "work_declaration": "Append a line to each file",
    "operations": ["WRITE"],
    "targets": _targets(),
}
CALLS: list[tuple[str, dict[str, Any]]] = [
    ("ck3_dir", {"command": "pwd"}),
    ("ck3_dir", {"command": "list", "path": "many"}),
    ("ck3_dir", {"command": "tree", "path": "tree"}),
    ("ck3_read", {"path": "long.txt"}),
    ("ck3_search", {"command": "names", "glob": "*.txt"}),
    ("ck3_search", {"command": "contents", "pattern": "needle"}),
    ("ck3_git", {"command": "status"}),
    ("ck3_git", {"command": "diff", "path": "src/a.py"}),
    ("ck3_git", {"command": "log"}),
    ("ck3_mode", {"command": "status"}),
    ("ck3_playset", {"command": "list"}),
    ("ck3_playset", {"command": "show"}),
    ("ck3_commit", {"command": "add", "paths": [t["path"] for t in _targets()]}),
    ("ck3_contract", OPEN_MANY),
    ("ck3_contract", {"command": "status"}),
    ("ck3_contract", {"command": "list"}),
    ("ck3_commit", {"command": "add", "paths": [t["path"] for t in _targets()]}),
    ("ck3_commit", {"command": "commit", "message": "A commit of many files " * 40}),
    ("ck3_token", {"command": "list"}),
    ("ck3_file", {"command": "edit", "path": "long.txt", "old_string": "line", "new_string": "LINE"}),
    (
        "ck3_file",
        {"command": "write", "path": "many/file_0000_with_a_longer_name.txt", "content": "x\n" * 5000},
    ),
    ("ck3_file", {"command": "write", "path": "new_long.txt", "content": LONG_TEXT, "dry_run": True}),
    ("ck3_file", {"command": "write", "path": "new_wide.txt", "content": "x" * 134_000, "dry_run": True}),
    (
        "ck3_file",
        {
            "command": "edit",
            "path": "long.txt",
            "old_string": "line 00001 of",
            "new_string": "LINE 00001 of",
            "dry_run": True,
        },
    ),
    (
        "ck3_token",
        {
            "command": "nst",
            "symbols": [{"name": f"symbol_{n:04}", "path": "src/a.py"} for n in range(MANY)],
            "reason": "many",
        },
    ),
    (
        "ck3_token",
        {
            "command": "removal",
            "symbols": [{"name": f"key_{n:04}", "kind": "traits", "path": "src/a.py"} for n in range(MANY)],
            "reason": "many",
        },
    ),
    (
        "ck3_token",
        {
            "command": "lxe",
            "rules": ["F401"],
            "paths": [t["path"] for t in _targets()],
            "max_violations": 1,
            "reason": "many",
        },
    ),
    ("ck3_token", {"command": "list"}),
    ("ck3_contract", {"command": "renew"}),
    ("ck3_contract", {"command": "revert", "dry_run": True}),
    ("ck3_contract", {"command": "close"}),
    ("ck3_contract", {"command": "list"}),
    ("ck3_contract", {"command": "cancel"}),
    ("ck3_contract", {"command": "stash_carry_over"}),
    ("ck3_mode", {"command": "cd", "root_category": "ROOT_CK3RAVEN_DATA"}),
    ("ck3_mode", {"command": "init", "mode": "ck3lens"}),
]


@pytest.mark.parametrize("budget_kib", BUDGETS)
async def test_no_reply_of_any_tool_exceeds_a_small_budget_on_a_big_world(
    git_settings: Settings, budget_kib: int
):
    settings = _big(git_settings, budget_kib)
    over = []
    async with Client(build(settings)) as client:
        for tool, args in CALLS:
            result = await client.call_tool(tool, args, raise_on_error=False)
            envelope = result.structured_content
            if _size(envelope) > budget_kib * 1024:
                over.append((tool, args.get("command"), envelope["code"], _size(envelope)))

    assert over == [], json.dumps(over)


async def test_git_status_pages_its_changes_and_log_and_diff_are_cut_to_fit(git_settings: Settings):
    settings = _big(git_settings)
    changes: list[str] = []
    sizes = []
    async with Client(build(settings)) as client:
        cursor = None
        while True:
            args = {"command": "status"} | ({"cursor": cursor} if cursor else {})
            env = (await client.call_tool("ck3_git", args, raise_on_error=False)).structured_content
            sizes.append(len(json.dumps(env, separators=(",", ":")).encode()))
            changes += [change["address"] for change in env["data"]["changes"]]
            cursor = env["data"]["next_cursor"]
            if cursor is None:
                break
        diff = (await client.call_tool("ck3_git", {"command": "diff", "path": "src/a.py"})).structured_content
        log = (await client.call_tool("ck3_git", {"command": "log"})).structured_content
        asked = (await client.call_tool("ck3_git", {"command": "log", "limit": 25})).structured_content

    assert max(sizes) <= BUDGET
    assert len(sizes) > 1
    assert len(set(changes)) == len(changes) == env["data"]["count"] > MANY
    assert (diff["data"]["truncated"], diff["data"]["diff"].startswith("--- HEAD:")) == (True, True)
    assert (log["data"]["truncated"], asked["data"]["count"]) == (True, 25)


def _big_playset(base: Path, budget_kib: int = 4) -> Settings:
    """The content index's world grown past the budget: a key mentioned by many files, many keys both mods
    define, many English keys with no French."""
    settings = index_world(base)
    game, steam = settings.roots[RootCategory.ROOT_GAME], settings.roots[RootCategory.ROOT_STEAM]
    for n in range(MANY):
        write(game / f"events/many_{n:04}_events.txt", "e = {\n\ttrigger = { has_trait = brave }\n}\n")
    traits = "".join(f"trait_number_{n:04} = {{\n}}\n" for n in range(MANY))
    write(game / "common/traits/10_many_traits.txt", f"\ufeff{traits}")
    write(steam / "1" / "common/traits/10_many_traits.txt", f"\ufeff{traits}")
    english = "".join(f' key_number_{n:04}:0 "Text"\n' for n in range(MANY))
    write(game / "localization/english/many_l_english.yml", f"\ufeffl_english:\n{english}")
    for n in range(FOLDER):
        write(game / f"sound/many/sound_{n:04}_with_a_longer_name.txt", "x\n")
    write(settings.roots[RootCategory.ROOT_CK3RAVEN_DATA] / "wip/logs/big/error.log", BIG_LOG)
    return evolve(settings, budget_kib=budget_kib)


BIG_LOG = "".join(
    f"[10:00:{n % 60:02}][jomini_script_system.cpp:{n % 7}]: Script system error number {n}!\n"
    f"  Error: has_trait trigger [ Unknown trait 'trait_number_{n:04}' ]\n"
    "  Script location: file: C:/Users/A/Documents/Paradox Interactive/Crusader Kings III/mod/x/events/"
    f"e_{n}.txt"
    f" line: {n} (a long object context to make the line longer:trigger)\n"
    for n in range(MANY * 3)
)
"""A log of 900 emissions, each naming a file by its host path."""
LOG = "ROOT_CK3RAVEN_DATA:/wip/logs/big/error.log"


PLAYSET_CALLS: list[tuple[str, dict[str, Any]]] = [
    ("ck3_playset", {"command": "list"}),
    ("ck3_playset", {"command": "show"}),
    ("ck3_playset", {"command": "which", "path": "common/traits/10_many_traits.txt"}),
    ("ck3_playset", {"command": "which", "path": "sound/many"}),
    ("ck3_playset", {"command": "overrides"}),
    ("ck3_playset", {"command": "index"}),
    ("ck3_playset", {"command": "define", "key": "brave"}),
    ("ck3_playset", {"command": "conflicts"}),
    ("ck3_playset", {"command": "mentions", "key": "brave"}),
    ("ck3_playset", {"command": "missing", "language": "french"}),
    ("ck3_dir", {"command": "tree", "path": "ROOT_GAME:/", "depth": 5}),
    ("ck3_dir", {"command": "list", "path": "ROOT_GAME:/events"}),
    ("ck3_search", {"command": "names", "glob": "*.txt"}),
    ("ck3_search", {"command": "contents", "pattern": "brave"}),
    ("ck3_read", {"path": "ROOT_GAME:/common/traits/10_many_traits.txt"}),
    ("ck3_file", {"command": "write", "path": "ROOT_GAME:/common/traits/10_many_traits.txt", "content": "x"}),
    ("ck3_file", {"command": "delete", "path": "ROOT_GAME:/events/many_0000_events.txt"}),
    (
        "ck3_file",
        {
            "command": "override",
            "path": "ROOT_GAME:/sound/many/sound_0000_with_a_longer_name.txt",
            "name": "X",
        },
    ),
    ("ck3_playset", {"command": "switch", "name": "No such playset"}),
    *[("ck3_search", {"command": "log", "path": LOG, "view": view}) for view in ("summary", "groups")],
    *[("ck3_search", {"command": "log", "path": LOG, "view": view}) for view in ("emissions", "cascades")],
    ("ck3_search", {"command": "log", "path": LOG, "view": "emission", "offset": 3}),
    ("ck3_search", {"command": "log", "path": LOG, "view": "raw"}),
    ("ck3_file", {"command": "keep", "path": "ROOT_CK3RAVEN_DATA:/wip/logs/big"}),
    ("ck3_mode", {"command": "status"}),
]


@pytest.mark.parametrize("budget_kib", BUDGETS)
async def test_no_playset_or_content_index_reply_exceeds_a_small_budget(tmp_path: Path, budget_kib: int):
    over = []
    async with Client(build(_big_playset(tmp_path, budget_kib))) as client:
        for tool, args in PLAYSET_CALLS:
            envelope = (await client.call_tool(tool, args, raise_on_error=False)).structured_content
            if _size(envelope) > budget_kib * 1024:
                over.append((tool, args.get("command"), envelope["code"], _size(envelope)))

    assert over == [], json.dumps(over)


async def test_mentions_past_the_budget_page_by_cursor_to_the_last(tmp_path: Path):
    files: list[tuple[str, int]] = []
    async with Client(build(_big_playset(tmp_path))) as client:
        cursor = None
        while True:
            args = {"command": "mentions", "key": "brave"} | ({"cursor": cursor} if cursor else {})
            envelope = (await client.call_tool("ck3_playset", args)).structured_content
            assert len(json.dumps(envelope, separators=(",", ":")).encode()) <= BUDGET
            files += [(f["path"], f["line"]) for f in envelope["data"]["files"]]
            cursor = envelope["data"]["next_cursor"]
            if cursor is None:
                break

    assert len(set(files)) == len(files) == envelope["data"]["total"] > MANY


async def test_which_of_a_folder_of_2000_files_pages_by_cursor_to_the_last_file(tmp_path: Path):
    names: list[str] = []
    async with Client(build(_big_playset(tmp_path))) as client:
        cursor = None
        while True:
            args = {"command": "which", "path": "sound/many"} | ({"cursor": cursor} if cursor else {})
            envelope = (await client.call_tool("ck3_playset", args)).structured_content
            assert _size(envelope) <= BUDGET
            names += [file["name"] for file in envelope["data"]["files"]]
            cursor = envelope["data"]["next_cursor"]
            if cursor is None:
                break
        asked = await client.call_tool("ck3_playset", {"command": "which", "path": "sound/many", "limit": 3})

    assert len(set(names)) == len(names) == envelope["data"]["total"] == FOLDER
    assert envelope["data"]["truncated"] is False
    assert asked.structured_content["data"]["count"] == 3


async def _dry_run_pages(settings: Settings, write: dict[str, Any]) -> list[dict[str, Any]]:
    """Every page of a dry run's diff, followed by next_diff_offset to the last."""
    pages: list[dict[str, Any]] = []
    async with Client(build(settings)) as client:
        await client.call_tool("ck3_contract", OPEN_MANY)
        offset = 0
        while offset is not None:
            args = write | {"dry_run": True, "diff_offset": offset}
            pages.append((await client.call_tool("ck3_file", args)).structured_content)
            offset = pages[-1]["data"]["next_diff_offset"]
    return pages


async def test_a_dry_run_diff_past_the_budget_is_cut_at_a_line_and_goes_on_by_diff_offset(
    git_settings: Settings,
):
    write = {"command": "write", "path": "new_long.txt", "content": LONG_TEXT}

    pages = await _dry_run_pages(_big(git_settings, 10), write)

    pieces = [page["data"]["diff"] for page in pages]
    assert max(_size(page) for page in pages) <= 10 * 1024
    assert len(pieces) > 1
    assert all(piece.endswith("\n") for piece in pieces)  # cut at a line
    assert "".join(pieces).splitlines()[3:] == ["+" + line for line in LONG_TEXT.splitlines()]
    assert pages[-1]["data"]["diff_lines"] == len(LONG_TEXT.splitlines()) + 3


async def test_a_dry_run_whose_one_line_exceeds_the_budget_names_the_new_contents_digest_and_size(
    git_settings: Settings,
):
    write = {"command": "write", "path": "new_wide.txt", "content": "x" * 134_000}

    pages = await _dry_run_pages(_big(git_settings), write)

    hints = [page["data"]["hint"] or "" for page in pages]
    assert max(_size(page) for page in pages) <= BUDGET
    assert {page["data"]["size"] for page in pages} == {134_000}
    assert any("longer than the reply budget: data.sha256 and data.size" in hint for hint in hints)


def test_the_sweeps_call_every_command_of_every_tool():
    from domain.use_cases.commands import COMMANDS

    called = {(tool, args.get("command", "read")) for tool, args in CALLS + PLAYSET_CALLS}

    assert {(tool, command) for tool, routes in COMMANDS.items() for command in routes} <= called
