"""One decision of the core: the reply to one request, with the facts it was decided on.

A decision reads the contract store through a view that keeps each record it read, so the governing contract
is looked up in the store once per decision however many of its steps ask for it (resolving, enforcing,
journaling); a record the decision writes is read afresh after (the write may yet be rolled back), and lands
with its audit row. It writes the journal through one that notes each entry it began, so it can name them.
"""

from collections.abc import Iterable

from attrs import frozen

from domain.replies.builder import Reply
from domain.trail import decision_row
from ports.audit import AuditLog, CallFacts
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
