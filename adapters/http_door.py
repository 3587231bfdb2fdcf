"""The HTTP door (SPEC §10): Host and Origin checked before anything else, then a bearer token.

`Door` wraps the whole ASGI app, so a request naming a foreign Host or Origin (DNS rebinding: a web page
that resolves its own name to 127.0.0.1) is answered 403 before authentication or any MCP session exists.
Allowed are the loopback names and whatever the operator lists. The token check is FastMCP's own auth
hook (`TokenVerifier`): a request without the operator's token gets 401 and reaches no tool.
"""

import hmac
import os
import secrets
from collections.abc import Sequence
from pathlib import Path
from urllib.parse import urlsplit

from fastmcp.server.auth import AccessToken, TokenVerifier
from starlette.datastructures import Headers
from starlette.responses import PlainTextResponse
from starlette.types import ASGIApp, Receive, Scope, Send

LOOPBACK = ("127.0.0.1", "localhost", "::1")


class OperatorToken(TokenVerifier):
    """Accepts exactly the operator's bearer token (compared in constant time)."""

    def __init__(self, token: str) -> None:
        super().__init__()
        self._token = token.encode("utf-8")

    async def verify_token(self, token: str) -> AccessToken | None:
        if hmac.compare_digest(token.encode("utf-8"), self._token):
            return AccessToken(token=token, client_id="operator", scopes=[])
        return None


class Door:
    """ASGI wrapper answering 403 to a Host or Origin that is neither loopback nor listed by the operator."""

    def __init__(self, app: ASGIApp, hosts: Sequence[str] = (), origins: Sequence[str] = ()) -> None:
        self._app = app
        self._hosts = frozenset(name.casefold() for name in (*LOOPBACK, *hosts))
        self._origins = frozenset(origin.casefold().rstrip("/") for origin in origins)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and not self._admits(Headers(scope=scope)):
            await PlainTextResponse("Forbidden: Host or Origin not allowed", status_code=403)(
                scope, receive, send
            )
            return
        await self._app(scope, receive, send)

    def _admits(self, headers: Headers) -> bool:
        host = _hostname(f"//{headers.get('host', '')}")
        if host is None or host not in self._hosts:
            return False
        origin = headers.get("origin")
        if origin is None:  # not a browser: Host alone is what a rebinding page could forge
            return True
        if origin.casefold().rstrip("/") in self._origins:
            return True
        return urlsplit(origin).scheme in {"http", "https"} and _hostname(origin) in LOOPBACK


def _hostname(url: str) -> str | None:
    try:
        name = urlsplit(url).hostname
    except ValueError:
        return None
    return name.casefold() if name else None


def new_token(path: Path) -> str:
    """A fresh bearer token, kept at `path` (0600, its folder 0700) for the operator's clients."""
    token = secrets.token_urlsafe(32)
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
        handle.write(token + "\n")
    return token
