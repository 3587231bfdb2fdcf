"""A raw JSON-RPC client for MCP servers over stdio: the one way every bench here talks to a server.

One JSON object per line each way (the MCP stdio framing). A request is serialised before its clock
starts; the clock stops when the line holding its response has been read, before that line is parsed.
Lines come through a buffered reader, so a reply of several MB costs one linear read. Each answer records
its time and the bytes of its line (what the server put on the wire). The server's peak resident memory
is its VmHWM from /proc, read while it still runs.
"""

import contextlib
import json
import os
import subprocess
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Self

PROTOCOL = "2025-11-25"
"""The handshake all three servers speak (ck3raven, stock FastMCP 4 and the Node reference server)."""


class ServerFailed(RuntimeError):
    """The server ended, or answered a request with a JSON-RPC error or a tool error."""


@dataclass(frozen=True)
class Spec:
    """How to start one server: its name in the tables, its command line and its environment."""

    name: str
    argv: tuple[str, ...]
    env: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Answer:
    """One response: seconds from the request's write to the response's read, its line's size in bytes,
    and the parsed message."""

    seconds: float
    size: int
    message: dict[str, Any]
    at: float = 0.0
    """perf_counter() when the response's line had been read."""

    @property
    def result(self) -> dict[str, Any]:
        result = self.message.get("result")
        if not isinstance(result, dict):
            raise ServerFailed(f"JSON-RPC error: {str(self.message.get('error'))[:300]}")
        return result

    def tool_result(self) -> dict[str, Any]:
        """The result of a tools/call that succeeded (a tool error stops the bench: it measured nothing)."""
        result = self.result
        if result.get("isError"):
            raise ServerFailed(f"tool error: {json.dumps(result)[:400]}")
        return result


class RawServer:
    """A running server and its pipes. Start with `RawServer(spec, errlog)`, then `initialize()`."""

    def __init__(self, spec: Spec, errlog: Path) -> None:
        self.spec = spec
        self._errlog_path = errlog
        self._errlog: IO[bytes] = errlog.open("ab")
        self._next_id = 0
        self.started = time.perf_counter()
        self._process = subprocess.Popen(
            spec.argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._errlog,
            env={**os.environ, **spec.env},
        )
        assert self._process.stdin is not None
        assert self._process.stdout is not None
        self._in = self._process.stdin
        self._out = self._process.stdout

    @property
    def pid(self) -> int:
        return self._process.pid

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def initialize(self) -> Answer:
        """The handshake: `initialize`, then the `notifications/initialized` notification."""
        answer = self.request(
            "initialize",
            {
                "protocolVersion": PROTOCOL,
                "capabilities": {},
                "clientInfo": {"name": "ck3raven-bench", "version": "1"},
            },
        )
        _ = answer.result
        self.notify("notifications/initialized")
        return answer

    def notify(self, method: str, params: Mapping[str, Any] | None = None) -> None:
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        self._write(json.dumps(message).encode() + b"\n")

    def request(self, method: str, params: Mapping[str, Any] | None = None) -> Answer:
        """Send one request and wait for its response; only that round trip is timed."""
        self._next_id += 1
        wanted = self._next_id
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": wanted, "method": method}
        if params is not None:
            message["params"] = params
        line = json.dumps(message, separators=(",", ":")).encode() + b"\n"
        started = time.perf_counter()
        self._write(line)
        while True:
            raw = self._out.readline()
            read = time.perf_counter()
            if not raw:
                raise ServerFailed(f"{self.spec.name} ended: {self.stderr_tail()}")
            reply = json.loads(raw)
            if reply.get("id") == wanted and "method" not in reply:
                return Answer(read - started, len(raw), reply, read)
            if "method" in reply and "id" in reply:  # a request from the server: we offer nothing
                self._refuse(reply)

    def call_tool(self, name: str, arguments: Mapping[str, Any]) -> Answer:
        return self.request("tools/call", {"name": name, "arguments": dict(arguments)})

    def peak_rss_kib(self) -> int | None:
        """The server process's peak resident set (VmHWM) so far, in KiB; None once it has ended."""
        try:
            status = Path(f"/proc/{self.pid}/status").read_text(encoding="ascii")
        except OSError:
            return None
        for line in status.splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
        return None

    def close(self, timeout: float = 30.0) -> int:
        """End of input, then wait for the server to exit (terminated, then killed, if it does not)."""
        if self._process.poll() is None:
            with contextlib.suppress(OSError):
                self._in.close()
            try:
                self._process.wait(timeout)
            except subprocess.TimeoutExpired:
                self._process.terminate()
                try:
                    self._process.wait(5)
                except subprocess.TimeoutExpired:
                    self._process.kill()
                    self._process.wait()
        self._out.close()
        self._errlog.close()
        return self._process.returncode

    def stderr_tail(self, characters: int = 600) -> str:
        self._errlog.flush()
        text = self._errlog_path.read_bytes()[-characters:]
        return text.decode("utf-8", "replace")

    def _write(self, line: bytes) -> None:
        try:
            self._in.write(line)
            self._in.flush()
        except BrokenPipeError as exc:
            raise ServerFailed(f"{self.spec.name} closed its input: {self.stderr_tail()}") from exc

    def _refuse(self, request: dict[str, Any]) -> None:
        if request.get("method") == "ping":
            reply: dict[str, Any] = {"jsonrpc": "2.0", "id": request["id"], "result": {}}
        else:
            error = {"code": -32601, "message": "the bench client offers no methods"}
            reply = {"jsonrpc": "2.0", "id": request["id"], "error": error}
        self._write(json.dumps(reply).encode() + b"\n")


@dataclass(frozen=True)
class Started:
    """One start of a server: seconds from spawn to the first `tools/list` answer, that answer's size,
    and the server's peak resident set by then."""

    seconds: float
    size: int
    peak_rss_kib: int | None


def first_tools_list(spec: Spec, errlog: Path) -> Started:
    """Spawn `spec`, shake hands, ask `tools/list`; the time runs from the spawn to that answer."""
    with RawServer(spec, errlog) as server:
        server.initialize()
        listed = server.request("tools/list")
        _ = listed.result
        return Started(listed.at - server.started, listed.size, server.peak_rss_kib())
