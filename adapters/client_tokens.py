"""Per-client bearer tokens for the HTTP transport (SPEC §10): `ck3raven token add NAME | list | revoke NAME`.

Only a token's SHA-256 is kept (table `http_clients` of the state database); the token itself is shown once,
when it is made. A request is admitted with the operator's own token or a client's unrevoked one; the
client's name is the credential's id, so the MCP session it opens is bound to it (another token presenting
that session's id is answered as if the session did not exist), its rate limits count per token, and its
audit rows name it.
"""

import hashlib
import hmac
import re
import secrets
from contextlib import AbstractContextManager
from datetime import UTC, datetime
from typing import Any, Final, Protocol

from fastmcp.server.auth import AccessToken, TokenVerifier

from domain.trail import client_token_row
from ports.audit import AuditLog

OPERATOR: Final = "operator"
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
"""A client's name: shown in listings and audit rows, so plain."""


class Database(Protocol):
    """What the token store needs of the state database (adapters.sqlite_state.SqliteState)."""

    @property
    def audit(self) -> AuditLog: ...

    def execute(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]: ...

    def atomic(self) -> AbstractContextManager[None]: ...


class ClientTokens:
    """The clients' token digests in the state database."""

    def __init__(self, state: Database) -> None:
        self._state = state

    def add(self, name: str) -> str:
        """A new token for `name` (a name in use, even revoked, is refused: ValueError)."""
        if not NAME.fullmatch(name) or name == OPERATOR:
            raise ValueError(f"{name!r} is not a client name (letters, digits, . _ -; not {OPERATOR!r})")
        if self._state.execute("SELECT 1 FROM http_clients WHERE name = ?", (name,)):
            raise ValueError(f"a client named {name!r} exists already")
        token, now = secrets.token_urlsafe(32), _now()
        with self._state.atomic():  # the token and its audit row land together, or neither does
            self._state.execute(
                "INSERT INTO http_clients VALUES (?, ?, ?, NULL)", (name, _digest(token), now)
            )
            self._state.audit.append(client_token_row(name, "add", now))
        return token

    def revoke(self, name: str) -> bool:
        """Revoke `name`'s token (with its audit row, in one transaction); False when there is no such live
        client."""
        with self._state.atomic():
            found = self._state.execute(
                "SELECT 1 FROM http_clients WHERE name = ? AND revoked_at IS NULL", (name,)
            )
            if found:
                now = _now()
                self._state.execute("UPDATE http_clients SET revoked_at = ? WHERE name = ?", (now, name))
                self._state.audit.append(client_token_row(name, "revoke", now))
        return bool(found)

    def listed(self) -> list[tuple[str, str, str | None]]:
        """(name, made at, revoked at) of every client, oldest first."""
        rows = self._state.execute(
            "SELECT name, created_at, revoked_at FROM http_clients ORDER BY created_at"
        )
        return [(str(n), str(c), None if r is None else str(r)) for n, c, r in rows]

    def client_of(self, token: str) -> str | None:
        """The live client whose token this is, if any."""
        rows = self._state.execute(
            "SELECT name FROM http_clients WHERE digest = ? AND revoked_at IS NULL", (_digest(token),)
        )
        return str(rows[0][0]) if rows else None


class ClientVerifier(TokenVerifier):
    """Admits the operator's token (compared in constant time) and every client's unrevoked token."""

    def __init__(self, operator: str, clients: ClientTokens | None = None) -> None:
        super().__init__()
        self._operator = operator.encode("utf-8")
        self._clients = clients

    async def verify_token(self, token: str) -> AccessToken | None:
        if hmac.compare_digest(token.encode("utf-8"), self._operator):
            return AccessToken(token=token, client_id=OPERATOR, scopes=[])
        if self._clients is None:
            return None
        try:
            name = self._clients.client_of(token)
        except Exception:  # noqa: BLE001 - a store that fails admits no one (fail closed)
            return None
        return AccessToken(token=token, client_id=name, scopes=[]) if name is not None else None


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def _now() -> str:
    return datetime.now(UTC).isoformat()
