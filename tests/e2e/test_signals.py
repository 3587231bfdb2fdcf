"""SIGINT and SIGTERM end a stdio server whose client still holds its input open, as the MCP stdio shutdown
sequence (close stdin, then SIGTERM, then SIGKILL) and Ctrl-C in a terminal expect: what is in flight is
settled as a crash would be, and the server's socket and lock are removed. An HTTP server ends on them too,
its log's last lines written."""

import json
import signal
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.stdio import CK3RAVEN, write_config
from tests.e2e.test_http_server import free_port, start
from tests.worlds import small_git_repo

pytestmark = pytest.mark.e2e

OPEN = {
    "command": "open",
    "root_category": "ROOT_REPO",
    "intent": "Fix a",
    "work_declaration": "Edit a",
    "operations": ["WRITE"],
    "targets": [{"path": "ROOT_REPO:/src/a.py", "edit_kind": "modify"}],
}
HELLO = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    },
}


def _send(server: subprocess.Popen[bytes], message: dict[str, Any]) -> None:
    assert server.stdin is not None
    server.stdin.write(json.dumps(message).encode() + b"\n")
    server.stdin.flush()


def _answer(server: subprocess.Popen[bytes], number: int) -> dict[str, Any]:
    assert server.stdout is not None
    while True:
        message: dict[str, Any] = json.loads(server.stdout.readline())
        if message.get("id") == number:
            return message


def _call(server: subprocess.Popen[bytes], number: int, arguments: dict[str, Any]) -> dict[str, Any]:
    call = {"name": "ck3_contract", "arguments": arguments}
    _send(server, {"jsonrpc": "2.0", "id": number, "method": "tools/call", "params": call})
    answer: dict[str, Any] = _answer(server, number)["result"]["structuredContent"]
    return answer


def _serving(config: Path) -> subprocess.Popen[bytes]:
    server = subprocess.Popen(
        [CK3RAVEN, "serve", "--config", str(config)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        cwd=config.parent,
    )
    _send(server, HELLO)
    _answer(server, 0)
    _send(server, {"jsonrpc": "2.0", "method": "notifications/initialized"})
    return server


def _closed(server: subprocess.Popen[bytes]) -> None:
    for stream in (server.stdin, server.stdout):
        if stream is not None:
            stream.close()


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_signal_ends_a_server_whose_input_is_open_and_removes_its_socket_and_lock(
    tmp_path: Path, signum: signal.Signals
):
    repo, data = small_git_repo(tmp_path)
    config = write_config(tmp_path, roots={"ROOT_REPO": repo, "ROOT_CK3RAVEN_DATA": data})
    server = _serving(config)
    opened = _call(server, 1, OPEN)

    server.send_signal(signum)
    try:
        status = server.wait(timeout=60)  # a bound on the test: a server that ignores the signal never ends
    finally:
        server.kill()
        _closed(server)

    state = tmp_path / "state"
    logged = [json.loads(line) for line in (state / "logs" / "ck3raven.log").read_text().splitlines()]
    assert opened["code"] == "CT-GATE-S-001"
    assert status == 0
    assert list((state / "servers").iterdir()) == []
    assert any(line.get("event") == "audit.anchor" and line.get("moment") == "stop" for line in logged)
    assert [line.get("signal") for line in logged if line.get("event") == "server.stopped"] == [signum.name]


def test_a_server_started_after_a_signal_ended_one_finds_its_contract_renewable(tmp_path: Path):
    repo, data = small_git_repo(tmp_path)
    config = write_config(tmp_path, roots={"ROOT_REPO": repo, "ROOT_CK3RAVEN_DATA": data})
    server = _serving(config)
    opened = _call(server, 1, OPEN)
    server.send_signal(signal.SIGTERM)
    server.wait(timeout=60)
    _closed(server)
    again = _serving(config)

    renewed = _call(again, 1, {"command": "renew", "contract_id": opened["data"]["contract_id"]})

    again.kill()
    again.wait(timeout=60)
    _closed(again)
    assert renewed["data"]["renewed_from"] == opened["data"]["contract_id"]


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_signal_ends_an_http_server_with_its_stop_anchor_and_its_reason_in_the_log(
    tmp_path: Path, signum: signal.Signals
):
    (tmp_path / "repo").mkdir()
    config = write_config(tmp_path, roots={"ROOT_REPO": tmp_path / "repo"})
    server = start(config, free_port())

    server.send_signal(signum)
    try:
        status = server.wait(timeout=60)
    finally:
        server.kill()

    state = tmp_path / "state"
    logged = [json.loads(line) for line in (state / "logs" / "ck3raven.log").read_text().splitlines()]
    assert status == 0
    assert list((state / "servers").iterdir()) == []
    assert not (state / "http_token").exists()
    assert any(line.get("event") == "audit.anchor" and line.get("moment") == "stop" for line in logged)
    assert [line.get("signal") for line in logged if line.get("event") == "server.stopped"] == [signum.name]
