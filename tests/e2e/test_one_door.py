"""Every host goes through the core's one door: for the same arguments, a host embedding the core and an
MCP client of the server over that same core get the same reply, for every command of every tool, whether
the call is whole, of the wrong shape, out of place or naming a host path."""

from typing import Any

import pytest
from fastmcp import Client

from adapters.fastmcp_server import build_server
from ck3raven.embedding import in_memory
from domain.use_cases.commands import COMMANDS, Command

pytestmark = pytest.mark.anyio

ROOTS = {
    "ROOT_REPO": {
        "common": {"traits": {"00_traits.txt": b"brave = { }\n"}},
        "src": {"a.py": b"a = 1\n"},
    }
}
SAMPLES: dict[str, object] = {
    "glob": "*.txt",
    "pattern": "brave",
    "path": "common",
    "key": "brave",
    "language": "french",
    "content": "x\n",
    "paths": ["common/traits/00_traits.txt"],
    "reason": "a reason",
    "rules": ["CK3-BOM"],
    "symbols": [{"name": "brave"}],
    "max_violations": 1,
    "mode": "ck3lens",
    "name": "none",
    "message": "a message",
}
"""A value for each argument a command requires."""
WRONG: dict[str, object] = {"string": 5, "integer": "3", "boolean": "yes", "array": "x"}
"""A value of another type than each type of argument."""


def _cases() -> list[tuple[str, str, str, dict[str, Any]]]:
    cases = []
    for tool, rows in COMMANDS.items():
        takes_anywhere = {arg.name for row in rows.values() for arg in row.kind.ARGS}
        for command, row in rows.items():
            cases += [(tool, command, case, args) for case, args in _arguments(row, takes_anywhere).items()]
    return cases


def _arguments(row: Command, takes_anywhere: set[str]) -> dict[str, dict[str, Any]]:
    """The command's required arguments; then each of its first two arguments of another type; then an
    argument only another command of the tool takes; then a host path as its address."""
    needed = {name: SAMPLES[name] for name in sorted(row.requires | ({"path"} & row.takes))}
    cases = {"whole": needed}
    for arg in row.kind.ARGS[:2]:
        cases[f"{arg.name} mistyped"] = needed | {arg.name: WRONG[arg.shape["type"]]}
    for stray in sorted(takes_anywhere - row.takes)[:1]:
        cases[f"{stray} out of place"] = needed | {stray: SAMPLES.get(stray, "x")}
    if "path" in row.takes:
        cases["host path"] = needed | {"path": "/etc/passwd"}
    return cases


CASES = _cases()


@pytest.mark.parametrize(
    ("tool", "command", "args"),
    [(tool, command, args) for tool, command, _, args in CASES],
    ids=[f"{tool}-{command}-{case}" for tool, command, case, _ in CASES],
)
async def test_the_embedding_door_and_the_mcp_door_answer_the_same_reply(tool, command, args):
    embedded = in_memory(ROOTS)
    served = in_memory(ROOTS)
    server = build_server(served.core, served.core.services.leaks)
    commanded = {} if tool == "ck3_read" else {"command": command}

    direct = embedded.call(embedded.session(), tool, command, **args)
    async with Client(server) as client:
        result = await client.call_tool(tool, commanded | args, raise_on_error=False)

    wire = result.structured_content
    assert (wire["reply_type"], wire["code"]) == (direct.reply_type.value, direct.code)
    assert sorted(wire["data"]) == sorted(direct.data)


def test_the_cases_reach_every_command_of_every_tool():
    assert {(tool, command) for tool, command, _, _ in CASES} == {
        (tool, command) for tool, rows in COMMANDS.items() for command in rows
    }
