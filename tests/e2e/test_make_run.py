"""`make run` serves the embedded default (the sample world, ck3lens) to an MCP client over stdio."""

import json
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters

from tests.terminal import Terminal

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]
REPO = Path(__file__).resolve().parents[2]


async def test_make_run_answers_tools_list_and_lists_the_sample_workshop(tmp_path: Path):
    run_dir = tmp_path / "run"  # never the checkout's .run/, where a server of the developer's may be running
    params = StdioServerParameters(
        command="sh",
        args=["-c", f'exec make -s -C "{REPO}" run RUN_DIR="{run_dir}" 2>"{tmp_path}/stderr.txt"'],
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
    said = (tmp_path / "stderr.txt").read_text(encoding="utf-8").splitlines()
    ready = [line for line in said if line.startswith("ck3raven: ready")]

    assert {tool.name for tool in listed.tools} >= {"ck3_dir", "ck3_file", "ck3_mode", "ck3_playset"}
    assert [e["name"] for e in result.structured_content["data"]["entries"]] == [
        "mod:Better Traits:/",
        "mod:More Events:/",
    ]
    assert len(ready) == 1
    assert f"serve --config {run_dir}/config.toml" in ready[0]


def test_ctrl_c_in_the_terminal_running_make_run_stops_the_server(tmp_path: Path):
    hello = {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"},
        },
    }
    env = {"HOME": str(tmp_path), "PATH": "/usr/bin:/bin:/usr/local/bin", "FASTMCP_CHECK_FOR_UPDATES": "off"}
    terminal = Terminal(
        ["/usr/bin/env", "make", "-s", "-C", str(REPO), "run", f"RUN_DIR={tmp_path / 'run'}"],
        cwd=tmp_path,
        env=env,
    )
    try:
        assert terminal.wait_for(b"ck3raven: ready")
        terminal.type(json.dumps(hello).encode() + b"\n")
        served = terminal.wait_for(b'"serverInfo"')  # the server answers: it is serving, its input open

        terminal.type(b"\x03")  # Ctrl-C: SIGINT to make and the server, the terminal's foreground
        status = terminal.process.wait(timeout=60)  # a bound on the test: a server that ignores it never ends
    finally:
        terminal.process.kill()
        terminal.close()

    assert served
    assert status is not None
    assert list((tmp_path / "run" / "state" / "servers").iterdir()) == []
