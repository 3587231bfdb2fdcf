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
