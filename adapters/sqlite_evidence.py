"""Evidence documents in the state database (table `evidence`, made by the state store's migrations): one
JSON document per (kind, name), referred to as `evidence:<kind>/<name>`."""

from typing import Any, Protocol


class Database(Protocol):
    """What the evidence store needs of the state database (adapters.sqlite_state.SqliteState)."""

    def execute(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]: ...


class SqliteEvidence:
    """Evidence documents by kind and name; references read `evidence:<kind>/<name>`."""

    def __init__(self, state: Database) -> None:
        self._state = state

    def put(self, kind: str, name: str, document: str) -> str:
        self._state.execute("INSERT OR REPLACE INTO evidence VALUES (?, ?, ?)", (kind, name, document))
        return _reference(kind, name)

    def find(self, kind: str, name: str) -> str | None:
        rows = self._state.execute("SELECT 1 FROM evidence WHERE kind = ? AND name = ?", (kind, name))
        return _reference(kind, name) if rows else None

    def document(self, kind: str, name: str) -> str | None:
        rows = self._state.execute("SELECT document FROM evidence WHERE kind = ? AND name = ?", (kind, name))
        return str(rows[0][0]) if rows else None


def _reference(kind: str, name: str) -> str:
    return f"evidence:{kind}/{name}"
