"""`ck3raven serve --transport http` with no [http] settings (SPEC §10): it listens on loopback only, and
makes its bearer token at start, keeps it in the state directory and shows it to the operator."""

import subprocess
from pathlib import Path

import pytest

from tests.e2e.stdio import CK3RAVEN, write_config
from tests.e2e.test_http_server import free_port, wait_for

pytestmark = pytest.mark.e2e
LISTEN = "0A"


def listening_addresses(port: int) -> set[str]:
    """The local addresses (hex, as the kernel lists them) of the TCP sockets listening on `port`."""
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for row in Path(table).read_text(encoding="ascii").splitlines()[1:]:
            local, state = row.split()[1], row.split()[3]
            address, _, hex_port = local.partition(":")
            if int(hex_port, 16) == port and state == LISTEN:
                found.add(address)
    return found


LOOPBACK = {"0100007F", "00000000000000000000000001000000"}
"""127.0.0.1 and ::1 as /proc/net lists them."""


def test_an_http_server_with_no_http_settings_listens_on_loopback_only_and_shows_the_token_it_made(
    tmp_path: Path,
):
    (tmp_path / "repo").mkdir()
    config = write_config(tmp_path, roots={"ROOT_REPO": tmp_path / "repo"})
    port, shown = free_port(), tmp_path / "stderr.txt"
    with shown.open("wb") as stderr:
        command = [CK3RAVEN, "serve", "--config", str(config), "--transport", "http", "--port", str(port)]
        server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=stderr, cwd=tmp_path)
        try:
            wait_for(port)
            addresses = listening_addresses(port)
            token = (tmp_path / "state" / "http_token").read_text(encoding="utf-8").strip()
        finally:
            server.terminate()
            server.wait(timeout=20)
    told = shown.read_text(encoding="utf-8")

    assert addresses
    assert addresses <= LOOPBACK
    assert len(token) >= 32
    assert f"MCP over HTTP at http://127.0.0.1:{port}/mcp" in told
    assert f"`Authorization: Bearer {token}`" in told
