"""Every argument an agent sees is described, and arguments are named the one way SPEC §16 names them:
`path` for an address, `root_category` for a root, `old_string`/`new_string`, `offset`/`limit`, `cursor`."""

from typing import Any

import pytest
from fastmcp import Client

from app.bootstrap import build
from app.config import Settings

pytestmark = pytest.mark.anyio

RETIRED = {"address", "root", "under", "old", "new", "max_results", "max_hits", "page", "next"}
"""Other spellings of the names SPEC §16 gives: none may name an argument, at any depth."""


def _properties(schema: object) -> list[tuple[str, dict[str, Any]]]:
    """Every property of an input schema, at any depth (the fields of a list's items included)."""
    if isinstance(schema, list):
        return [found for item in schema for found in _properties(item)]
    if not isinstance(schema, dict):
        return []
    own = schema.get("properties")
    found = list(own.items()) if isinstance(own, dict) else []
    nested = [value for key, value in schema.items() if key != "properties"]
    nested += list(own.values()) if isinstance(own, dict) else []
    return found + _properties(nested)


async def _input_schemas(settings: Settings) -> dict[str, dict[str, Any]]:
    async with Client(build(settings)) as client:
        return {tool.name: tool.input_schema for tool in await client.list_tools()}


async def test_every_argument_of_every_tool_has_a_description(repo_settings: Settings):
    schemas = await _input_schemas(repo_settings)

    undescribed = [
        (tool, name)
        for tool, schema in schemas.items()
        for name, prop in _properties(schema)
        if not str(prop.get("description", "")).strip()
    ]
    assert len(schemas) == 10
    assert undescribed == []


async def test_no_argument_carries_a_name_the_spec_spells_otherwise(repo_settings: Settings):
    schemas = await _input_schemas(repo_settings)

    retired = sorted({name for schema in schemas.values() for name, _ in _properties(schema)} & RETIRED)
    assert retired == []
