"""`ck3raven serve` over stdio, driven by the official `mcp` client in both protocol eras."""

from pathlib import Path

import pytest

from tests.e2e.stdio import envelope, stdio_client, write_config

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]


@pytest.fixture
def config(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    data = tmp_path / "data"
    repo.mkdir()
    data.mkdir()
    return write_config(tmp_path, roots={"ROOT_REPO": repo, "ROOT_CK3RAVEN_DATA": data})


async def test_pwd_over_stdio_answers_the_envelope(config: Path, era: str):
    async with stdio_client(config, era) as client:
        result = await client.call_tool("ck3_dir", {"command": "pwd"})

    env = envelope(result)
    assert env["code"] == "MCP-CFG-S-001"
    assert env["data"] == {"home": "ROOT_REPO", "address": "ROOT_REPO:/"}
    assert env["meta"]["tool"] == "ck3_dir"
    assert result.is_error is False


async def test_tools_list_over_stdio_names_the_tools(config: Path, era: str):
    async with stdio_client(config, era) as client:
        listed = await client.list_tools()

    assert {tool.name for tool in listed.tools} >= {"ck3_dir", "ck3_mode"}


async def test_the_server_logs_json_under_the_data_root(config: Path, era: str):
    async with stdio_client(config, era) as client:
        result = await client.call_tool("ck3_mode", {"command": "status"})

    trace_id = envelope(result)["meta"]["trace_id"]
    log = (config.parent / "data" / "logs" / "ck3raven.log").read_text(encoding="utf-8")
    assert trace_id in log
