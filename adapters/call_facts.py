"""What the server knows of the call in progress, for its audit rows: one dict per call, kept in a context
variable, so the dispatcher can name the call to the core (whose decision writes the rows of its changes
in its own transaction) and the middleware can write the reply's row.

Each server numbers its calls as they arrive (`ServerCalls`: a server id and a counter), so a call whose
row never reached the store leaves a gap `ck3raven audit --verify` names.
"""

import itertools
import threading
from contextvars import ContextVar
from typing import Any
from uuid import uuid4

CALL: ContextVar[dict[str, Any] | None] = ContextVar("ck3raven.call", default=None)
"""The facts of the call in progress: the middleware sets trace id, tool, server id, call number and
client as the call arrives; the dispatcher adds the command, the session and its contract."""


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
