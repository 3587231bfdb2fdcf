"""kill -9 servers at random points while they open contracts, write and close on one state directory (two
servers at a time, each spoken to over stdio), then start the next server there and check the audit:
`ck3raven audit --verify` exits 0 after every kill, before the next server starts (the calls the killed
ones left without a row are a crash's gap while the chain holds) and after (the starting server records
them as a row), and every open and close a client saw acknowledged is in the audit under its
contract (its row is written with the decision, before the reply). Trials are set with --trials (at least
50 for the figures).
"""

import argparse
import json
import random
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import IO, Any

CHECKOUT = Path(__file__).resolve().parent.parent
GIT = shutil.which("git") or "git"
CK3RAVEN = str(Path(sys.executable).with_name("ck3raven"))
HELLO = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "b", "version": "1"},
    },
}


class Server:
    """One `ck3raven serve` over stdio: calls sent at once, some of their answers read, then killed."""

    def __init__(self, config: Path) -> None:
        self.process = subprocess.Popen(
            [CK3RAVEN, "serve", "--config", str(config)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            cwd=config.parent,
        )
        self.number = 0
        self.unread: list[int] = []
        self._early: dict[int, dict[str, Any]] = {}  # answers read while waiting for another
        self._send(HELLO)
        self._answer(0)
        self._send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def _send(self, message: dict[str, Any]) -> None:
        stdin: IO[bytes] | None = self.process.stdin
        assert stdin is not None
        stdin.write(json.dumps(message).encode() + b"\n")
        stdin.flush()

    def _answer(self, number: int) -> dict[str, Any]:
        stdout: IO[bytes] | None = self.process.stdout
        assert stdout is not None
        while number not in self._early:
            line = stdout.readline()
            if not line:
                raise EOFError
            message: dict[str, Any] = json.loads(line)
            if isinstance(message.get("id"), int):
                self._early[message["id"]] = message
        return self._early.pop(number)

    def calls(self, calls: list[tuple[str, dict[str, Any]]], read: int) -> list[dict[str, Any]]:
        """Send `calls` at once and read the envelopes of the first `read` of them."""
        numbers = []
        for tool, arguments in calls:
            self.number += 1
            numbers.append(self.number)
            params = {"name": tool, "arguments": arguments}
            self._send({"jsonrpc": "2.0", "id": self.number, "method": "tools/call", "params": params})
        self.unread = numbers[read:]
        return [self._answer(n)["result"]["structuredContent"] for n in numbers[:read]]

    def end(self, *, kill: bool) -> None:
        if kill:
            self.process.send_signal(signal.SIGKILL)
        else:  # an orderly end: every answer read first (a server never writes to a reader gone)
            for number in self.unread:
                self._answer(number)
        for stream in (self.process.stdin, self.process.stdout):
            if stream is not None:
                stream.close()
        self.process.wait(timeout=60)


def work(name: str) -> list[tuple[str, dict[str, Any]]]:
    path = f"ROOT_REPO:/src/{name}.txt"
    opening = {
        "command": "open",
        "root_category": "ROOT_REPO",
        "intent": "Add a file",
        "work_declaration": "One file",
        "operations": ["WRITE"],
        "targets": [{"path": path, "edit_kind": "add"}],
    }
    writes = [("ck3_file", {"command": "write", "path": path, "content": f"{n}\n"}) for n in range(3)]
    return [
        ("ck3_contract", opening),
        ("ck3_dir", {"command": "pwd"}),
        *writes,
        ("ck3_contract", {"command": "close"}),
    ]


def world(base: Path) -> Path:
    repo = base / "repo"
    (repo / "src").mkdir(parents=True)
    (repo / "src" / "a.txt").write_text("a\n", encoding="utf-8")
    for argv in (["init", "-q"], ["add", "."], ["commit", "-q", "-m", "first"]):
        subprocess.run([GIT, "-c", "user.name=b", "-c", "user.email=b@b", *argv], cwd=repo, check=True)
    config = base / "config.toml"
    config.write_text(
        f'mode = "ck3raven-dev"\nhome = "ROOT_REPO"\nstate_dir = {json.dumps(str(base / "state"))}\n'
        f"[roots]\nROOT_REPO = {json.dumps(str(repo))}\n",
        encoding="utf-8",
    )
    return config


def audited(config: Path) -> tuple[int, set[tuple[str, str]]]:
    """`audit --verify`'s exit status, and the (contract, command) of every contract call in the audit."""
    verify = subprocess.run(
        [CK3RAVEN, "audit", "--config", str(config), "--verify"], capture_output=True, check=False
    )
    listed = subprocess.run(
        [CK3RAVEN, "audit", "--config", str(config), "--json"], capture_output=True, check=False
    )
    rows = json.loads(listed.stdout or b"[]")
    return verify.returncode, {(r["contract_id"], r["command"]) for r in rows if r["tool"] == "ck3_contract"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--trials", type=int, default=50)
    args = parser.parse_args()
    rng = random.Random(55)
    failed, seen = 0, 0
    with tempfile.TemporaryDirectory() as folder:
        config = world(Path(folder))
        for trial in range(args.trials):
            servers = [Server(config), Server(config)]
            acknowledged: set[tuple[str, str]] = set()
            for index, server in enumerate(servers):
                calls = work(f"t{trial}s{index}")
                answered = server.calls(calls, rng.randint(1, len(calls)))
                contract = answered[0]["data"].get("contract_id")
                acknowledged |= {(contract, "open")} if answered[0]["code"] == "CT-GATE-S-001" else set()
                if len(answered) == len(calls) and answered[-1]["code"] == "CT-GATE-S-002":
                    acknowledged.add((contract, "close"))
            victim = rng.randrange(2)
            servers[victim].end(kill=True)
            servers[1 - victim].end(kill=rng.random() < 0.5)
            before, _ = audited(config)  # no server runs: the killed ones' gaps are a crash's, not failures
            Server(config).end(kill=False)  # the next start records what the killed ones left unwritten
            status, decided = audited(config)
            missing = acknowledged - decided
            seen += len(acknowledged)
            if before or status or missing:
                failed += 1
                print(
                    f"trial {trial}: verify exit {before} before the next start, {status} after; "
                    f"acknowledged but not audited: {sorted(missing)}"
                )
    print(f"{'trials':>6} {'verify failed':>14} {'acknowledged opens and closes':>30}")
    print(f"{args.trials:>6} {failed:>14} {seen:>30}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
