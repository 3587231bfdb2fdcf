"""`ck3raven serve --transport http` answers on loopback with the same envelope."""

import socket
import subprocess
import time
from pathlib import Path

import pytest
from mcp import Client

from tests.e2e.stdio import CK3RAVEN, write_config

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_for(port: int, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise TimeoutError("the server did not listen")


def start(config: Path, port: int) -> subprocess.Popen[bytes]:
    server = subprocess.Popen(
        [CK3RAVEN, "serve", "--config", str(config), "--transport", "http", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        cwd=config.parent,
    )
    wait_for(port)
    return server


async def test_pwd_over_http_answers_the_envelope(tmp_path: Path):
    (tmp_path / "repo").mkdir()
    config = write_config(tmp_path, roots={"ROOT_REPO": tmp_path / "repo"})
    port = free_port()
    server = start(config, port)
    try:
        async with Client(f"http://127.0.0.1:{port}/mcp") as client:
            result = await client.call_tool("ck3_dir", {"command": "pwd"})
    finally:
        server.terminate()
        server.wait(timeout=20)

    assert result.structured_content["code"] == "MCP-CFG-S-001"
    assert result.structured_content["data"]["address"] == "ROOT_REPO:/"
