"""`ck3raven serve --transport http`: loopback, Host and Origin checked first (403), a bearer token (401),
the same envelope; the port is bound before anything is printed, and only the port is exclusive."""

import http.client
import json
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest
from mcp import Client
from mcp.client.streamable_http import create_mcp_http_client, streamable_http_client

from tests.e2e.stdio import CK3RAVEN, envelope, on_terminal, write_config
from tests.worlds import sample_world_on_disk

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


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[int, str, Path]]:
    """A running HTTP server: its port, its bearer token and its config."""
    (tmp_path / "repo").mkdir()
    config = write_config(tmp_path, roots={"ROOT_REPO": tmp_path / "repo"})
    port = free_port()
    server = start(config, port)
    try:
        yield port, (tmp_path / "state" / "http_token").read_text(encoding="utf-8").strip(), config
    finally:
        server.terminate()
        server.wait(timeout=20)


INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    },
}


def post(port: int, headers: dict[str, str]) -> tuple[int, dict[str, str]]:
    """POST an MCP initialize to /mcp with exactly these extra headers; (status, response headers)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
    try:
        connection.putrequest("POST", "/mcp", skip_host=True)
        sent = {
            "Host": f"127.0.0.1:{port}",
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            **headers,
        }
        body = json.dumps(INITIALIZE).encode()
        for name, value in {**sent, "Content-Length": str(len(body))}.items():
            connection.putheader(name, value)
        connection.endheaders(body)
        response = connection.getresponse()
        response.read()
        return response.status, {k.lower(): v for k, v in response.getheaders()}
    finally:
        connection.close()


async def test_pwd_over_http_with_the_operators_token_answers_the_envelope(served):
    port, token, _ = served
    http = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})
    async with (
        http,
        Client(streamable_http_client(f"http://127.0.0.1:{port}/mcp", http_client=http)) as client,
    ):
        result = await client.call_tool("ck3_dir", {"command": "pwd"})

    assert result.structured_content["code"] == "MCP-CFG-S-001"
    assert result.structured_content["data"]["address"] == "ROOT_REPO:/"


def test_a_request_without_the_bearer_token_gets_401(served):
    port, _, _ = served

    status, headers = post(port, {})

    assert status == 401
    assert "mcp-session-id" not in headers


def test_a_wrong_bearer_token_gets_401(served):
    port, token, _ = served

    status, _ = post(port, {"Authorization": f"Bearer {token[:-1]}x"})

    assert status == 401


@pytest.mark.parametrize(
    "forged",
    [
        {"Host": "rebound.example.com"},
        {"Host": "rebound.example.com:8765"},
        {"Origin": "http://rebound.example.com"},
        {"Origin": "null"},
        {"Host": "rebound.example.com@127.0.0.1"},
        {"Origin": "http://rebound.example.com@localhost"},
    ],
)
def test_a_forged_host_or_origin_gets_403_and_no_session_even_with_the_token(served, forged):
    port, token, _ = served

    status, headers = post(port, {"Authorization": f"Bearer {token}", **forged})

    assert status == 403
    assert "mcp-session-id" not in headers


def test_a_loopback_origin_with_the_token_is_admitted(served):
    port, token, _ = served

    status, _ = post(port, {"Authorization": f"Bearer {token}", "Origin": f"http://localhost:{port}"})

    assert status == 200


def test_the_token_file_is_readable_by_its_owner_only(served, tmp_path: Path):
    assert (tmp_path / "state" / "http_token").stat().st_mode & 0o077 == 0


def test_a_second_server_on_the_same_port_exits_2_in_one_line_before_printing_an_endpoint(served):
    port, token, config = served

    second = subprocess.run(
        [CK3RAVEN, "serve", "--config", str(config), "--transport", "http", "--port", str(port)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        stdin=subprocess.DEVNULL,
        cwd=config.parent,
    )

    assert second.returncode == 2
    assert second.stderr.strip() == f"ck3raven: cannot listen on 127.0.0.1:{port} (in use)"
    assert token not in second.stderr


@pytest.mark.parametrize("port", ["99999", "-1"])
def test_a_port_out_of_range_exits_2_in_one_line(tmp_path: Path, port: str):
    (tmp_path / "repo").mkdir()
    config = write_config(tmp_path, roots={"ROOT_REPO": tmp_path / "repo"})

    ended = subprocess.run(
        [CK3RAVEN, "serve", "--config", str(config), "--transport", "http", "--port", port],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        stdin=subprocess.DEVNULL,
    )

    assert ended.returncode == 2
    assert ended.stderr.strip() == f"ck3raven: port {port} is not a port (1 to 65535)"


@pytest.fixture
def lens_over_http() -> Iterator[tuple[str, str, Path]]:
    """The sample world in ck3lens served over HTTP from a short base (the approval socket lives there)."""
    base = Path(tempfile.mkdtemp(prefix="ck3h", dir="/tmp"))
    settings = sample_world_on_disk(base)
    roots = {r.value: p for r, p in settings.roots.items()}
    config = write_config(base, mode="ck3lens", roots=roots, playset="Sample Playset")
    port = free_port()
    server = start(config, port)
    try:
        token = (base / "state" / "http_token").read_text(encoding="utf-8").strip()
        yield f"http://127.0.0.1:{port}/mcp", token, config
    finally:
        server.terminate()
        server.wait(timeout=20)
        shutil.rmtree(base, ignore_errors=True)


def approving_human():
    from mcp.types import ElicitResult

    async def callback(context, params):
        return ElicitResult(action="accept", content={"approve": True})

    return callback


async def test_two_http_clients_one_approving_in_its_ui_and_one_on_the_terminal_each_get_their_own_mode(
    lens_over_http,
):
    url, token, config = lens_over_http
    http_a = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})
    http_b = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})
    init = {"command": "init", "mode": "ck3raven-dev"}
    async with (
        http_a,
        http_b,
        Client(
            streamable_http_client(url, http_client=http_a),
            mode="legacy",
            elicitation_callback=approving_human(),
        ) as ui,
        Client(streamable_http_client(url, http_client=http_b), mode="legacy") as terminal,
    ):
        by_ui = envelope(await ui.call_tool("ck3_mode", init))
        asked = envelope(await terminal.call_tool("ck3_mode", init))
        still = envelope(await terminal.call_tool("ck3_mode", {"command": "status"}))
        status, _ = await anyio.to_thread.run_sync(
            on_terminal, config, "approve", str(asked["data"]["approval_id"]), b"approve\n"
        )
        by_terminal = envelope(await terminal.call_tool("ck3_mode", init))

    assert by_ui["code"] == "MCP-CFG-S-005"
    assert (asked["code"], still["data"]["mode"]) == ("MCP-CFG-I-002", "ck3lens")
    assert status == 0
    assert by_terminal["code"] == "MCP-CFG-S-005"


def served_pid(config: Path) -> str:
    (lock,) = (config.parent / "state" / "servers").glob("*.lock")
    return lock.stem


def test_doctor_names_the_running_server_and_shows_the_http_token(served):
    port, token, config = served

    shown = subprocess.run(
        [CK3RAVEN, "doctor", "--config", str(config)], capture_output=True, text=True, timeout=60, check=True
    ).stdout

    assert f"1 server(s) run on it: pid {served_pid(config)} (http 127.0.0.1:{port})" in shown
    assert f"http token: {token}" in shown


async def test_a_2026_http_client_approving_in_its_ui_opens_the_protected_contract_in_that_call(
    lens_over_http,
):
    url, token, _ = lens_over_http
    http = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})
    request = {
        "command": "open",
        "root_category": "ROOT_USER_DOCS",
        "intent": "Editor tasks",
        "work_declaration": "Edit one file",
        "operations": ["WRITE"],
        "targets": [{"path": "mod:Local Fix:/.vscode/tasks.json", "edit_kind": "add"}],
    }
    async with (
        http,
        Client(streamable_http_client(url, http_client=http), elicitation_callback=approving_human()) as c,
    ):
        opened = envelope(await c.call_tool("ck3_contract", request))

    assert opened["code"] == "CT-GATE-S-001"


def test_a_terminated_http_server_removes_its_socket_and_token_and_frees_its_lock(tmp_path: Path):
    short = Path(tempfile.mkdtemp(prefix="ck3t", dir="/tmp"))
    try:
        (short / "repo").mkdir()
        config = write_config(short, roots={"ROOT_REPO": short / "repo"})
        port = free_port()
        server = start(config, port)
        state = short / "state"
        running = len(list((state / "servers").glob("*.sock"))), (state / "http_token").exists()
        server.terminate()
        status = server.wait(timeout=20)
        shown = subprocess.run(
            [CK3RAVEN, "doctor", "--config", str(config)],
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        ).stdout

        assert running == (1, True)
        assert status == 0
        assert list((state / "servers").iterdir()) == []
        assert not (state / "http_token").exists()
        assert "no server runs on this state directory" in shown
    finally:
        shutil.rmtree(short, ignore_errors=True)


def test_an_existing_token_file_with_a_loose_mode_is_replaced_by_a_private_one(tmp_path: Path):
    from adapters.http_door import new_token

    path = tmp_path / "state" / "http_token"
    path.parent.mkdir()
    path.write_text("old\n", encoding="utf-8")
    path.chmod(0o644)

    token = new_token(path)

    assert path.read_text(encoding="utf-8").strip() == token
    assert path.stat().st_mode & 0o077 == 0
