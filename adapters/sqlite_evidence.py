"""Evidence documents in the state database (table `evidence`, made by the state store's migrations): one
JSON document per (kind, name), referred to as `evidence:<kind>/<name>`, with the time it was stored, so
retention can prune it (never an open contract's)."""

from contextlib import AbstractContextManager
from typing import Any, Protocol


class Database(Protocol):
    """What the evidence store needs of the state database (adapters.sqlite_state.SqliteState)."""

    def execute(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]: ...

    def atomic(self) -> AbstractContextManager[None]: ...


class SqliteEvidence:
    """Evidence documents by kind and name; references read `evidence:<kind>/<name>`."""

    def __init__(self, state: Database) -> None:
        self._state = state

    def put(self, kind: str, name: str, document: str) -> str:
        self._state.execute(
            "INSERT OR REPLACE INTO evidence (kind, name, document, at) "
            "VALUES (?, ?, ?, strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now'))",
            (kind, name, document),
        )
        return _reference(kind, name)

    def prune(self, before: str) -> int:
        """Remove evidence stored before `before` (ISO 8601), but never an open contract's (its baseline,
        its ruleset); how many documents went."""
        with self._state.atomic():
            kept = self._state.execute(
                "SELECT contract_id, json_extract(record, '$.baseline_sha') FROM contracts "
                "WHERE status = 'open' AND json_valid(record)"
            )
            names = sorted({str(value) for row in kept for value in row if value is not None})
            marks = ", ".join("?" * len(names)) or "''"
            old = self._state.execute(
                f"SELECT COUNT(*) FROM evidence WHERE at < ? AND name NOT IN ({marks})",  # noqa: S608 - placeholders
                (before, *names),
            )
            self._state.execute(
                f"DELETE FROM evidence WHERE at < ? AND name NOT IN ({marks})",  # noqa: S608 - placeholders
                (before, *names),
            )
            return int(old[0][0])

    def find(self, kind: str, name: str) -> str | None:
        rows = self._state.execute("SELECT 1 FROM evidence WHERE kind = ? AND name = ?", (kind, name))
        return _reference(kind, name) if rows else None

    def document(self, kind: str, name: str) -> str | None:
        rows = self._state.execute("SELECT document FROM evidence WHERE kind = ? AND name = ?", (kind, name))
        return str(rows[0][0]) if rows else None


def _reference(kind: str, name: str) -> str:
    return f"evidence:{kind}/{name}"
