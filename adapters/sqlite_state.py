"""The server's state in one SQLite database in the state directory: contracts, approvals, the ids of
ended records, carry-over counters per (root, file), evidence and the hash-chained audit log.

WAL journal, `synchronous=FULL` (audit rows alone are not forced: see `unforced`), one connection guarded by a
re-entrant lock: each store write is a transaction of its own, and `atomic()` makes a group of them one (a
contract and its counters, a close and its evidence), so a crash leaves the state before the decision or after
it, never between. A write waits at most its busy timeout for another process's lock, then fails as Busy
(how long it waited, how long the store has been locked); until a write goes through again, later ones wait
only HURRIED seconds. The schema is versioned (`schema_migrations`); a newer database than this code knows is
refused. Records keep their Sigil signatures, so a row edited outside the server is inert; a record that
reached a final state is remembered (`ended`), so an older copy written back is never served again.
"""

import json
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any, Final, Generic, TypeVar

import structlog

from adapters.sqlite_audit import SqliteAudit
from adapters.sqlite_evidence import SqliteEvidence
from adapters.sqlite_journal import SqliteJournal
from adapters.sqlite_ledger import SqliteLedger
from adapters.sqlite_schema import MIGRATIONS
from adapters.strict_converter import StructureProblems, make_converter, structure
from ports.approvals import ApprovalRecord
from ports.contracts import ContractRecord
from ports.errors import Busy, Unavailable

R = TypeVar("R")
log = structlog.get_logger()
BUSY_TIMEOUT: Final = 10.0
"""Seconds a write waits for another server's transaction before it fails (and a change is refused)."""
HURRIED: Final = 0.25
"""Seconds a write waits while the store is known to be locked (a wait of BUSY_TIMEOUT ran out, and no
write has gone through since): a lock held that long is another process's (a backup, a `sqlite3`
shell), and the calls meanwhile answer at once that the store is busy instead of each waiting it out."""


class SqliteState:
    """The database at `path` (created 0600 with its folder 0700) and the stores over it. `read_only`
    opens an existing database for the operator's views: nothing is created, migrated or quarantined."""

    def __init__(self, path: Path, *, read_only: bool = False, busy_timeout: float = BUSY_TIMEOUT) -> None:
        self.path = path
        self.read_only = read_only
        try:
            if read_only:
                self._db = sqlite3.connect(
                    f"file:{path}?mode=ro",
                    uri=True,
                    check_same_thread=False,
                    isolation_level=None,
                    timeout=busy_timeout,
                )
            else:
                _check_index(path)
                path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
                path.touch(mode=0o600, exist_ok=True)
                self._db = sqlite3.connect(
                    path, check_same_thread=False, isolation_level=None, timeout=busy_timeout
                )
                self._db.execute("PRAGMA journal_mode=WAL")
                self._db.execute("PRAGMA synchronous=FULL")
            self._migrate()
        except sqlite3.Error as exc:
            raise Unavailable(f"the state database {path} cannot be opened") from exc
        self._lock = threading.RLock()
        self._depth = 0
        self._writes = 0
        self._busy_timeout = busy_timeout
        self._locked_since: float | None = None
        """When a wait for another process's lock first ran out, in this spell (None: no spell)."""
        self.approvals = SqliteApprovals(self)
        self.contracts = SqliteContracts(self)
        self.ledger = SqliteLedger(self)
        self.evidence = SqliteEvidence(self)
        self.audit = SqliteAudit(self)
        self.journal = SqliteJournal(self)  # its own module, over this connection

    def close(self) -> None:
        self._db.close()

    def changed(self) -> None:
        """Count a write through this connection: SQLite's data_version sees only other connections'."""
        with self._lock:
            self._writes += 1

    def version(self) -> tuple[int, int]:
        """(writes through this connection, SQLite's data_version): it changes whenever this connection
        wrote a record or another connection, in this process or another, committed anything."""
        with self._lock:
            return self._writes, int(self._run("PRAGMA data_version")[0][0])

    def quarantined(self) -> list[tuple[str, str, str]]:
        """(kind, record id, reason) of every record set aside because it could not be read."""
        rows = self.execute("SELECT kind, record_id, reason FROM quarantine ORDER BY at")
        return [(str(kind), str(record_id), str(reason)) for kind, record_id, reason in rows]

    @contextmanager
    def atomic(self) -> Iterator[None]:
        """One transaction for everything written inside; nested blocks join the outermost, so only the
        outermost block's failure rolls back (an inner failure the outer block catches does not)."""
        with self._lock:
            outer = self._depth == 0
            if outer:
                self._begin()
            self._depth += 1
            try:
                yield
            except BaseException:
                if outer:
                    self._run("ROLLBACK")
                raise
            finally:
                self._depth -= 1
            if outer:
                try:
                    self._run("COMMIT")
                    self._lock_ended()
                except Unavailable:
                    with suppress(
                        sqlite3.Error
                    ):  # never left inside a transaction every later BEGIN trips on
                        self._db.execute("ROLLBACK")
                    raise

    @contextmanager
    def unforced(self) -> Iterator[None]:
        """A transaction that is not forced to the disk when it commits: it survives a crash of the server
        (the OS holds it), and the next forced commit forces it too; a power cut may lose it, and only it
        and later such rows (the log is append-only, so it loses its newest rows, never its order). Used
        for the audit row of a call, never for a decision; inside another transaction it simply joins it."""
        with self._lock:
            if self._depth or self.read_only:
                with self.atomic():
                    yield
                return
            self._run("PRAGMA synchronous=NORMAL")
            try:
                with self.atomic():
                    yield
            finally:
                self._run("PRAGMA synchronous=FULL")

    def execute(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        """Run one statement (inside the current transaction, if any) and return its rows."""
        with self._lock:
            return self._run(sql, params)

    def _begin(self) -> None:
        """Begin a write transaction, waiting for another process's lock at most the busy timeout (or a
        moment, while the store is known to be locked). Raises Busy when the lock outlasts the wait."""
        started = time.monotonic()
        try:
            self._db.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            if getattr(exc, "sqlite_errorcode", 0) & 0xFF not in _BUSY:  # the primary code: any kind of busy
                raise Unavailable("the state database cannot be used") from exc
            now = time.monotonic()
            if self._locked_since is None:
                self._locked_since = started
                self._db.execute(f"PRAGMA busy_timeout = {int(HURRIED * 1000)}")
            raise Busy(now - started, now - self._locked_since) from exc
        except sqlite3.Error as exc:
            raise Unavailable("the state database cannot be used") from exc

    def _lock_ended(self) -> None:
        """A write went through: the store is free again, and a write waits its whole busy timeout."""
        if self._locked_since is not None:
            self._locked_since = None
            with suppress(sqlite3.Error):
                self._db.execute(f"PRAGMA busy_timeout = {int(self._busy_timeout * 1000)}")

    def _run(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        try:
            return self._db.execute(sql, params).fetchall()
        except sqlite3.Error as exc:
            raise Unavailable("the state database cannot be used") from exc

    def _migrate(self) -> None:
        """Apply the steps this database lacks, each in one transaction with its version row; the count is
        read inside that transaction, so two processes opening a new database never both apply a step."""
        if not self.read_only:
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT)"
            )
        while True:
            if not self.read_only:
                self._db.execute("BEGIN IMMEDIATE")
            (applied,) = self._db.execute("SELECT COUNT(*) FROM schema_migrations").fetchone()
            if applied > len(MIGRATIONS):
                raise sqlite3.DatabaseError("the state database is newer than this ck3raven")
            if applied == len(MIGRATIONS) or self.read_only:
                if not self.read_only:
                    self._db.execute("COMMIT")
                return
            for statement in filter(str.strip, MIGRATIONS[applied].split(";")):
                self._db.execute(statement)
            self._db.execute("INSERT INTO schema_migrations VALUES (?, datetime('now'))", (applied + 1,))
            self._db.execute("COMMIT")


_BUSY: Final = frozenset({sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED})
"""What SQLite answers when another connection holds the lock a write needs."""

SHM_UNIT: Final = 32768
"""SQLite grows a WAL database's shared-memory index (`-shm`) in regions of this many bytes."""


def _check_index(path: Path) -> None:
    """Say, in one log line, that the `-shm` index found at start is truncated: SQLite rebuilds it from the
    WAL when it is the first to open the database (a server that has it open meanwhile is ended by the
    kernel, and its log says so)."""
    index = path.with_name(path.name + "-shm")
    try:
        size = index.stat().st_size
    except OSError:
        return
    if size % SHM_UNIT:
        log.warning("state.shm_truncated", size=size, action="rebuilt from the WAL by SQLite")


class _Records(Generic[R]):
    """Signed records of one type as JSON in one table, with the ended-id memory."""

    KEY: str
    GET: str
    ALL: str
    PUT: str
    DROP: str

    def __init__(self, state: SqliteState, kind: type[R]) -> None:
        self._state = state
        self._kind = kind
        self._converter = make_converter()

    def _key(self, record: R) -> str:
        return str(getattr(record, self.KEY))

    def _final(self, record: R) -> bool:
        raise NotImplementedError

    def _columns(self, record: R) -> tuple[Any, ...]:
        raise NotImplementedError

    def get(self, record_id: str) -> R | None:
        kept = self._kept(self._state.execute(self.GET, (record_id,)))
        return kept[0] if kept else None

    def all(self) -> list[R]:
        return self._kept(self._state.execute(self.ALL))

    def _kept(self, rows: list[tuple[Any, ...]]) -> list[R]:
        """The records of `rows`, less any not in a final state whose id has ended (an older copy written
        back over a consumed approval or a closed contract is no record at all), and less any that cannot
        be read: those are quarantined, so one corrupt row never blocks the calls that do not need it."""
        kept = []
        for record_id, text in rows:
            record = self._load(str(record_id), str(text))
            if record is not None and (self._final(record) or not self._ended(record)):
                kept.append(record)
        return kept

    def _ended(self, record: R) -> bool:
        return bool(self._state.execute("SELECT 1 FROM ended WHERE record_id = ?", (self._key(record),)))

    def put(self, record: R) -> None:
        with self._state.atomic():
            self._put(record)

    def swap(self, expected: R, record: R) -> bool:
        with self._state.atomic():
            if self.get(self._key(expected)) != expected:
                return False
            self._put(record)
            return True

    def _put(self, record: R) -> None:
        self._state.changed()
        record_id = self._key(record)
        if self._state.execute("SELECT 1 FROM ended WHERE record_id = ?", (record_id,)):
            raise Unavailable("that record has ended")
        text = json.dumps(self._converter.unstructure(record), sort_keys=True)
        self._state.execute(self.PUT, (*self._columns(record), text))
        if self._final(record):
            self._state.execute("INSERT INTO ended VALUES (?, ?)", (record_id, self.KEY))

    def _load(self, record_id: str, text: str) -> R | None:
        try:
            return structure(self._converter, json.loads(text), self._kind)
        except (ValueError, RecursionError, TypeError, AttributeError, StructureProblems) as exc:
            self._quarantine(record_id, text, type(exc).__name__)
            return None  # malformed: never a record

    def _quarantine(self, record_id: str, text: str, reason: str) -> None:
        log.warning("state.quarantined", kind=self.KEY, record_id=record_id, reason=reason)
        if self._state.read_only:  # the operator's views change nothing; the server sets it aside
            return
        self._state.changed()
        with self._state.atomic():
            self._state.execute(
                "INSERT INTO quarantine (kind, record_id, record, reason) VALUES (?, ?, ?, ?)",
                (self.KEY, record_id, text, reason),
            )
            self._state.execute(self.DROP, (record_id,))


class SqliteApprovals(_Records[ApprovalRecord]):
    KEY = "approval_id"
    GET = "SELECT approval_id, record FROM approvals WHERE approval_id = ?"
    ALL = "SELECT approval_id, record FROM approvals ORDER BY approval_id"
    DROP = "DELETE FROM approvals WHERE approval_id = ?"
    PUT = "INSERT OR REPLACE INTO approvals VALUES (?, ?, ?, ?, ?)"

    def __init__(self, state: SqliteState) -> None:
        super().__init__(state, ApprovalRecord)

    def _final(self, record: ApprovalRecord) -> bool:
        return record.state in {"consumed", "declined"}

    def _columns(self, record: ApprovalRecord) -> tuple[Any, ...]:
        return (record.approval_id, record.kind, record.payload_digest, record.state)

    def matching(self, kind: str, payload_digest: str) -> list[ApprovalRecord]:
        rows = self._state.execute(
            "SELECT approval_id, record FROM approvals WHERE kind = ? AND payload_digest = ? "
            "ORDER BY approval_id",
            (kind, payload_digest),
        )
        return self._kept(rows)


class SqliteContracts(_Records[ContractRecord]):
    KEY = "contract_id"
    GET = "SELECT contract_id, record FROM contracts WHERE contract_id = ?"
    ALL = "SELECT contract_id, record FROM contracts ORDER BY created_at, contract_id"
    DROP = "DELETE FROM contracts WHERE contract_id = ?"
    PUT = "INSERT OR REPLACE INTO contracts VALUES (?, ?, ?, ?, ?)"

    def __init__(self, state: SqliteState) -> None:
        super().__init__(state, ContractRecord)

    def _final(self, record: ContractRecord) -> bool:
        return record.status != "open"

    def _columns(self, record: ContractRecord) -> tuple[Any, ...]:
        return (record.contract_id, record.session_id, record.status, record.created_at)

    def version(self) -> object:
        return self._state.version()
