"""Governance sessions for MCP clients (SPEC §13): which session a tool call belongs to.

- stdio and in-memory: the server process serves one client, so it is one session.
- Streamable HTTP, 2025-11-25 handshake: each MCP session (its `Mcp-Session-Id`) is its own governance
  session, made on first use and kept on the MCP connection, so it is dropped when that session ends.
- Streamable HTTP, 2026-07-28: the protocol is sessionless and such a request carries nothing that
  identifies its client from one request to the next, so each request gets a fresh session at the
  operator's defaults. Nothing it changes outlives the call, and nothing reaches another client.
Calls of one session run one at a time (its lock); different sessions run in parallel.
"""

import threading
from collections.abc import Callable
from uuid import uuid4

from fastmcp import Context

from domain.session import Session

_KEY = "ck3raven.session"
_HTTP = frozenset({"streamable-http", "sse", "http"})
_LEGACY = "2025-11-25"


class SessionSlot:
    """One governance session and the lock its calls take."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.lock = threading.Lock()


class McpSessions:
    """Finds or starts the governance session of a tool call; `start(session_id)` makes a new one."""

    def __init__(self, start: Callable[[str], Session]) -> None:
        self._start = start
        self._process: SessionSlot | None = None
        self._guard = threading.Lock()

    def slot(self, ctx: Context) -> SessionSlot:
        """The slot of the session `ctx` belongs to."""
        request = ctx.request_context
        if ctx.transport not in _HTTP or request is None:
            return self._process_slot()
        connection = getattr(request.session, "_connection", None)
        if request.protocol_version > _LEGACY or connection is None:
            return SessionSlot(self._start(f"request-{uuid4().hex}"))
        with self._guard:
            slot = connection.state.get(_KEY)
            if not isinstance(slot, SessionSlot):
                slot = SessionSlot(self._start(f"http-{uuid4().hex}"))
                connection.state[_KEY] = slot
        return slot

    def _process_slot(self) -> SessionSlot:
        with self._guard:
            if self._process is None:
                self._process = SessionSlot(self._start("process"))
            return self._process
