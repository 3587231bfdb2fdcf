"""The HTTP door (SPEC §10): Host and Origin checked before anything else, then a bearer token.

`Door` wraps the whole ASGI app, so a request naming a foreign Host or Origin (DNS rebinding: a web page
that resolves its own name to 127.0.0.1) is answered 403 before authentication or any MCP session exists.
Allowed are the loopback names and whatever the operator lists. The token check is FastMCP's own auth
hook (`adapters.client_tokens.ClientVerifier`): a request without the operator's token or a client's gets
401 and reaches no tool.
"""

import os
import re
import secrets
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from starlette.datastructures import Headers
from starlette.responses import PlainTextResponse
from starlette.types import ASGIApp, Receive, Scope, Send

LOOPBACK = ("127.0.0.1", "localhost", "::1")


class Door:
    """ASGI wrapper answering 403 to a Host or Origin that is neither loopback nor listed by the operator."""

    def __init__(
        self,
        app: ASGIApp,
        hosts: Sequence[str] = (),
        origins: Sequence[str] = (),
        *,
        max_sessions: int | None = None,
    ) -> None:
        self._app = app
        self._hosts = frozenset(name.casefold() for name in (*LOOPBACK, *hosts))
        self._origins = frozenset(origin.casefold().rstrip("/") for origin in origins)
        self._max_sessions = max_sessions

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        self._cap_sessions()
        if scope["type"] in {"http", "websocket"} and not self._admits(Headers(scope=scope)):
            await PlainTextResponse("Forbidden: Host or Origin not allowed", status_code=403)(
                scope, receive, send
            )
            return
        await self._app(scope, receive, send)

    def _cap_sessions(self) -> None:
        """Hold the MCP session manager (made when the app starts, FastMCP offering no setting for it) to
        the operator's cap on live sessions per credential: one more of that credential's is refused by it
        (503, "Too many open sessions"), and another token's sessions are not counted against it, so one
        client that abandons sessions never locks the others out."""
        if self._max_sessions is None:
            return
        manager = _session_manager(self._app)
        if manager is not None and not getattr(manager, _CAPPED, False):
            _cap_per_credential(manager, self._max_sessions)

    def _admits(self, headers: Headers) -> bool:
        hosts = headers.getlist("host")
        if len(hosts) != 1 or not _HOST.fullmatch(hosts[0]):
            return False
        if _hostname(f"//{hosts[0]}") not in self._hosts:
            return False
        origins = headers.getlist("origin")
        if not origins:  # not a browser: Host alone is what a rebinding page could forge
            return True
        return len(origins) == 1 and self._origin_allowed(origins[0])

    def _origin_allowed(self, origin: str) -> bool:
        if origin.casefold().rstrip("/") in self._origins:
            return True
        try:
            parts = urlsplit(origin)
        except ValueError:
            return False
        plain = parts.username is None and parts.path in {"", "/"} and not parts.query
        return plain and parts.scheme in {"http", "https"} and _hostname(origin) in LOOPBACK


_CAPPED = "_ck3raven_capped_per_credential"


def _cap_per_credential(manager: Any, cap: int) -> None:  # noqa: ANN401 - the SDK's session manager
    """Make `manager` admit a new session only while its credential holds fewer than `cap` live ones. The
    SDK keeps the credential that opened each session (it answers another credential's use of it 404);
    its own cap counts every credential's sessions together, so it is lifted while a session is admitted."""
    admit = manager._admit_session  # noqa: SLF001 - the SDK offers no hook for who may open a session

    def admit_within_cap(requestor: object) -> object:
        owners, live = manager._session_owners, manager._server_instances  # noqa: SLF001 - as above
        if sum(1 for session_id in live if owners.get(session_id) == requestor) >= cap:
            return None
        manager.max_sessions = None  # past the SDK's count of all sessions (called under its lock)
        try:
            return admit(requestor)
        finally:
            manager.max_sessions = cap  # what its refusal's log line names

    manager.max_sessions = cap
    manager._admit_session = admit_within_cap  # noqa: SLF001 - as above
    setattr(manager, _CAPPED, True)


def _session_manager(app: object) -> Any:  # noqa: ANN401 - the SDK's manager, found by its attribute
    """The streamable HTTP session manager behind `app`'s routes (through the auth wrapper), if running."""
    for route in getattr(app, "routes", ()):
        endpoint = getattr(route, "endpoint", None)
        for _ in range(4):  # the endpoint, or a wrapper holding it as `app`
            manager = getattr(endpoint, "session_manager", None)
            if manager is not None:
                return manager
            endpoint = getattr(endpoint, "app", None)
    return None


_HOST = re.compile(r"(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(?::[0-9]{1,5})?")
"""A Host header: a name or a bracketed IPv6 address, and a port; no user part, no path."""


def _hostname(url: str) -> str | None:
    try:
        name = urlsplit(url).hostname
    except ValueError:
        return None
    return name.casefold() if name else None


def new_token(path: Path) -> str:
    """A fresh bearer token, kept at `path` (0600, its folder 0700) for the operator's clients: written to a
    new file and renamed into place, so whatever stood there before (its mode, a hard link) is not reused."""
    token = secrets.token_urlsafe(32)
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    descriptor, temp = tempfile.mkstemp(dir=path.parent, prefix=".http_token.")  # created 0600
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            handle.write(token + "\n")
            handle.flush()
            os.fsync(handle.fileno())
        Path(temp).replace(path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
    return token
