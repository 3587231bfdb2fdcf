"""`make run` serves the embedded default (the sample world, ck3lens) to an MCP client over stdio."""

from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]
REPO = Path(__file__).resolve().parents[2]


async def test_make_run_answers_tools_list_and_lists_the_sample_workshop(tmp_path: Path):
    params = StdioServerParameters(
        command="make",
        args=["-s", "-C", str(REPO), "run"],
        cwd=str(tmp_path),
        env={
            "HOME": str(tmp_path),
            "PATH": "/usr/bin:/bin:/usr/local/bin",
            "FASTMCP_CHECK_FOR_UPDATES": "off",
        },
    )
    async with Client(params) as client:
        listed = await client.list_tools()
        result = await client.call_tool("ck3_dir", {"command": "list", "path": "ROOT_STEAM:/"})

    assert {tool.name for tool in listed.tools} >= {"ck3_dir", "ck3_file", "ck3_mode", "ck3_playset"}
    assert [e["address"] for e in result.structured_content["data"]["entries"]] == [
        "mod:Better Traits:/",
        "mod:More Events:/",
    ]
