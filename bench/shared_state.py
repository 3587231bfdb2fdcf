"""Several `ck3raven serve` processes over stdio on one config (as several clients on one mod, each
starting its own server), at once, each looping open -> three writes -> close on files of its own in the
sample world's local mod; each call is sent once the one before it has answered, as a client does (no
rate limit: each client goes as fast as its server answers).

    python bench/shared_state.py --servers 4 --rounds 6     # the four-server scenario
    python bench/shared_state.py --servers 2 --seconds 60   # free-running

Counts every reply by code and, afterwards, checks what attribution must keep: every open, write and
close S, no open finding carry-over (another server's work taken for its own), no journal entry `failed`
or left `pending` (a live writer's entry settled by another server), and `ck3raven audit --verify`
exiting 0. Exit 1 when any of these fails.
"""

import argparse
import collections
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from kill_audit import CK3RAVEN, Server  # this folder is the script's own: its first import path

EXPECTED = {"open": "CT-GATE-S-001", "write": "WA-WRITE-S-001", "close": "CT-GATE-S-002"}


class Client(Server):
    """One `ck3raven serve` over stdio, each call sent after the one before it answered."""

    def call(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        (envelope,) = self.calls([(tool, arguments)], read=1)
        return envelope

    def stop(self) -> None:
        self.end(kill=False)


def rounds(client: Client, name: str, until: float, most: int, found: list[tuple[str, str, bool]]) -> None:
    """Rounds of open, three writes, close on `name`'s own new file, until `most` rounds or `until`."""
    done = 0
    while done < most and time.monotonic() < until:
        path = f"mod:Local Fix:/common/{name}_{done}.txt"
        opening = {
            "command": "open",
            "root_category": "ROOT_USER_DOCS",
            "intent": "add a file",
            "operations": ["WRITE"],
            "targets": [{"path": path, "edit_kind": "add"}],
            "work_declaration": "one file of its own",
        }
        opened = client.call("ck3_contract", opening)
        found.append(("open", opened["code"], bool((opened.get("data") or {}).get("carry_over"))))
        for write in range(3):
            content = f"{name}_{done}_{write} = 1\n"
            written = client.call("ck3_file", {"command": "write", "path": path, "content": content})
            found.append(("write", written["code"], False))
        closed = client.call("ck3_contract", {"command": "close"})
        found.append(("close", closed["code"], False))
        if closed["code"] != EXPECTED["close"]:
            client.call("ck3_contract", {"command": "cancel"})
        done += 1


def journal_states(state: Path) -> collections.Counter[str]:
    with sqlite3.connect(state / "ck3raven.db") as db:
        rows = db.execute("SELECT json_extract(record, '$.state') FROM journal").fetchall()
    return collections.Counter(str(state) for (state,) in rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--servers", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=0, help="rounds per server (0: until --seconds)")
    parser.add_argument("--seconds", type=float, default=60.0)
    args = parser.parse_args()
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from app.setup import sample

    with tempfile.TemporaryDirectory() as folder:
        config = sample(Path(folder))
        with config.open("a", encoding="utf-8") as text:  # a client at full speed, never paced
            text.write("\n[limits]\nreads_per_minute = 0\nmutations_per_minute = 0\n")
        clients = [Client(config) for _ in range(args.servers)]
        found: dict[int, list[tuple[str, str, bool]]] = {index: [] for index in range(args.servers)}
        most = args.rounds or 1_000_000
        started = time.monotonic()
        until = started + (args.seconds if not args.rounds else 86_400)
        threads = [
            threading.Thread(target=rounds, args=(client, f"s{index}", until, most, found[index]))
            for index, client in enumerate(clients)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        took = time.monotonic() - started
        for client in clients:
            client.stop()
        verify = subprocess.run(
            [CK3RAVEN, "audit", "--config", str(config), "--verify"],
            capture_output=True,
            text=True,
            check=False,
        )
        states = journal_states(Path(folder) / "state")
    replies = [reply for every in found.values() for reply in every]
    failed = 0
    print(f"{args.servers} servers, {took:.0f} s; load average {' '.join(f'{x:.1f}' for x in _load())}")
    for kind, code in EXPECTED.items():
        codes = collections.Counter(c for k, c, _ in replies if k == kind)
        others = {other: n for other, n in codes.items() if other != code}
        print(f"{kind:>6}: {codes[code]} of {sum(codes.values())} {code}; others {others}")
        failed += sum(codes.values()) - codes[code]
    carried = sum(1 for kind, _, carry in replies if kind == "open" and carry)
    print(f"opens finding carry-over: {carried}")
    print(f"journal entries by state: {dict(states)}")
    print(f"audit --verify: exit {verify.returncode}: {verify.stdout.strip().splitlines()[:3]}")
    failed += carried + states["failed"] + states["pending"] + (verify.returncode != 0)
    sys.exit(1 if failed else 0)


def _load() -> tuple[float, float, float]:
    import os

    return os.getloadavg()


if __name__ == "__main__":
    main()
