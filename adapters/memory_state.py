"""The state stores in memory, for unit tests and embedding: the same behaviour as the SQLite adapter
(ended-record memory, per-root counters, a hash-chained audit log, `atomic()` that rolls back on error),
checked by one contract test suite run against both."""

import copy
import json
import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, Generic, TypeVar

from attrs import evolve
from cattrs import Converter

from adapters.audit_chain import GENESIS, chain
from ports.approvals import ApprovalRecord
from ports.audit import AuditEntry, AuditRow
from ports.contracts import ContractRecord
from ports.errors import Unavailable
from ports.journal import JournalEntry

R = TypeVar("R")


class MemoryState:
    """All stores over one set of dicts; `atomic()` restores them if its block raises."""

    def __init__(self) -> None:
        self.data: dict[str, Any] = {
            "approvals": {},
            "contracts": {},
            "ended": set(),
            "carry_over": {},
            "evidence": {},
            "audit": [],
            "journal": [],
        }
        self.lock = threading.RLock()
        self._depth = 0
        self.transactions = 0
        """Transactions begun: a token that changes whenever a record may have changed."""
        self.approvals = MemoryApprovals(self)
        self.contracts = MemoryContracts(self)
        self.ledger = MemoryLedger(self)
        self.evidence = MemoryEvidence(self)
        self.audit = MemoryAudit(self)
        self.journal = MemoryJournal(self)

    @contextmanager
    def atomic(self) -> Iterator[None]:
        with self.lock:
            self.transactions += 1  # every transaction, whatever its outcome: never rolled back
            # every record is frozen and every write replaces or adds a table's entry: a copy of each
            # table restores them (a deep copy of everything made each write cost the whole state's size)
            saved = (
                {name: copy.copy(table) for name, table in self.data.items()} if self._depth == 0 else None
            )
            self._depth += 1
            try:
                yield
            except BaseException:
                if saved is not None:
                    self.data.clear()
                    self.data.update(saved)
                raise
            finally:
                self._depth -= 1


class _Records(Generic[R]):
    TABLE: str
    KEY: str

    def __init__(self, state: MemoryState) -> None:
        self._state = state

    def _final(self, record: R) -> bool:
        raise NotImplementedError

    @property
    def _table(self) -> dict[str, R]:
        table: dict[str, R] = self._state.data[self.TABLE]
        return table

    def get(self, record_id: str) -> R | None:
        with self._state.lock:  # no read sees another thread's transaction half done
            return self._table.get(record_id)

    def all(self) -> list[R]:
        with self._state.lock:
            return [self._table[key] for key in sorted(self._table)]

    def put(self, record: R) -> None:
        with self._state.atomic():
            record_id = str(getattr(record, self.KEY))
            if record_id in self._state.data["ended"]:
                raise Unavailable("that record has ended")
            self._table[record_id] = record
            if self._final(record):
                self._state.data["ended"].add(record_id)

    def swap(self, expected: R, record: R) -> bool:
        with self._state.atomic():
            if self.get(str(getattr(expected, self.KEY))) != expected:
                return False
            self.put(record)
            return True


class MemoryApprovals(_Records[ApprovalRecord]):
    TABLE, KEY = "approvals", "approval_id"

    def _final(self, record: ApprovalRecord) -> bool:
        return record.state in {"consumed", "declined"}

    def matching(self, kind: str, payload_digest: str) -> list[ApprovalRecord]:
        return [r for r in self.all() if r.kind == kind and r.payload_digest == payload_digest]


class MemoryContracts(_Records[ContractRecord]):
    TABLE, KEY = "contracts", "contract_id"

    def _final(self, record: ContractRecord) -> bool:
        return record.status != "open"

    def version(self) -> object:
        with self._state.lock:
            return self._state.transactions


class MemoryLedger:
    def __init__(self, state: MemoryState) -> None:
        self._state = state

    def load(self, root: str) -> dict[str, int]:
        with self._state.lock:
            return dict(self._state.data["carry_over"].get(root, {}))

    def save(self, root: str, counts: dict[str, int]) -> None:
        with self._state.atomic():
            self._state.data["carry_over"][root] = dict(counts)


class MemoryEvidence:
    def __init__(self, state: MemoryState) -> None:
        self._state = state

    def put(self, kind: str, name: str, document: str) -> str:
        with self._state.atomic():
            self._state.data["evidence"][(kind, name)] = document
        return f"evidence:{kind}/{name}"

    def find(self, kind: str, name: str) -> str | None:
        return f"evidence:{kind}/{name}" if (kind, name) in self._state.data["evidence"] else None

    def document(self, kind: str, name: str) -> str | None:
        found = self._state.data["evidence"].get((kind, name))
        return str(found) if found is not None else None


class MemoryJournal:
    def __init__(self, state: MemoryState) -> None:
        self._state = state

    def begin(self, entry: JournalEntry, content_before: bytes | None) -> None:
        with self._state.atomic():
            self._state.data["journal"].append((entry, content_before))

    def settle(self, entry_id: str, state: str, *, if_pending: bool = False) -> None:
        with self._state.atomic():
            rows = self._state.data["journal"]
            for index, (entry, content) in enumerate(rows):
                kept = entry.state != "pending" if if_pending else (entry.state, state) == ("done", "failed")
                if entry.entry_id == entry_id and not kept:
                    rows[index] = (evolve(entry, state=state), content)

    def entries(
        self, contract_ids: Iterable[str | None] | None = None, *, root: str | None = None, since: str = ""
    ) -> list[JournalEntry]:
        wanted = None if contract_ids is None else set(contract_ids)
        with self._state.lock:
            rows = list(self._state.data["journal"])
        return [
            entry
            for entry, _ in rows
            if (wanted is None or entry.contract_id in wanted)
            and (root is None or entry.root == root)
            and entry.at >= since
        ]

    def content_before(self, entry_id: str) -> bytes | None:
        with self._state.lock:
            return next((c for e, c in self._state.data["journal"] if e.entry_id == entry_id), None)


class MemoryAudit:
    def __init__(self, state: MemoryState) -> None:
        self._state = state
        self._converter = Converter()

    def append(self, entry: AuditEntry) -> None:
        self.append_all([entry])

    def append_all(self, entries: Sequence[AuditEntry]) -> None:
        with self._state.atomic():
            rows: list[AuditRow] = self._state.data["audit"]
            for entry in entries:
                text = json.dumps(self._converter.unstructure(entry), sort_keys=True)
                prev = rows[-1].digest if rows else GENESIS
                rows.append(AuditRow(len(rows) + 1, entry, prev, chain(prev, text)))

    def rows(self) -> list[AuditRow]:
        with self._state.lock:
            return list(self._state.data["audit"])

    def verify(self) -> list[str]:
        problems = []
        prev = GENESIS
        for row in self._state.data["audit"]:
            text = json.dumps(self._converter.unstructure(row.entry), sort_keys=True)
            if row.prev != prev:
                problems.append(f"row {row.seq}: the row before it is missing or was changed")
            if chain(row.prev, text) != row.digest:
                problems.append(f"row {row.seq}: its content was changed")
            prev = row.digest
        return problems
