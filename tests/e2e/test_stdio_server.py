"""`ck3raven serve` over stdio, driven by the official `mcp` client in both protocol eras."""

from pathlib import Path
from typing import Any

import pytest

from tests.e2e.stdio import envelope, stdio_client, write_config
from tests.worlds import sample_world_on_disk

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


async def test_the_server_logs_json_in_its_state_directory(config: Path, era: str):
    async with stdio_client(config, era) as client:
        result = await client.call_tool("ck3_mode", {"command": "status"})

    trace_id = envelope(result)["meta"]["trace_id"]
    log = (config.parent / "state" / "logs" / "ck3raven.log").read_text(encoding="utf-8")
    assert trace_id in log


async def test_list_over_stdio_serves_the_sample_world_with_mod_addresses(tmp_path: Path, era: str):
    settings = sample_world_on_disk(tmp_path)
    roots = {root.value: path for root, path in settings.roots.items()}
    config = write_config(tmp_path, mode="ck3lens", roots=roots, playset="Sample Playset")

    async with stdio_client(config, era) as client:
        result = await client.call_tool("ck3_dir", {"command": "list", "path": "ROOT_STEAM:/"})

    env = envelope(result)
    assert [entry["name"] for entry in env["data"]["entries"]] == [
        "mod:Better Traits:/",
        "mod:More Events:/",
    ]
    assert str(tmp_path) not in result.content[0].text


def piped(config: Path) -> tuple[list[dict[str, Any]], list[str]]:
    """Run `ck3raven serve` on requests written all at once, then end of input: the answers, and the
    lines of stderr."""
    answers, lines, _ = piped_to_the_end(config)
    return answers, lines


def piped_to_the_end(config: Path) -> tuple[list[dict[str, Any]], list[str], int]:
    """As `piped`, and the server's exit status."""
    import json
    import subprocess

    from tests.e2e.stdio import CK3RAVEN

    requests = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INITIALIZE},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "ck3_dir", "arguments": {}}},
    ]
    done = subprocess.run(
        [CK3RAVEN, "serve", "--config", str(config)],
        input="".join(json.dumps(r) + "\n" for r in requests),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    answers = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    return answers, [line for line in done.stderr.splitlines() if line.strip()], done.returncode


INITIALIZE = {
    "protocolVersion": "2025-11-25",
    "capabilities": {},
    "clientInfo": {"name": "pipe", "version": "0"},
}


def test_every_line_the_server_writes_on_stderr_is_json(config: Path):
    import json

    _, lines = piped(config)

    assert lines
    assert all(isinstance(json.loads(line), dict) for line in lines), lines


def test_every_request_read_before_end_of_input_is_answered(config: Path):
    answers, _ = piped(config)

    assert sorted(answer["id"] for answer in answers if "id" in answer) == [1, 2, 3]


def test_a_server_whose_input_ended_exits_zero_with_its_last_reply_logged_and_its_lock_released(config: Path):
    answers, _, status = piped_to_the_end(config)

    trace_id = next(a for a in answers if a.get("id") == 3)["result"]["structuredContent"]["meta"]["trace_id"]
    state = config.parent / "state"
    assert status == 0
    assert trace_id in (state / "logs" / "ck3raven.log").read_text(encoding="utf-8")
    assert piped_to_the_end(config)[2] == 0  # a second server takes the state directory: the lock is free


def test_a_server_whose_input_ended_logs_that_it_stopped_before_it_exits(config: Path):
    import json

    _, lines, _ = piped_to_the_end(config)

    logged = (config.parent / "state" / "logs" / "ck3raven.log").read_text(encoding="utf-8").splitlines()
    assert json.loads(logged[-1])["event"] == "server.stopped"
    assert json.loads(lines[-1])["event"] == "server.stopped"


def test_the_server_advertises_tools_and_no_prompts_or_resources_it_does_not_serve(config: Path):
    answers, _ = piped(config)

    capabilities = next(answer for answer in answers if answer.get("id") == 1)["result"]["capabilities"]
    assert "tools" in capabilities
    assert not {"prompts", "resources"} & capabilities.keys()
