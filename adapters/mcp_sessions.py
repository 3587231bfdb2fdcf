"""Governance sessions for MCP clients (SPEC §13): which session a tool call belongs to.

- stdio and in-memory: the server process serves one client, so it is one session.
- Streamable HTTP, 2025-11-25 handshake: each MCP session (its `Mcp-Session-Id`) is its own governance
  session, made on first use and kept on the MCP connection, so it is dropped when that session ends; its
  rate limits are those of the credential that opened it, shared by all that credential's sessions.
- Streamable HTTP, 2026-07-28: the protocol is sessionless and such a request carries nothing that
  identifies its client from one request to the next, so each request gets a fresh session at the
  operator's defaults. Nothing it changes outlives the call, and nothing reaches another client; but
  their rate limits are one allowance, shared by every sessionless request (otherwise each would start
  with a full one).
Calls of one session run one at a time (its lock), and at most MAX_WAITING wait for it; different sessions
run in parallel.
"""

import threading
from collections.abc import Callable
from uuid import uuid4

from fastmcp import Context

from adapters.call_facts import client_name
from domain.session import Session

_KEY = "ck3raven.session"
_HTTP = frozenset({"streamable-http", "sse", "http"})
_LEGACY = "2025-11-25"


MAX_WAITING = 4
"""Calls of one session that may wait for its lock; more are refused as busy, so one session cannot hold
the server's worker threads."""


class SessionSlot:
    """One governance session, the lock its calls take, and the lock its rate limits are counted under."""

    def __init__(self, session: Session, pacing: "threading.Lock | None" = None) -> None:
        self.session = session
        self.lock = threading.Lock()
        self.pacing = pacing or threading.Lock()
        self._waiting = 0
        self._count = threading.Lock()

    def enter(self) -> int | None:
        """Join the calls waiting for this session; None when too many wait already (then leave nothing)."""
        with self._count:
            if self._waiting >= MAX_WAITING + 1:
                return None
            self._waiting += 1
            return self._waiting

    def leave(self) -> None:
        with self._count:
            self._waiting -= 1


class McpSessions:
    """Finds or starts the governance session of a tool call; `start(session_id)` makes a new one."""

    def __init__(self, start: Callable[[str], Session]) -> None:
        self._start = start
        self._process: SessionSlot | None = None
        self._guard = threading.Lock()
        self._sessionless: Session | None = None
        self._sessionless_pacing = threading.Lock()
        self._clients: dict[str, tuple[Session, threading.Lock]] = {}

    def slot(self, ctx: Context) -> SessionSlot:
        """The slot of the session `ctx` belongs to."""
        request = ctx.request_context
        if ctx.transport not in _HTTP or request is None:
            return self._process_slot()
        connection = getattr(request.session, "_connection", None)
        if request.protocol_version > _LEGACY or connection is None:
            return self._sessionless_slot()
        with self._guard:
            slot = connection.state.get(_KEY)
            if not isinstance(slot, SessionSlot):
                slot = self._client_slot(self._start(f"http-{uuid4().hex}"), client_name())
                connection.state[_KEY] = slot
        return slot

    def _client_slot(self, session: Session, client: str | None) -> SessionSlot:
        """A new session's slot: its rate limits are its credential's, shared by every session that
        credential opens (otherwise each new session would start with a full allowance). Called under the
        guard."""
        key = client or "operator"
        shared = self._clients.get(key)
        if shared is None:
            shared = (session, threading.Lock())
            self._clients[key] = shared
        session.allowance = shared[0].allowance
        return SessionSlot(session, shared[1])

    def _sessionless_slot(self) -> SessionSlot:
        session = self._start(f"request-{uuid4().hex}")
        with self._guard:
            if self._sessionless is None:
                self._sessionless = session
            session.allowance = self._sessionless.allowance  # one allowance for every sessionless request
        return SessionSlot(session, self._sessionless_pacing)

    def _process_slot(self) -> SessionSlot:
        with self._guard:
            if self._process is None:
                self._process = SessionSlot(self._start("process"))
            return self._process
