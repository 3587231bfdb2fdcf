"""Abandoned HTTP sessions are freed: an MCP session without a request for `[http] session_idle_minutes`
is closed, so a client that opens sessions and never ends them leaves the server holding none of them and
its memory where it was."""

import http.client
import json
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.e2e.stdio import CK3RAVEN, write_config
from tests.e2e.test_http_server import free_port, wait_for

pytestmark = pytest.mark.e2e
ROUND = 500
IDLE_SECONDS = 3
ASKED = 10
"""Times the newest session is asked whether it closed, at most (each time after it idled long enough)."""
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
PING = {"jsonrpc": "2.0", "id": 2, "method": "ping"}


class Door:
    """Raw requests to the server's /mcp, on one kept-alive connection."""

    def __init__(self, port: int, token: str) -> None:
        self._connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        self._headers = {
            "Authorization": f"Bearer {token}",
            "Accept": "application/json, text/event-stream",
            "Content-Type": "application/json",
        }

    def post(self, body: dict[str, object], session: str | None = None) -> tuple[int, str | None, bytes]:
        headers = {**self._headers, **({"Mcp-Session-Id": session} if session else {})}
        self._connection.request("POST", "/mcp", body=json.dumps(body), headers=headers)
        answer = self._connection.getresponse()
        return answer.status, answer.getheader("mcp-session-id"), answer.read()

    def opened(self) -> str:
        status, session, _ = self.post(INITIALIZE)
        assert status == 200
        assert session is not None
        return session

    def close(self) -> None:
        self._connection.close()


def opened_many(port: int, token: str, count: int, clients: int = 4) -> list[str]:
    """`count` sessions opened and abandoned, by `clients` clients at once."""

    def some(share: int) -> list[str]:
        door = Door(port, token)
        try:
            return [door.opened() for _ in range(share)]
        finally:
            door.close()

    shares = [count // clients + (n < count % clients) for n in range(clients)]
    with ThreadPoolExecutor(clients) as pool:
        return [session for found in pool.map(some, shares) for session in found]


def closed(door: Door, session: str) -> bool:
    """Whether `session` is closed, asked once it was idle longer than the idle limit (asking a live one
    makes it active again: then it is asked again, once idle that long once more)."""
    time.sleep(IDLE_SECONDS * 1.5)
    return door.post(PING, session)[0] == 404


def peak_rss(pid: int) -> int:
    """The process's peak resident set (VmHWM) in kB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    raise AssertionError("no VmHWM")


def test_abandoned_sessions_expire_and_a_second_round_does_not_grow_the_server(tmp_path: Path):
    (tmp_path / "repo").mkdir()
    config = write_config(tmp_path, roots={"ROOT_REPO": tmp_path / "repo"})
    with config.open("a") as text:
        text.write(f"[http]\nsession_idle_minutes = {IDLE_SECONDS / 60}\nmax_sessions = {2 * ROUND}\n")
    port = free_port()
    server = subprocess.Popen(
        [CK3RAVEN, "serve", "--config", str(config), "--transport", "http", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for(port)
        token = (tmp_path / "state" / "http_token").read_text().strip()
        door = Door(port, token)
        first = opened_many(port, token, ROUND)
        peak = peak_rss(server.pid)
        for _ in range(ASKED):  # the newest: the others, older and untouched, closed before it
            if closed(door, first[-1]):
                break
        held = sum(door.post(PING, session)[0] != 404 for session in first)
        opened_many(port, token, ROUND)
        grown = peak_rss(server.pid)
        door.close()
    finally:
        server.terminate()
        server.wait(timeout=30)

    assert held == 0
    assert grown < peak * 1.1
