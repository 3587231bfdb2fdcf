"""One decision of the core: the reply to one request, with the facts it was decided on.

A decision reads the contract store through a view that keeps each record it read, so the governing contract
is looked up in the store once per decision however many of its steps ask for it (resolving, enforcing,
journaling); a record the decision writes is read afresh after (the write may yet be rolled back), and lands
with its audit row. It writes the journal through one that notes each entry it began, so it can name them.
"""

from collections.abc import Iterable

from attrs import frozen

from domain.replies.builder import Reply
from domain.trail import approval_row, decision_row
from ports.approvals import ApprovalRecord, ApprovalStore
from ports.audit import AuditLog, CallFacts
from ports.clock import Clock
from ports.contracts import ContractRecord, ContractStore
from ports.journal import Journal, JournalEntry
from ports.transactions import Transactions


@frozen
class Decision:
    """The reply to one request and the facts of its decision, for the driving adapter's audit row."""

    reply: Reply
    session_id: str
    contract_id: str | None
    """The contract the request was decided under; for one that opened a contract, the one it opened."""
    journal: tuple[str, ...] = ()
    """The ids of the journal entries the decision began (one per change it made, before the change)."""


class KeptContracts(ContractStore):
    """The contract store as one decision reads it: each record read once, forgotten when written. A record
    written (opened, renewed, ended) lands with its audit row in one transaction, naming the call."""

    def __init__(
        self,
        store: ContractStore,
        trail: tuple[AuditLog, Transactions] | None = None,
        call: CallFacts | None = None,
    ) -> None:
        self._store = store
        self._trail = trail
        self._call = call
        self._kept: dict[str, ContractRecord | None] = {}

    def get(self, contract_id: str) -> ContractRecord | None:
        if contract_id not in self._kept:
            self._kept[contract_id] = self._store.get(contract_id)
        return self._kept[contract_id]

    def put(self, record: ContractRecord) -> None:
        self._kept.pop(record.contract_id, None)
        if self._trail is None:
            self._store.put(record)
            return
        audit, transactions = self._trail
        with transactions.atomic():
            self._store.put(record)
            audit.append(decision_row(record, self._call))

    def all(self) -> list[ContractRecord]:
        return self._store.all()

    def version(self) -> object:
        return self._store.version()


class TrailedApprovals(ApprovalStore):
    """The approval store as a decision writes it: a record stored (asked, decided by a person, spent) lands
    with its audit row in one transaction, naming the call (or, for a person's decision, none)."""

    def __init__(
        self, store: ApprovalStore, trail: tuple[AuditLog, Transactions], call: CallFacts, clock: Clock
    ) -> None:
        self.stored = store
        """The store itself (another decision's trail wraps this one, not its wrapper)."""
        self._trail = trail
        self._call = call
        self._clock = clock

    def get(self, approval_id: str) -> ApprovalRecord | None:
        return self.stored.get(approval_id)

    def put(self, record: ApprovalRecord) -> None:
        audit, transactions = self._trail
        with transactions.atomic():
            self.stored.put(record)
            audit.append(approval_row(record, self._call, self._clock.now().isoformat()))

    def all(self) -> list[ApprovalRecord]:
        return self.stored.all()

    def matching(self, kind: str, payload_digest: str) -> list[ApprovalRecord]:
        return self.stored.matching(kind, payload_digest)

    def swap(self, expected: ApprovalRecord, record: ApprovalRecord) -> bool:
        audit, transactions = self._trail
        with transactions.atomic():
            if not self.stored.swap(expected, record):
                return False
            audit.append(approval_row(record, self._call, self._clock.now().isoformat()))
            return True


def trailed(
    store: ApprovalStore, trail: tuple[AuditLog, Transactions], call: CallFacts, clock: Clock
) -> TrailedApprovals:
    """`store` (unwrapped first, if a trail wraps it already) writing its records' rows for `call`."""
    inner = store.stored if isinstance(store, TrailedApprovals) else store
    return TrailedApprovals(inner, trail, call, clock)


class NotedJournal(Journal):
    """The journal as one decision writes it: every entry begun is noted, in order."""

    def __init__(self, journal: Journal) -> None:
        self._journal = journal
        self.begun: list[str] = []

    def begin(self, entry: JournalEntry, content_before: bytes | None) -> None:
        self._journal.begin(entry, content_before)
        self.begun.append(entry.entry_id)

    def settle(self, entry_id: str, state: str, *, if_pending: bool = False) -> None:
        self._journal.settle(entry_id, state, if_pending=if_pending)

    def entries(
        self, contract_ids: Iterable[str | None] | None = None, *, root: str | None = None, since: str = ""
    ) -> list[JournalEntry]:
        return self._journal.entries(contract_ids, root=root, since=since)

    def content_before(self, entry_id: str) -> bytes | None:
        return self._journal.content_before(entry_id)
