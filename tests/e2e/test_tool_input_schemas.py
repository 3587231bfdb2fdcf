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


def test_a_tool_whose_signature_disagrees_with_its_requests_is_never_served(
    repo_settings: Settings, monkeypatch: pytest.MonkeyPatch
):
    from domain.use_cases import navigation
    from domain.use_cases.arguments import number

    tree = tuple(number("depth", "deeper", high=32) if a.name == "depth" else a for a in navigation.Tree.ARGS)
    monkeypatch.setattr(navigation.Tree, "ARGS", tree)
    with pytest.raises(ValueError, match="ck3_dir"):
        build(repo_settings)
