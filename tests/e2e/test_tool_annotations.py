"""Tool annotations tell the truth about every command, and a read-only server offers no tool that can
change a file (SPEC §9: reads apart from mutations)."""

from typing import Any

import pytest
from fastmcp import Client

from app.bootstrap import build
from app.config import Settings
from tests.e2e.stdio import envelope, stdio_client, write_config

pytestmark = pytest.mark.anyio

READS, SESSION, ADDS, CHANGES, REMOVES = "reads", "session", "adds files", "changes files", "removes files"

WHAT_EACH_COMMAND_DOES: dict[str, dict[str, str]] = {
    "ck3_dir": {"pwd": READS, "list": READS, "tree": READS},
    "ck3_read": {"read": READS},
    "ck3_search": {"names": READS, "contents": READS, "log": READS},
    "ck3_git": {"status": READS, "diff": READS, "log": READS},
    "ck3_mode": {"status": READS, "init": SESSION, "cd": SESSION},
    "ck3_playset": {
        "list": READS,
        "show": READS,
        "switch": SESSION,
        "which": READS,
        "overrides": READS,
        "define": READS,
        "conflicts": READS,
        "mentions": READS,
        "missing": READS,
        "index": READS,
    },
    "ck3_file": {"write": CHANGES, "edit": CHANGES, "delete": REMOVES, "override": ADDS, "keep": ADDS},
    "ck3_commit": {"add": CHANGES, "commit": CHANGES},
    "ck3_token": {"nst": SESSION, "lxe": ADDS, "removal": SESSION, "list": READS},
    "ck3_contract": {
        "open": SESSION,
        "close": SESSION,
        "cancel": SESSION,
        "renew": SESSION,
        "status": READS,
        "list": READS,
        "stash_carry_over": REMOVES,
        "revert": REMOVES,
    },
}
"""What each command does, known here independently of the server: reads change nothing; session
commands change only the caller's session (and the server's own records); the rest add, change or remove
files (git's index included)."""


def commands_of(tool: Any) -> set[str]:
    command = tool.input_schema["properties"].get("command")
    if command is None:  # a single-purpose tool: its one command is its table entry
        return set(WHAT_EACH_COMMAND_DOES[tool.name])
    return set(command["enum"])


async def listed(settings: Settings) -> dict[str, Any]:
    async with Client(build(settings)) as client:
        return {tool.name: tool for tool in await client.list_tools()}


async def test_every_tool_offers_exactly_the_commands_whose_effect_is_known(repo_settings: Settings):
    tools = await listed(repo_settings)

    assert {name: commands_of(tool) for name, tool in tools.items()} == {
        name: set(commands) for name, commands in WHAT_EACH_COMMAND_DOES.items()
    }


async def test_a_tool_is_read_only_exactly_when_every_command_of_it_only_reads(repo_settings: Settings):
    tools = await listed(repo_settings)

    for name, tool in tools.items():
        effects = {WHAT_EACH_COMMAND_DOES[name][command] for command in commands_of(tool)}
        assert tool.annotations.read_only_hint is (effects == {READS}), name
        assert tool.annotations.idempotent_hint is (effects <= {READS, SESSION}), name


async def test_a_tool_is_destructive_exactly_when_a_command_of_it_changes_files(repo_settings: Settings):
    tools = await listed(repo_settings)

    for name, tool in tools.items():
        effects = {WHAT_EACH_COMMAND_DOES[name][command] for command in commands_of(tool)}
        assert tool.annotations.destructive_hint is bool(effects & {CHANGES, REMOVES}), name


async def test_a_read_only_server_offers_no_tool_that_changes_files(repo_settings: Settings):
    tools = await listed(repo_settings.with_read_only())

    for name, tool in tools.items():
        effects = {WHAT_EACH_COMMAND_DOES[name][command] for command in commands_of(tool)}
        assert not effects & {ADDS, CHANGES, REMOVES}, name
    assert {"ck3_dir", "ck3_read", "ck3_mode"} <= set(tools)


async def test_a_read_only_server_refuses_a_write_and_the_file_stays(repo_settings: Settings):
    target = repo_settings.roots[repo_settings.home] / "kept.txt"
    target.write_text("before", encoding="utf-8")

    async with Client(build(repo_settings.with_read_only())) as client:
        result = await client.call_tool(
            "ck3_file", {"command": "write", "path": "kept.txt", "content": "after"}, raise_on_error=False
        )

    assert result.structured_content["code"] == "MCP-VAL-I-002"
    assert target.read_text(encoding="utf-8") == "before"


async def test_serve_read_only_lists_only_read_and_session_tools_over_stdio(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "a.txt").write_text("alpha\n", encoding="utf-8")
    config = write_config(tmp_path, roots={"ROOT_REPO": repo})

    async with stdio_client(config, "auto", "--read-only") as client:
        names = {tool.name for tool in (await client.list_tools()).tools}
        read = envelope(await client.call_tool("ck3_read", {"path": "a.txt"}))

    assert not names & {"ck3_file", "ck3_commit", "ck3_contract"}
    assert read["data"]["content"] == "alpha\n"
