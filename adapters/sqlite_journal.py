"""The journal of governed changes in the state database (table `journal`, made by the state store's
migrations): one row per entry in the order begun, with the content before the change.

An entry is begun inside the caller's transaction (or one of its own; the core writes the change's audit
row in the same one), forced to the disk like every decision: a store that cannot take both (locked past
its busy timeout, full, failing) raises, and then the file does not change. Marking it done or failed is not
forced, since an entry a power cut leaves pending is settled later by the file's digest.
"""

import json
from collections.abc import Iterable
from contextlib import AbstractContextManager, suppress
from typing import Any, Protocol

from adapters.strict_converter import StructureProblems, make_converter, structure
from ports.journal import JournalEntry

_SETTLE_PENDING = (
    "UPDATE journal SET record = json_set(record, '$.state', ?) "
    "WHERE entry_id = ? AND json_extract(record, '$.state') = ?"
)
_SETTLE_UNLESS = (
    "UPDATE journal SET record = json_set(record, '$.state', ?) "
    "WHERE entry_id = ? AND json_extract(record, '$.state') != ?"
)


class Database(Protocol):
    """What the journal needs of the state database (adapters.sqlite_state.SqliteState)."""

    def execute(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]: ...

    def unforced(self) -> AbstractContextManager[None]: ...

    def atomic(self) -> AbstractContextManager[None]: ...


class SqliteJournal:
    """The journal of governed changes: one row per entry in the order begun, with the content before."""

    def __init__(self, state: Database) -> None:
        self._state = state
        self._converter = make_converter()

    def begin(self, entry: JournalEntry, content_before: bytes | None) -> None:
        text = json.dumps(self._converter.unstructure(entry), sort_keys=True)
        with self._state.atomic():  # forced, and joins the caller's transaction (the change's audit row)
            self._state.execute(
                "INSERT INTO journal (entry_id, contract_id, root, at, record, content) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (entry.entry_id, entry.contract_id, entry.root, entry.at, text, content_before),
            )

    def settle(self, entry_id: str, state: str, *, if_pending: bool = False) -> None:
        # not forced to the disk: an entry a power cut leaves pending is settled later by the file's digest
        # one statement, the record's state set where it lies (SQLite's JSON functions): not read back into
        # Python, parsed and written out again for one field; the condition in the same statement, so no
        # settle of another call can come between the look and the change
        if if_pending:
            sql, held = _SETTLE_PENDING, "pending"
        else:  # the writer decides, but a done entry is never turned failed
            sql, held = _SETTLE_UNLESS, "done" if state == "failed" else ""
        with self._state.unforced():
            self._state.execute(sql, (state, entry_id, held))

    def entries(
        self, contract_ids: Iterable[str | None] | None = None, *, root: str | None = None, since: str = ""
    ) -> list[JournalEntry]:
        where, params = ["at >= ?"], [since]
        if root is not None:
            where.append("root = ?")
            params.append(root)
        if contract_ids is not None:
            wanted = list(contract_ids)
            named = [c for c in wanted if c is not None]
            either = [f"contract_id IN ({', '.join('?' * len(named))})"] * bool(named)
            either += ["contract_id IS NULL"] * (None in wanted)
            if not either:
                return []
            where.append("(" + " OR ".join(either) + ")")
            params += named
        rows = self._state.execute(
            f"SELECT record FROM journal WHERE {' AND '.join(where)} ORDER BY seq",  # noqa: S608 - placeholders only
            tuple(params),
        )
        found = []
        for (text,) in rows:
            with suppress(ValueError, RecursionError, TypeError, StructureProblems):
                found.append(structure(self._converter, json.loads(str(text)), JournalEntry))
        return found

    def content_before(self, entry_id: str) -> bytes | None:
        rows = self._state.execute("SELECT content FROM journal WHERE entry_id = ?", (entry_id,))
        return bytes(rows[0][0]) if rows and rows[0][0] is not None else None
