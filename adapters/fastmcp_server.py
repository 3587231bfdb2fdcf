"""The driving adapter: a FastMCP server whose tools (`adapters.mcp_tools`) are thin shims over the
domain's handlers, every call answered as a `ReplyResult` the `ReplyMiddleware` turns into the wire
envelope. A `read_only` server lists the read and session tools only: no tool it offers changes a file.
"""

from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any, Final

import anyio.to_thread
from fastmcp import FastMCP
from fastmcp.server.auth import AuthProvider

from adapters.after_reply import AfterReply
from adapters.call_facts import ServerCalls
from adapters.elicitation import Elicitor
from adapters.mcp_dispatch import Dispatcher, HumanLoop
from adapters.mcp_tools import (
    MUTATION_TOOLS,
    READ_TOOLS,
    SESSION_TOOLS,
    add_mutation_tools,
    add_read_tools,
    add_session_tools,
    add_token_tool,
)
from adapters.reply_middleware import ReplyMiddleware
from domain.leaks import LeakGate
from domain.use_cases.core import Core

INSTRUCTIONS = """\
ck3raven serves files in named roots (ROOT_REPO, ROOT_GAME, ROOT_STEAM, ROOT_USER_DOCS, ROOT_VSCODE,
ROOT_CK3RAVEN_DATA) and mods of the active playset (mod:<Name>:/path). Address files as ROOT_X:/rel/path,
mod:<Name>:/rel/path, or a path relative to the session home; host paths are refused.
Every tool answers one envelope: branch on reply_type (S success, I invalid: fix the request,
D denied: policy refused, E error: stop and report meta.trace_id) and on code, never on message.
"""


def build_server(  # noqa: PLR0913 - the core, its gate, and how the server is offered
    core: Core,
    gate: LeakGate,
    *,
    version: str = "0",
    auth: AuthProvider | None = None,
    read_only: bool = False,
    calls: ServerCalls | None = None,
    one_client: bool = False,
    session_idle_seconds: float | None = None,
) -> FastMCP:
    """A FastMCP server exposing the ck3raven tools over `core`, guarded by the reply middleware; `auth`
    guards its HTTP transport; `read_only` leaves out every tool that can change a file; `calls` numbers
    its calls for the audit (the server id the log's anchors name); `one_client`: it will serve a single
    client (stdio), so a read may be answered on its event loop (`Dispatcher`); `session_idle_seconds`:
    how long a token's session of sessionless HTTP requests lives unused (`adapters.mcp_sessions`)."""
    names = READ_TOOLS + SESSION_TOOLS + (() if read_only else MUTATION_TOOLS)
    middleware = ReplyMiddleware(gate, frozenset(names), core.services.audit, calls)
    server = FastMCP(
        "ck3raven",
        lifespan=_settling(middleware.after_reply),
        auth=auth,
        instructions=INSTRUCTIONS,
        version=version,
        strict_input_validation=True,
        mask_error_details=True,
        on_duplicate="error",
    )
    server.add_middleware(middleware)
    dispatcher = Dispatcher(core, one_client=one_client, session_idle_seconds=session_idle_seconds)
    loop = HumanLoop(
        dispatcher, Elicitor(lambda approval_id, approve: core.decide_approval(approval_id, approve=approve))
    )
    add_read_tools(server, dispatcher)
    add_session_tools(server, dispatcher, loop)
    if not read_only:
        add_mutation_tools(server, dispatcher, loop)
        add_token_tool(server, loop)
    _serve_only_tools(server)
    return server


SETTLE_SECONDS: Final = 10.0
"""How long a stopping server waits for the rows and log lines of replies already made."""


def _settling(
    after_reply: AfterReply[Any],
) -> Callable[[FastMCP], AbstractAsyncContextManager[dict[str, Any]]]:
    """The server's lifespan: when it ends (end of input, shutdown, an in-memory client leaving), what the
    replies made left to write is written first."""

    @asynccontextmanager
    async def lifespan(_server: FastMCP) -> AsyncIterator[dict[str, Any]]:
        try:
            yield {}
        finally:
            await anyio.to_thread.run_sync(after_reply.settle, SETTLE_SECONDS)

    return lifespan


_UNSERVED = ("prompts/", "resources/")


def _serve_only_tools(server: FastMCP) -> None:
    """Leave out the prompt and resource methods FastMCP registers on its own: ck3raven has none, so it
    neither advertises those capabilities nor answers them (a client is told the method does not exist).

    Neither FastMCP nor the MCP SDK offers a public way to remove a handler (the SDK's server derives its
    capabilities from its handler table), so this edits that table; fastmcp is pinned below 5, and
    tests/e2e/test_served_methods.py pins the table's place and the effect. Should a release move it, the
    server refuses to start rather than serve the methods unseen."""
    low_level = server._mcp_server  # noqa: SLF001 - see above
    handlers = low_level._request_handlers  # noqa: SLF001 - see above
    for method in [name for name in handlers if name.startswith(_UNSERVED)]:
        del handlers[method]
    if low_level.get_request_handler("prompts/list") or low_level.get_request_handler("resources/list"):
        raise RuntimeError("FastMCP still serves prompts or resources: its handler table moved")
