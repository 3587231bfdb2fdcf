"""Governance sessions for MCP clients (SPEC §13): which session a tool call belongs to.

- stdio and in-memory: the server process serves one client, so it is one session.
- Streamable HTTP, 2025-11-25 handshake: each MCP session (its `Mcp-Session-Id`) is its own governance
  session, made on first use and kept on the MCP connection, so it is dropped when that session ends; its
  rate limits are those of the credential that opened it, shared by all that credential's sessions.
- Streamable HTTP, 2026-07-28: the protocol is sessionless, so a request belongs to the governance session
  of the bearer token that admitted it: one per client token and server process, the operator's own token
  being one more. Its home, mode, playset, contract and approvals outlive the request as they do over
  stdio; it ends when it has been idle longer than the operator's `session_idle_minutes` (the next request
  of that token starts a new one). Its rate limits are its credential's, as a 2025-11-25 session's are.
- A request no token admitted (a server built without one) has no identity to hold a session: it gets a
  fresh session at the operator's defaults that nothing outlives (`SessionSlot.lasting` is False), so a
  command that would change session state is refused before it is decided (`Dispatcher`), never answered
  with a promise the next call cannot find. Such requests share one rate allowance.
Calls of one session run one at a time (its lock), and at most MAX_WAITING wait for it; different sessions
run in parallel.
"""

import threading
import time
from collections.abc import Callable
from uuid import uuid4

from fastmcp import Context

from adapters.call_facts import client_name, credential
from domain.session import Session

_KEY = "ck3raven.session"
_HTTP = frozenset({"streamable-http", "sse", "http"})
_LEGACY = "2025-11-25"
OPERATOR = "operator"
"""The credential of the operator's own token."""


MAX_WAITING = 4
"""Calls of one session that may wait for its lock; more are refused as busy, so one session cannot hold
the server's worker threads."""


class SessionSlot:
    """One governance session, the lock its calls take, and the lock its rate limits are counted under."""

    def __init__(
        self, session: Session, pacing: "threading.Lock | None" = None, *, lasting: bool = True
    ) -> None:
        self.session = session
        self.lock = threading.Lock()
        self.pacing = pacing or threading.Lock()
        self.lasting = lasting
        """Whether the session outlives the call (False: a request with no identity to hold one)."""
        self.used = 0.0
        """When a call last found this session (time.monotonic): an idle token session ends."""
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
    """Finds or starts the governance session of a tool call; `start(session_id)` makes a new one.
    `idle_seconds`: how long a token's session of 2026-07-28 requests lives unused (None: for the process)."""

    def __init__(
        self,
        start: Callable[[str], Session],
        *,
        idle_seconds: float | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._start = start
        self._idle = idle_seconds
        self._clock = clock
        self._process: SessionSlot | None = None
        self._guard = threading.Lock()
        self._sessionless: Session | None = None
        self._sessionless_pacing = threading.Lock()
        self._clients: dict[str, tuple[Session, threading.Lock]] = {}
        self._tokens: dict[str, SessionSlot] = {}

    def slot(self, ctx: Context) -> SessionSlot:
        """The slot of the session `ctx` belongs to."""
        request = ctx.request_context
        if ctx.transport not in _HTTP or request is None:
            return self._process_slot()
        connection = getattr(request.session, "_connection", None)
        if request.protocol_version > _LEGACY or connection is None:
            name = credential()
            return self._token_slot(name) if name is not None else self._sessionless_slot()
        with self._guard:
            slot = connection.state.get(_KEY)
            if not isinstance(slot, SessionSlot):
                slot = self._client_slot(self._start(f"http-{uuid4().hex}"), client_name())
                connection.state[_KEY] = slot
        return slot

    def _token_slot(self, name: str) -> SessionSlot:
        """The session of the token `name` (a client's name, or "operator"), started on its first request
        and again after it was idle past the limit. Its id names the token (never the token's secret), so
        the contracts and audit rows it leaves say whose they are."""
        with self._guard:
            now = self._clock()
            slot = self._tokens.get(name)
            if slot is None or (self._idle is not None and now - slot.used > self._idle):
                session = self._start(f"token-{name}-{uuid4().hex[:16]}")
                slot = self._client_slot(session, None if name == OPERATOR else name)
                self._tokens[name] = slot
            slot.used = now
            return slot

    def _client_slot(self, session: Session, client: str | None) -> SessionSlot:
        """A new session's slot: its rate limits are its credential's, shared by every session that
        credential opens (otherwise each new session would start with a full allowance). Called under the
        guard."""
        key = client or OPERATOR
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
        return SessionSlot(session, self._sessionless_pacing, lasting=False)

    def _process_slot(self) -> SessionSlot:
        with self._guard:
            if self._process is None:
                self._process = SessionSlot(self._start("process"))
            return self._process
