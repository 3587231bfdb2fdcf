"""A stdio server ends when its input ends, whatever its stderr does: a client that never reads the server's
stderr (its pipe full) still sees the server exit once it closes the server's input. A server the kernel
ends (its state database's index truncated under it) says so in its log."""

import fcntl
import json
import os
import signal
import subprocess
from pathlib import Path

import pytest

from tests.e2e.stdio import CK3RAVEN, write_config

pytestmark = pytest.mark.e2e
F_SETPIPE_SZ = getattr(fcntl, "F_SETPIPE_SZ", 1031)


def messages(calls: int) -> bytes:
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
    sent = [hello, {"jsonrpc": "2.0", "method": "notifications/initialized"}]
    sent += [
        {
            "jsonrpc": "2.0",
            "id": n,
            "method": "tools/call",
            "params": {"name": "ck3_dir", "arguments": {"command": "pwd"}},
        }
        for n in range(1, calls + 1)
    ]
    return b"".join(json.dumps(message).encode() + b"\n" for message in sent)


def test_a_server_whose_stderr_is_never_read_exits_when_its_input_ends(tmp_path: Path):
    (tmp_path / "repo").mkdir()
    config = write_config(tmp_path, roots={"ROOT_REPO": tmp_path / "repo"})
    server = subprocess.Popen(
        [CK3RAVEN, "serve", "--config", str(config)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=tmp_path,
    )
    assert server.stdin is not None
    assert server.stdout is not None
    assert server.stderr is not None
    fcntl.fcntl(server.stderr.fileno(), F_SETPIPE_SZ, 4096)  # one page: a few log lines fill it
    server.stdin.write(messages(40))
    server.stdin.close()
    answered = server.stdout.read()  # every answer, until the server closes its output

    status = server.wait(timeout=60)

    server.stdout.close()
    server.stderr.close()
    logged = (tmp_path / "state" / "logs" / "ck3raven.log").read_text()
    assert status == 0
    assert answered.count(b'"MCP-CFG-S-001"') == 40  # every call answered
    assert '"server.stopped"' in logged  # the log file's lines never wait behind stderr


def _request(number: int) -> bytes:
    call = {"name": "ck3_dir", "arguments": {"command": "pwd"}}
    return (
        json.dumps({"jsonrpc": "2.0", "id": number, "method": "tools/call", "params": call}).encode() + b"\n"
    )


def test_a_shared_memory_index_truncated_while_serving_ends_the_server_with_a_log_line(tmp_path: Path):
    (tmp_path / "repo").mkdir()
    config = write_config(tmp_path, roots={"ROOT_REPO": tmp_path / "repo"})
    server = subprocess.Popen(
        [CK3RAVEN, "serve", "--config", str(config)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        cwd=tmp_path,
    )
    assert server.stdin is not None
    assert server.stdout is not None
    server.stdin.write(messages(1))
    server.stdin.flush()
    while b'"id":1' not in server.stdout.readline().replace(b" ", b""):
        pass  # the first call answered: its audit row went through the index
    os.truncate(tmp_path / "state" / "ck3raven.db-shm", 0)
    server.stdin.write(_request(2))
    server.stdin.close()

    status = server.wait(timeout=60)

    server.stdout.close()
    logged = (tmp_path / "state" / "logs" / "ck3raven.log").read_text()
    assert status == -signal.SIGBUS
    assert "Fatal Python error: Bus error" in logged
