"""A server killed with SIGKILL leaves the rows of its last replies unwritten (they follow the reply); the
next server to start on the state directory records those calls as a gap row of its own, so `ck3raven
audit --verify` passes after any crash (before that start too: while the chain holds, the calls of a
server that no longer runs are a crash's gap), and every contract opened or closed is in the audit (its
row was written with the decision, before the reply)."""

import json
import signal
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.stdio import CK3RAVEN, write_config
from tests.worlds import small_git_repo

pytestmark = pytest.mark.e2e
TRIALS = 3
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


def open_call(name: str) -> dict[str, Any]:
    target = {"path": f"ROOT_REPO:/src/{name}.txt", "edit_kind": "add"}
    return {
        "command": "open",
        "root_category": "ROOT_REPO",
        "intent": "Add a file",
        "work_declaration": "One file",
        "operations": ["WRITE"],
        "targets": [target],
    }


class Server:
    """`ck3raven serve` over stdio, spoken to in raw JSON-RPC: calls sent together, answers read back."""

    def __init__(self, config: Path) -> None:
        self.process = subprocess.Popen(
            [CK3RAVEN, "serve", "--config", str(config)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            cwd=config.parent,
        )
        self.number = 0
        self.early: dict[int, dict[str, Any]] = {}  # answers read while waiting for another
        self.send(HELLO)
        self.answer(0)
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(message).encode() + b"\n")
        self.process.stdin.flush()

    def answer(self, number: int) -> dict[str, Any]:
        assert self.process.stdout is not None
        while number not in self.early:
            message: dict[str, Any] = json.loads(self.process.stdout.readline())
            if isinstance(message.get("id"), int):
                self.early[message["id"]] = message
        return self.early.pop(number)

    def calls(self, *calls: tuple[str, dict[str, Any]]) -> list[dict[str, Any]]:
        """Send `calls` (tool, arguments) at once, then read each one's envelope."""
        numbers = []
        for tool, arguments in calls:
            self.number += 1
            numbers.append(self.number)
            params = {"name": tool, "arguments": arguments}
            self.send({"jsonrpc": "2.0", "id": self.number, "method": "tools/call", "params": params})
        return [self.answer(number)["result"]["structuredContent"] for number in numbers]

    def kill(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        self.stop()

    def stop(self) -> None:
        for stream in (self.process.stdin, self.process.stdout):
            if stream is not None:
                stream.close()
        self.process.wait(timeout=60)


def verify(config: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [CK3RAVEN, "audit", "--config", str(config), "--verify"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_after_servers_killed_mid_work_the_next_start_records_their_gaps_and_verify_passes(tmp_path: Path):
    repo, data = small_git_repo(tmp_path)
    config = write_config(tmp_path, roots={"ROOT_REPO": repo, "ROOT_CK3RAVEN_DATA": data})
    ended: list[str] = []
    for trial in range(TRIALS):
        server = Server(config)
        name = f"file{trial}"
        write = {"command": "write", "path": f"ROOT_REPO:/src/{name}.txt", "content": "hello\n"}
        pwd = ("ck3_dir", {"command": "pwd"})
        (opened,) = server.calls(("ck3_contract", open_call(name)))
        # replies whose rows wait to be written, and a write whose row is written before its reply; the
        # close goes after the write has answered, since calls sent together may run in any order
        answered = server.calls(pwd, pwd, pwd, ("ck3_file", write))
        answered += server.calls(("ck3_contract", {"command": "close"}))
        server.kill()
        assert [a["code"] for a in answered[3:]] == ["WA-WRITE-S-001", "CT-GATE-S-002"]
        ended.append(opened["data"]["contract_id"])
    early = verify(config)  # no server runs: what the killed ones left unwritten is a crash's gap
    Server(config).stop()  # the next server to start records what the killed ones left unwritten

    checked = verify(config)
    listed = subprocess.run(
        [CK3RAVEN, "audit", "--config", str(config), "--json"], capture_output=True, text=True, check=True
    )

    assert early.returncode == 0, early.stdout
    assert (checked.returncode, checked.stdout) == (0, checked.stdout), checked.stdout
    rows = json.loads(listed.stdout)
    decided = {(row["contract_id"], row["command"]) for row in rows if row["tool"] == "ck3_contract"}
    assert {(contract_id, "open") for contract_id in ended} <= decided
    assert {(contract_id, "close") for contract_id in ended} <= decided
