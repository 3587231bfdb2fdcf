"""The arguments every tool lists are the ones clients already rely on: names, types, bounds, which are
required and what each description says (tool_input_schemas.json holds them)."""

import json
from pathlib import Path

import pytest
from fastmcp import Client

from app.bootstrap import build
from app.config import Settings

pytestmark = pytest.mark.anyio

KNOWN = Path(__file__).with_name("tool_input_schemas.json")


async def test_every_tool_lists_exactly_the_input_schema_clients_know(repo_settings: Settings):
    async with Client(build(repo_settings)) as client:
        tools = await client.list_tools()

    listed = {tool.name: tool.input_schema for tool in tools}
    assert listed == json.loads(KNOWN.read_text(encoding="utf-8"))


async def test_a_call_is_validated_against_the_bounds_its_request_declares(
    repo_settings: Settings, monkeypatch: pytest.MonkeyPatch
):
    from domain.use_cases import navigation
    from domain.use_cases.arguments import number

    tree = tuple(number("depth", "deeper", high=2) if a.name == "depth" else a for a in navigation.Tree.ARGS)
    monkeypatch.setattr(navigation.Tree, "ARGS", tree)
    async with Client(build(repo_settings)) as client:
        deep = await client.call_tool("ck3_dir", {"command": "tree", "depth": 3}, raise_on_error=False)
        shallow = await client.call_tool("ck3_dir", {"command": "tree", "depth": 2}, raise_on_error=False)

    assert deep.structured_content["code"] == "MCP-VAL-I-001"
    assert shallow.structured_content["code"] == "WA-READ-S-002"


def test_a_signature_pydantic_reads_as_another_schema_is_never_served(
    repo_settings: Settings, monkeypatch: pytest.MonkeyPatch
):
    from adapters import tool_signatures

    made = tool_signatures._value
    monkeypatch.setattr(
        tool_signatures,
        "_value",
        lambda name, shape: str if shape["type"] == "integer" else made(name, shape),
    )
    with pytest.raises(ValueError, match="ck3_dir"):
        build(repo_settings)


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
}
"""A value for each argument a command requires, so that a call reaches the check of the one under test."""


def _bounded(tool) -> dict[str, int]:
    """Each integer argument of `tool` with a maximum in its listed schema, and that maximum."""
    bounded = {}
    for name, listed in tool.input_schema["properties"].items():
        shape = listed.get("anyOf", [listed])[0]
        if shape.get("type") == "integer" and "maximum" in shape:
            bounded[name] = shape["maximum"]
    return bounded


def _refuses(envelope: dict[str, object], name: str) -> bool:
    return envelope["reply_type"] == "I" and f'"{name}"' in json.dumps(envelope["data"])


async def test_every_maximum_tools_list_declares_is_the_one_the_server_enforces(tmp_path: Path):
    from domain.use_cases.commands import COMMANDS
    from tests.e2e.test_content_index import index_world

    wrong = []
    async with Client(build(index_world(tmp_path))) as client:
        for tool in await client.list_tools():
            for name, most in _bounded(tool).items():
                for command, route in COMMANDS[tool.name].items():
                    if name not in route.takes:
                        continue
                    args = {r: SAMPLES[r] for r in route.requires - {name}} | (
                        {"command": command} if "command" in tool.input_schema["properties"] else {}
                    )
                    at = await client.call_tool(tool.name, args | {name: most}, raise_on_error=False)
                    past = await client.call_tool(tool.name, args | {name: most + 1}, raise_on_error=False)
                    if _refuses(at.structured_content, name) or not _refuses(past.structured_content, name):
                        wrong.append((tool.name, command, name, most))

    assert wrong == [], json.dumps(wrong)
