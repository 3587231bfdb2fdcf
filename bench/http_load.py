"""Throughput over HTTP: ck3raven (`ck3raven serve --transport http`, the operator's bearer token) beside
stock FastMCP 4 with the same tools doing the same raw work (bench/stock_server.py over HTTP, its write
fsynced and one SQLite row committed), each with 8 and then 32 clients at once.

Each client is an MCP session of its own (the 2025-11-25 handshake, then its session id on every request)
that calls the same mix in a loop: `ck3_dir pwd`, a 10 KiB `ck3_read`, a 50-entry `ck3_dir list` and a
10 KiB `ck3_file write` of its own file. A round gives each server the same window (its sessions opened
before the window starts), the two servers in turn, the order reversed every other round. A row holds
the per-round ratios of calls per second (ours / stock, at least 0.9 to be met; each order's median,
averaged: bench/report.py), and the
99th percentile of each server's call latencies over all rounds. The load generator is this process:
one thread (asyncio), so at most one core of the machine's, beside the servers.

    python bench/http_load.py [--rounds 20] [--seconds 2]
"""

import argparse
import asyncio
import json
import os
import secrets
import shutil
import socket
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx2  # the HTTP client the MCP SDK itself installs

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import (
    CONTENT,
    INDEX_ASK,
    SERVER_ENV,
    Place,
    ensure_world,
    ours,
    scratch_place,
    stock,
    wait_for_index,
)
from report import Row, Target, table

PROTOCOL = "2025-11-25"
LEVELS = (8, 32)


@dataclass
class Served:
    name: str
    process: subprocess.Popen[bytes]
    url: str
    headers: dict[str, str]
    wip_prefix: str

    def close(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _wait(port: int, process: subprocess.Popen[bytes], seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the server ended (exit {process.returncode}) before it listened")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError("the server did not listen in time")


def start_ours(place: Place) -> Served:
    """ck3raven over HTTP, on a config of its own (its own state directory, a fixed token)."""
    token = secrets.token_hex(24)
    port = _free_port()
    text = place.config.read_text(encoding="utf-8").replace(
        str(place.base / "state"), str(place.base / "state-http")
    )
    config = place.base / "config-http.toml"
    config.write_text(text + f'[http]\ntoken = "{token}"\n', encoding="utf-8")
    built = place.base / "state" / "content-index.db"
    if built.is_file():  # the calls' server (ended by now) built the world's index: the same files, kept
        (place.base / "state-http").mkdir(exist_ok=True)
        for part in (built, built.with_name(built.name + "-wal")):  # the log holds what was not checkpointed
            if part.is_file():
                shutil.copy2(part, place.base / "state-http" / part.name)
    argv = (*ours(place).argv[:2], "--config", str(config), "--transport", "http", "--port", str(port))
    errors = place.errlog("ck3raven-http").open("ab")
    process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=errors, stderr=errors, env=_env())
    _wait(port, process)
    return Served(
        "ck3raven", process, f"http://127.0.0.1:{port}/mcp", {"authorization": f"Bearer {token}"}, "ours"
    )


def start_stock(place: Place) -> Served:
    port = _free_port()
    argv = (*stock(place).argv, f"--http={port}")
    errors = place.errlog("stock-http").open("ab")
    process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=errors, stderr=errors, env=_env())
    _wait(port, process)
    return Served("stock FastMCP", process, f"http://127.0.0.1:{port}/mcp", {}, "stock")


def _env() -> dict[str, str]:
    return {**os.environ, **SERVER_ENV}


class Session:
    """One MCP session over HTTP."""

    def __init__(self, client: httpx2.AsyncClient, served: Served, number: int) -> None:
        self.client, self.served, self.number = client, served, number
        self.headers = {
            "accept": "application/json, text/event-stream",
            "content-type": "application/json",
            **served.headers,
        }
        self.next_id = 0

    async def post(self, method: str, params: dict[str, Any] | None, *, notify: bool = False) -> Any:  # noqa: ANN401
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        if not notify:
            self.next_id += 1
            message["id"] = self.next_id
        response = await self.client.post(self.served.url, headers=self.headers, content=json.dumps(message))
        if response.status_code >= 400:
            raise RuntimeError(f"{self.served.name}: HTTP {response.status_code} {response.text[:200]}")
        if notify:
            return None
        if "mcp-session-id" in response.headers:
            self.headers["mcp-session-id"] = response.headers["mcp-session-id"]
        return _answer(response, self.next_id)

    async def open(self) -> None:
        info = {"name": "ck3raven-bench", "version": "1"}
        await self.post("initialize", {"protocolVersion": PROTOCOL, "capabilities": {}, "clientInfo": info})
        self.headers["mcp-protocol-version"] = PROTOCOL
        await self.post("notifications/initialized", None, notify=True)

    async def close(self) -> None:
        """End the session (DELETE with its id), as a client that is done does: servers cap live ones."""
        if "mcp-session-id" in self.headers:
            await self.client.delete(self.served.url, headers=self.headers)

    def mix(self) -> list[tuple[str, dict[str, Any]]]:
        own = f"ROOT_CK3RAVEN_DATA:/wip/http-{self.served.wip_prefix}-{self.number}.txt"
        return [
            ("ck3_dir", {"command": "pwd"}),
            ("ck3_read", {"path": "ROOT_CK3RAVEN_DATA:/wip/read.txt"}),
            ("ck3_dir", {"command": "list", "path": "ROOT_GAME:/common", "limit": 50}),
            ("ck3_file", {"command": "write", "path": own, "content": CONTENT}),
        ]

    async def run(self, until: float, latencies: list[float]) -> int:
        calls, mix = 0, self.mix()
        while time.perf_counter() < until:
            tool, args = mix[calls % len(mix)]
            started = time.perf_counter()
            result = await self.post("tools/call", {"name": tool, "arguments": args})
            latencies.append(time.perf_counter() - started)
            if result.get("isError"):
                raise RuntimeError(f"{self.served.name}: {json.dumps(result)[:300]}")
            calls += 1
        return calls


def _wait_for_index(served: Served) -> float:
    """Seconds until ck3raven's content index is built, asked in one session of its own."""
    loop = asyncio.new_event_loop()
    client = httpx2.AsyncClient(timeout=60)
    session = Session(client, served, 0)

    async def ask() -> dict[str, Any]:
        result = await session.post("tools/call", {"name": "ck3_playset", "arguments": INDEX_ASK})
        return dict(result.get("structuredContent") or {})

    try:
        loop.run_until_complete(session.open())
        return wait_for_index(lambda: loop.run_until_complete(ask()))
    finally:
        loop.run_until_complete(session.close())
        loop.run_until_complete(client.aclose())
        loop.close()


def _answer(response: httpx2.Response, wanted: int) -> Any:  # noqa: ANN401
    if response.headers.get("content-type", "").startswith("text/event-stream"):
        for line in response.text.splitlines():
            if line.startswith("data:"):
                message = json.loads(line[5:])
                if message.get("id") == wanted:
                    return message.get("result", message)
        raise RuntimeError("no answer in the event stream")
    return response.json().get("result")


async def window(served: Served, clients: int, seconds: float, latencies: list[float]) -> float:
    """Calls per second of `clients` sessions over one window (sessions opened before it starts)."""
    limits = httpx2.Limits(max_connections=clients, max_keepalive_connections=clients)
    async with httpx2.AsyncClient(limits=limits, timeout=60) as client:
        sessions = [Session(client, served, number) for number in range(clients)]
        await asyncio.gather(*(session.open() for session in sessions))
        until = time.perf_counter() + seconds
        started = time.perf_counter()
        done = await asyncio.gather(*(session.run(until, latencies) for session in sessions))
        rate = sum(done) / (time.perf_counter() - started)
        await asyncio.gather(*(session.close() for session in sessions))  # after the window: not timed
        return rate


def measure(place: Place, rounds: int, seconds: float = 2.0) -> list[Row]:
    (place.wip / "read.txt").write_text(CONTENT, encoding="utf-8")
    stock(place)  # its tools list, saved before any server holds the state
    servers = [start_ours(place), start_stock(place)]
    rows = []
    try:
        waited = _wait_for_index(servers[0])
        print(f"http: ck3raven's content index built after {waited:.0f} s; timing starts", file=sys.stderr)
        for clients in LEVELS:
            load = os.getloadavg()[0]
            rates: dict[str, list[float]] = {s.name: [] for s in servers}
            latencies: dict[str, list[float]] = {s.name: [] for s in servers}
            for served in servers:  # one untimed window each
                asyncio.run(window(served, clients, seconds / 2, []))
            for number in range(rounds):
                for served in servers if number % 2 == 0 else servers[::-1]:
                    rate = asyncio.run(window(served, clients, seconds, latencies[served.name]))
                    rates[served.name].append(rate)
            load = max(load, os.getloadavg()[0])
            mine, theirs = rates["ck3raven"], rates["stock FastMCP"]
            p99 = {name: statistics.quantiles(values, n=100)[98] for name, values in latencies.items()}
            rows.append(
                Row(
                    f"HTTP, {clients} clients: calls per second",
                    statistics.median(mine),
                    "/s",
                    "stock FastMCP 4, same tools and raw work",
                    statistics.median(theirs),
                    Target("least", 0.9),
                    note=(
                        f"p99 latency ck3raven {p99['ck3raven'] * 1e3:.1f} ms,"
                        f" stock {p99['stock FastMCP'] * 1e3:.1f} ms; load generator: this process, one"
                        f" thread, of {os.cpu_count()} CPUs shared with both servers"
                    ),
                    samples={"ours": mine, "other": theirs},
                    paired=True,
                    load=load,
                )
            )
    finally:
        for served in servers:
            served.close()
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=2.0)
    args = parser.parse_args()
    with scratch_place(ensure_world()) as place:
        print(table(measure(place, args.rounds, args.seconds)))


if __name__ == "__main__":
    main()
