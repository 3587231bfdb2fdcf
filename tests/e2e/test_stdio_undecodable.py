"""Every request over stdio gets exactly one answer, one the SDK's reader cannot decode too: a string
escaping a lone UTF-16 surrogate (valid JSON to Python, not to pydantic) is answered with a JSON-RPC
error under the request's id, never repeating the line, and the server goes on answering."""

import json
import subprocess
from pathlib import Path

import pytest

from tests.e2e.stdio import CK3RAVEN, write_config

pytestmark = pytest.mark.e2e
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


def _call(number: int, arguments: str) -> bytes:
    """A tools/call line whose arguments are the JSON text `arguments`, as written by hand."""
    return (
        f'{{"jsonrpc": "2.0", "id": {number}, "method": "tools/call", '
        f'"params": {{"name": "ck3_dir", "arguments": {arguments}}}}}\n'
    ).encode()


def test_a_request_with_a_lone_surrogate_gets_a_json_rpc_error_and_the_next_request_its_reply(tmp_path: Path):
    (tmp_path / "repo").mkdir()
    config = write_config(tmp_path, roots={"ROOT_REPO": tmp_path / "repo"})
    sent = json.dumps(HELLO).encode() + b"\n"
    sent += b'{"jsonrpc": "2.0", "method": "notifications/initialized"}\n'
    sent += _call(5, '{"command": "list", "path": "\\ud800"}')
    sent += b'{"jsonrpc": "2.0", "id": "\\udfff", "method": "ping"}\n'
    sent += _call(6, '{"command": "pwd"}')

    done = subprocess.run(
        [CK3RAVEN, "serve", "--config", str(config)],
        input=sent,
        capture_output=True,
        cwd=tmp_path,
        timeout=120,
        check=False,
    )

    answers = [json.loads(line) for line in done.stdout.splitlines()]
    by_id = {answer.get("id"): answer for answer in answers}
    assert done.returncode == 0
    assert by_id[5]["error"]["code"] == -32700
    assert by_id[None]["error"]["code"] == -32700  # an id that cannot be written back: JSON-RPC's null
    assert "ud800" not in done.stdout.decode()
    assert "\ufffd" not in done.stdout.decode()
    assert by_id[6]["result"]["structuredContent"]["code"] == "MCP-CFG-S-001"
    assert len(answers) == 4  # initialize, the two errors, the call
