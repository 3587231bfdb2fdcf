"""The carry-over counters in the state database (table `carry_over`, made by the state store's migrations):
how many opens each file of a root has been carried over, replaced whole per root in one transaction."""

from contextlib import AbstractContextManager
from typing import Any, Protocol


class Database(Protocol):
    """What the counters need of the state database (adapters.sqlite_state.SqliteState)."""

    def execute(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]: ...

    def atomic(self) -> AbstractContextManager[None]: ...


class SqliteLedger:
    """Carry-over counters per (root, canonical address)."""

    def __init__(self, state: Database) -> None:
        self._state = state

    def load(self, root: str) -> dict[str, int]:
        rows = self._state.execute("SELECT address, opens FROM carry_over WHERE root = ?", (root,))
        return {str(address): int(opens) for address, opens in rows}

    def save(self, root: str, counts: dict[str, int]) -> None:
        with self._state.atomic():
            self._state.execute("DELETE FROM carry_over WHERE root = ?", (root,))
            for address, opens in sorted(counts.items()):
                self._state.execute("INSERT INTO carry_over VALUES (?, ?, ?)", (root, address, opens))
