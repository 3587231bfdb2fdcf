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
