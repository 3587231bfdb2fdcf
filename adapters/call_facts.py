"""What the server knows of the call in progress, for its audit rows: one dict per call, kept in a context
variable so the store that records a change before it happens (the journal) can write that change's
audit row in the same transaction.

Each server numbers its calls as they arrive (`ServerCalls`: a server id and a counter), so a call whose
row never reached the store leaves a gap `ck3raven audit --verify` names.
"""

import itertools
import threading
from contextvars import ContextVar
from typing import Any
from uuid import uuid4

from ports.audit import AuditEntry
from ports.journal import JournalEntry

CALL: ContextVar[dict[str, Any] | None] = ContextVar("ck3raven.call", default=None)
"""The facts of the call in progress: the middleware sets trace id, tool, server id, call number and
client as the call arrives; the dispatcher adds the command, the session and its contract."""

CHANGE = "change"
"""The stage of an audit row written with a journal entry, before the file changes."""


class ServerCalls:
    """This server's id and its call counter (from 1, in order of arrival, thread-safe)."""

    def __init__(self, server_id: str | None = None) -> None:
        self.server_id = server_id or f"srv-{uuid4().hex[:12]}"
        self._counter = itertools.count(1)
        self._lock = threading.Lock()

    def next(self) -> int:
        with self._lock:
            return next(self._counter)


def client_name() -> str | None:
    """The name of the client credential the current HTTP request came with (None: stdio, in memory, or
    the operator's own token)."""
    name = credential()
    return name if name != "operator" else None


def credential() -> str | None:
    """The credential the current HTTP request was admitted with: a client's name, or "operator" for the
    operator's own token; None where no token admitted it (stdio, in memory, a server without one)."""
    from fastmcp.server.dependencies import get_access_token  # noqa: PLC0415 - the stores import this module; FastMCP only when a call asks

    try:
        token = get_access_token()
    except RuntimeError:  # no request in this context
        return None
    return (token.client_id or None) if token is not None else None


def change_entry(entry: JournalEntry, at: str) -> AuditEntry:
    """The audit row of a governed change about to happen: the journal entry's file and contract, with the
    facts of the call that makes it (none when it is made outside a tool call)."""
    facts = CALL.get() or {}
    return AuditEntry(
        at=at,
        session_id=entry.session_id,
        trace_id=facts.get("trace_id"),
        tool=str(facts.get("tool") or "<none>"),
        command=facts.get("command"),
        targets=(entry.address,),
        reply_type="",
        code="",
        contract_id=entry.contract_id,
        approval_id=None,
        duration_ms=0.0,
        notes=(f"{entry.kind} begun (journal {entry.entry_id})",),
        server_id=facts.get("server_id"),
        call=facts.get("call"),
        client=facts.get("client"),
        stage=CHANGE,
    )
