"""The driving adapter: a FastMCP server whose tools are thin shims over the domain's use cases.

Every tool takes primitives, strictly validated, and returns a `ReplyResult`; the `ReplyMiddleware` turns
that into the wire envelope. Tool docstrings are what the model reads.
"""

from typing import Literal, Protocol

from fastmcp import FastMCP

from adapters.reply_middleware import ReplyMiddleware, ReplyResult
from adapters.wire import ENVELOPE_SCHEMA
from domain.leaks import LeakGate
from domain.replies import Reply

INSTRUCTIONS = """\
ck3raven serves files in named roots (ROOT_REPO, ROOT_GAME, ROOT_STEAM, ROOT_USER_DOCS, ROOT_VSCODE,
ROOT_CK3RAVEN_DATA) and mods of the active playset (mod:<Name>:/path). Address files as ROOT_X:/rel/path,
mod:<Name>:/rel/path, or a path relative to the session home; host paths are refused.
Every tool answers one envelope: branch on reply_type (S success, I invalid: fix the request,
D denied: policy refused, E error: stop and report meta.trace_id) and on code, never on message.
"""


class Toolbox(Protocol):
    """What the tools need from the core: one method per tool, each answering one Reply."""

    def ck3_dir(self, command: str, path: str | None, depth: int) -> Reply: ...

    def ck3_mode(self, command: str) -> Reply: ...


TOOL_NAMES = frozenset({"ck3_dir", "ck3_mode"})


def build_server(toolbox: Toolbox, gate: LeakGate, *, version: str = "0") -> FastMCP:
    """A FastMCP server exposing the ck3raven tools over `toolbox`, guarded by the reply middleware."""
    server = FastMCP(
        "ck3raven",
        instructions=INSTRUCTIONS,
        version=version,
        strict_input_validation=True,
        mask_error_details=True,
        on_duplicate="error",
    )
    server.add_middleware(ReplyMiddleware(gate, TOOL_NAMES))

    @server.tool(
        output_schema=ENVELOPE_SCHEMA,
        annotations={"readOnlyHint": True, "idempotentHint": True, "openWorldHint": False},
    )
    def ck3_dir(
        command: Literal["pwd"] = "pwd",
        path: str | None = None,
        depth: int = 3,
    ) -> ReplyResult:
        """Directory navigation. `pwd` reports the session home as a session-absolute address."""
        return ReplyResult.of(toolbox.ck3_dir(command, path, depth))

    @server.tool(
        output_schema=ENVELOPE_SCHEMA,
        annotations={"readOnlyHint": True, "idempotentHint": True, "openWorldHint": False},
    )
    def ck3_mode(command: Literal["status"] = "status") -> ReplyResult:
        """Session mode. `status` reports the mode (ck3lens or ck3raven-dev) or that none is initialised."""
        return ReplyResult.of(toolbox.ck3_mode(command))

    return server
