"""In-process hooks built from the public composition (app.bootstrap), for the parts of a call that no
server exposes on its own:

- `Direct`: a tool command answered straight by the core (`Core.admit`, then `Core.answer`, as the MCP
  adapter calls them), no MCP, no middleware. The core is built from the bench's
  config with in-memory state, so it never shares a database with a running server.
- `Middleware`: the reply middleware (`ReplyMiddleware`: trace id, envelope, leak gate, the tool result;
  its log line and audit row follow the reply on the writer thread, settled between rounds) of a server
  composed as `ck3raven serve` composes it, run on a reply the core
  already made, its audit log in an SQLite database of its own, logging configured as served (to a log
  file and a stderr stand-in).
"""

import asyncio
import os
import time
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO

from common import prepare_checkout_imports

prepare_checkout_imports()

from fastmcp.server.middleware import MiddlewareContext  # noqa: E402
from fastmcp.tools.base import ToolResult  # noqa: E402
from mcp.types import CallToolRequestParams  # noqa: E402

from adapters.leak_screen import LeakScreen  # noqa: E402 - the checkout is put on the path first
from adapters.log_setup import configure_logging  # noqa: E402
from adapters.memory_state import MemoryState  # noqa: E402
from adapters.reply_middleware import ReplyMiddleware, ReplyResult  # noqa: E402
from adapters.sqlite_state import SqliteState  # noqa: E402
from adapters.wire import envelope_text  # noqa: E402
from app.bootstrap import build, build_core  # noqa: E402
from app.config import Settings, load  # noqa: E402
from domain.replies.builder import Reply  # noqa: E402
from ports.audit import AuditEntry  # noqa: E402


def settings_of(config: Path) -> Settings:
    return load(config, cwd=config.parent)


class Direct:
    """Tool commands answered by a core built in this process over the same roots."""

    def __init__(self, config: Path) -> None:
        self.core = build_core(settings_of(config), stored=MemoryState())
        self.session = self.core.start_session("bench")

    def answer(self, tool: str, args: Mapping[str, Any]) -> Reply:
        command = args.get("command", "read")
        given = {name: value for name, value in args.items() if name != "command" and value is not None}
        request = self.core.admit(self.session, tool, command, given)
        if isinstance(request, Reply):
            return request
        return self.core.answer(self.session, request, paced=True)


class Middleware:
    """The reply middleware of `ck3raven serve`, driven with a ready reply (the handler's time left out).
    It is taken from a server composed as served (`app.bootstrap.build`), with its audit log in an SQLite
    database of its own under `state`."""

    def __init__(self, config: Path, state: Path) -> None:
        settings = settings_of(config)
        state.mkdir(parents=True, exist_ok=True)
        self._quiet: TextIO = Path(os.devnull).open("w", encoding="utf-8")  # noqa: SIM115 - lives with self
        configure_logging(state / "ck3raven.log", stderr=self._quiet)
        self.stored = SqliteState(state / "ck3raven.db")
        core = build_core(settings, stored=self.stored)
        self.gate = LeakScreen(core.services.leaks)  # as served: the screen, then the gate on a candidate
        server = build(settings, core=core)
        self.middleware = next(m for m in server.middleware if isinstance(m, ReplyMiddleware))
        self._loop = asyncio.new_event_loop()

    def run(self, tool: str, args: Mapping[str, Any], reply: Reply) -> tuple[float, ToolResult]:
        """Seconds the middleware took to turn `reply` into the tool result, and that result."""
        context = MiddlewareContext(
            message=CallToolRequestParams(name=tool, arguments=dict(args)), method="tools/call"
        )

        async def handler(context: MiddlewareContext[CallToolRequestParams]) -> ToolResult:  # noqa: ARG001
            return ReplyResult.of(reply)

        async def timed() -> tuple[float, ToolResult]:
            started = time.perf_counter()
            result = await self.middleware.on_call_tool(context, handler)
            return time.perf_counter() - started, result

        answered = self._loop.run_until_complete(timed())
        self.middleware.after_reply.settle(10.0)  # the row of this round is written before the next round
        return answered

    def envelope(self, reply: Reply, tool: str) -> str:
        return envelope_text(reply, trace_id="0" * 32, duration_ms=1.0, tool=tool)

    def audit(self, reply: Reply, tool: str) -> None:
        """One audit row, as the middleware writes it for `reply`."""
        address = reply.data.get("address")
        self.stored.audit.append(
            AuditEntry(
                at=datetime.now(UTC).isoformat(),
                session_id="bench",
                trace_id="0" * 32,
                tool=tool,
                command=None,
                targets=(address,) if isinstance(address, str) else (),
                reply_type=reply.reply_type.value,
                code=reply.code,
                contract_id=None,
                approval_id=None,
                duration_ms=1.0,
            )
        )

    def close(self) -> None:
        self._loop.close()
        self.stored.close()
        self._quiet.close()
