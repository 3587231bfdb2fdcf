"""Peak memory of an HTTP server when contracts open together: a fresh server whose only call is one
`ck3_contract open`, beside a fresh server where eight HTTP sessions each open one at once (each session is
its own governance session, so each open is its own). The figure is the server's VmHWM once the opens
are answered; the linter's identity (ruff's version and executable digest) is worked out at the first
open of either.

    python bench/contract_opens.py [--sessions 8]
"""

import argparse
import asyncio
import json
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from dulwich import porcelain
from fastmcp import Client
from fastmcp.client.transports import StreamableHttpTransport

CK3RAVEN = str(Path(sys.executable).with_name("ck3raven"))
OPEN = {
    "command": "open",
    "root_category": "ROOT_REPO",
    "intent": "Fix a",
    "work_declaration": "Edit a",
    "operations": ["WRITE"],
    "targets": [{"path": "ROOT_REPO:/src/a.py", "edit_kind": "modify"}],
}


def _world(base: Path) -> Path:
    repo = base / "repo"
    (repo / "src").mkdir(parents=True)
    (repo / "src" / "a.py").write_text("a = 1\n", encoding="utf-8")
    porcelain.init(str(repo))
    porcelain.add(str(repo), paths=[str(repo / "src" / "a.py")])
    porcelain.commit(str(repo), message=b"first", author=b"T <t@x>", committer=b"T <t@x>")
    config = base / "config.toml"
    lines = ['mode = "ck3raven-dev"', 'home = "ROOT_REPO"', f"state_dir = {json.dumps(str(base / 'state'))}"]
    lines += ["[roots]", f"ROOT_REPO = {json.dumps(str(repo))}", "[http]", "max_sessions = 64"]
    config.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return config


def _port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _peak_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmHWM")


async def _opens(url: str, token: str, sessions: int) -> None:
    async def one() -> None:
        transport = StreamableHttpTransport(url, headers={"Authorization": f"Bearer {token}"})
        async with Client(transport) as client:
            await client.call_tool("ck3_contract", OPEN)

    await asyncio.gather(*(one() for _ in range(sessions)))


def peak_after(sessions: int) -> float:
    """The server's peak resident set, in MiB, once `sessions` sessions each opened a contract at once."""
    with tempfile.TemporaryDirectory(prefix="ck3b", dir="/tmp") as folder:
        config, port = _world(Path(folder)), _port()
        server = subprocess.Popen(
            [CK3RAVEN, "serve", "--config", str(config), "--transport", "http", "--port", str(port)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            token_file = Path(folder) / "state" / "http_token"
            while not token_file.exists():
                time.sleep(0.1)
            time.sleep(1.0)  # listening once the token is written and the app is up
            asyncio.run(_opens(f"http://127.0.0.1:{port}/mcp", token_file.read_text().strip(), sessions))
            return _peak_mib(server.pid)
        finally:
            server.terminate()
            server.wait(timeout=30)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sessions", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    single = [peak_after(1) for _ in range(args.rounds)]
    together = [peak_after(args.sessions) for _ in range(args.rounds)]
    one, many = max(single), max(together)
    print(
        f"one open: peak {one:.0f} MiB; {args.sessions} opens at once: "
        f"peak {many:.0f} MiB ({many / one:.2f}x)"
    )


if __name__ == "__main__":
    main()
