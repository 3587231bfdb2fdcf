"""The server serves tools and nothing else: it neither advertises nor answers prompts or resources.

FastMCP registers those methods on its own and has no public way to leave them out, so the server
removes them from the request-handler table of the MCP SDK's server; these tests pin that table's
place and what leaving them out does, so an update of either library that moves it fails here."""

import pytest
from fastmcp import Client, FastMCP
from mcp import MCPError

from app.bootstrap import build
from app.config import Settings

pytestmark = pytest.mark.anyio
METHOD_NOT_FOUND = -32601
UNSERVED = ("prompts/list", "prompts/get", "resources/list", "resources/read", "resources/templates/list")


def test_fastmcp_keeps_the_prompt_and_resource_handlers_in_the_table_the_server_edits():
    handlers = FastMCP("plain")._mcp_server._request_handlers

    assert set(UNSERVED) <= set(handlers)


async def test_the_server_advertises_tools_and_neither_prompts_nor_resources(git_settings: Settings):
    async with Client(build(git_settings)) as client:
        capabilities = client.server_capabilities

    assert capabilities.tools is not None
    assert capabilities.prompts is None
    assert capabilities.resources is None


async def test_a_prompt_or_resource_request_is_told_the_method_does_not_exist(git_settings: Settings):
    async with Client(build(git_settings)) as client:
        with pytest.raises(MCPError, match="Method not found") as prompts:
            await client.list_prompts()
        with pytest.raises(MCPError, match="Method not found"):
            await client.list_resources()

    assert prompts.value.error.code == METHOD_NOT_FOUND
