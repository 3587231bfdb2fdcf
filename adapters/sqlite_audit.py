"""The audit log in the state database: one row per tool call (and one per governed change, written with its
journal entry before the file changes), hash-chained.

Each row's digest is SHA-256 over the previous row's digest and its own entry; `audit_head` keeps the last,
so a deleted last row shows. Appends run in a transaction that reads the head first, so several servers
appending to one database keep one linear chain. `verify` names an edited or missing row and each server's
calls that left no row; `against` compares the database with the anchors the servers' logs recorded, so
a database deleted, replaced, rolled back or rewritten and re-hashed whole is reported too.

A server killed or crashed leaves the rows of its last replies unwritten (they follow the reply), so its
call numbers have gaps; the next server to start records them (`record_gaps`) as a row of its own, chained
like any other, naming the server and the calls. `verify` counts those calls as accounted for: a crash is
told from a deleted row, which breaks the chain, and from an edited one, whose digest no longer matches.
Until a server starts, `verify` told which servers ended counts their missing calls as a crash's gap too
while the chain holds, and `crash_gaps` names them, writing nothing.
"""

import json
import re
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from datetime import datetime
from typing import Any, Final, Protocol

from adapters.audit_chain import GENESIS, chain
from adapters.strict_converter import StructureProblems, make_converter, structure
from ports.audit import AuditEntry, AuditRow

SHOWN: Final = 10
"""Missing call numbers named in one problem line at most."""


class Database(Protocol):
    """What the audit log needs of the state database (adapters.sqlite_state.SqliteState)."""

    def execute(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]: ...

    def unforced(self) -> AbstractContextManager[None]: ...

    def atomic(self) -> AbstractContextManager[None]: ...


class SqliteAudit:
    """The audit log: each row's digest covers its entry and the previous row's digest; `audit_head` keeps
    the last one, so a deleted last row shows too."""

    def __init__(self, state: Database) -> None:
        self._state = state
        self._converter = make_converter()

    def append(self, entry: AuditEntry) -> None:
        self.append_all([entry])

    def append_all(self, entries: Sequence[AuditEntry]) -> None:
        texts = [json.dumps(self._converter.unstructure(entry), sort_keys=True) for entry in entries]
        if not texts:
            return
        with self._state.unforced():  # a call's trail, not a decision: the reply does not wait for the disk
            head = self._state.execute("SELECT seq, digest FROM audit_head")
            digest = str(head[0][1]) if head else GENESIS
            for text in texts:
                prev, digest = digest, chain(digest, text)
                self._state.execute(
                    "INSERT INTO audit (entry, prev, digest) VALUES (?, ?, ?)", (text, prev, digest)
                )
            (seq,) = self._state.execute("SELECT last_insert_rowid()")[0]
            self._state.execute("INSERT OR REPLACE INTO audit_head VALUES (1, ?, ?)", (seq, digest))

    def rows(self) -> list[AuditRow]:
        """Every readable row, oldest first (a row that cannot be read is skipped here; `verify` names it)."""
        return self.read()[0]

    def read(self) -> tuple[list[AuditRow], list[int]]:
        """Every readable row, oldest first, and the numbers of the rows that cannot be read."""
        found, unread = [], []
        for seq, text, prev, digest in self._state.execute(
            "SELECT seq, entry, prev, digest FROM audit ORDER BY seq"
        ):
            try:
                entry = structure(self._converter, json.loads(text), AuditEntry)
                datetime.fromisoformat(entry.at)  # every view sorts and filters by it
            except (ValueError, RecursionError, TypeError, StructureProblems):
                unread.append(int(seq))
                continue
            found.append(AuditRow(int(seq), entry, str(prev), str(digest)))
        return found, unread

    def head(self) -> tuple[int, str]:
        """The last row's number and digest ((0, GENESIS) for an empty log): what the log anchors."""
        head = self._state.execute("SELECT seq, digest FROM audit_head")
        return (int(head[0][0]), str(head[0][1])) if head else (0, GENESIS)

    def prune(self, before: str, now: str) -> int:
        """Remove the oldest rows written before `before` (ISO 8601; a prefix of the log: the chain stays
        whole) and append a checkpoint row, chained like any other, naming the range and the last pruned
        row's digest. How many rows went."""
        with self._state.atomic():
            last: tuple[int, str] | None = None
            first = None
            for seq, text, digest in self._state.execute("SELECT seq, entry, digest FROM audit ORDER BY seq"):
                if _written(str(text)) >= before:
                    break
                first = first if first is not None else int(seq)
                last = (int(seq), str(digest))
            if last is None or first is None:
                return 0
            self._state.execute("DELETE FROM audit WHERE seq <= ?", (last[0],))
            span = f"pruned rows {first} to {last[0]} (written before {before})"
            note = f"{span}; row {last[0]}'s digest was {last[1]}"
            self.append(_own_row("<retention>", "checkpoint", note, now))
            return last[0] - first + 1

    def record_gaps(self, ended: Callable[[str], bool], now: str) -> list[str]:
        """Record, as one row each (stage "gap"), the calls that left no row of each server that `ended`
        (stopped, killed or crashed: no server of that id runs); a gap recorded already is not recorded
        again. Nothing is recorded while the chain itself fails verification: a row deleted or changed
        is tampering, never a crash, and no gap row may account for it. What was recorded, one line a
        server."""
        with self._state.atomic():
            if self._walk()[0]:  # the chain fails: tampering, which no gap row may account for
                return []
            calls: dict[str, set[int]] = {}
            checkpoint = self._pruned()[1] > 1
            for server, call, stage, text in self._state.execute(
                "SELECT json_extract(entry, '$.server_id'), json_extract(entry, '$.call'), "
                "json_extract(entry, '$.stage'), CASE WHEN json_extract(entry, '$.stage') = 'gap' "
                "THEN entry END FROM audit"
            ):
                checkpoint = checkpoint or stage == "checkpoint"
                if stage == GAP:
                    _count_call(str(text), calls)
                elif isinstance(server, str) and isinstance(call, int):
                    calls.setdefault(server, set()).add(call)
            found = {
                server: missing
                for server, missing in _missing(calls, from_first=not checkpoint).items()
                if ended(server)
            }
            self.append_all([_gap_entry(server, missing, now) for server, missing in sorted(found.items())])
        return [
            f"server {server}: calls {_spans(missing)} left no row"
            for server, missing in sorted(found.items())
        ]

    def verify(self, ended: Callable[[str], bool] | None = None) -> list[str]:
        """What is wrong with the chain, one line each (empty: it holds). With `ended` (which servers no
        longer run), the calls a server that ended left without a row are no problem while the chain
        itself holds: they are a crash's gap, which `crash_gaps` names and the next server to start
        records; a deleted or changed row breaks the chain, and then every missing call is a problem."""
        problems, calls, checkpoint = self._walk()
        missing = _missing(calls, from_first=not checkpoint)
        if ended is not None and not problems:
            missing = {server: numbers for server, numbers in missing.items() if not ended(server)}
        return problems + _gaps(missing)

    def crash_gaps(self, ended: Callable[[str], bool]) -> list[str]:
        """The calls each server that `ended` left without a row and no gap row records yet, one line a
        server, while the chain holds (read only: the next server to start records them); empty when the
        chain fails, whose missing calls are problems."""
        problems, calls, checkpoint = self._walk()
        if problems:
            return []
        return [
            f"server {server}: calls {_spans(numbers)} left no row: it ended before writing them (killed or "
            "crashed); the next server to start records the gap"
            for server, numbers in _missing(calls, from_first=not checkpoint).items()
            if ended(server)
        ]

    def _walk(self) -> tuple[list[str], dict[str, set[int]], bool]:
        """The chain's problems (an edited, missing or unread row), each server's calls that have a row or
        a gap row, and whether rows were pruned behind a checkpoint."""
        problems = []
        prev, expected_first = self._pruned()
        last_seq = 0
        calls: dict[str, set[int]] = {}
        checkpoint = expected_first > 1
        for seq, text, stored_prev, digest in self._state.execute(
            "SELECT seq, entry, prev, digest FROM audit ORDER BY seq"
        ):
            if not last_seq and seq != expected_first:
                problems.append(f"row {seq}: the rows before it are missing")
            if stored_prev != prev:
                problems.append(f"row {seq}: the row before it is missing or was changed")
            if chain(str(stored_prev), str(text)) != digest:
                problems.append(f"row {seq}: its content was changed")
            checkpoint = checkpoint or _is_checkpoint(str(text))
            _count_call(str(text), calls)
            prev, last_seq = str(digest), int(seq)
        head = self._state.execute("SELECT seq, digest FROM audit_head")
        if head and (int(head[0][0]), str(head[0][1])) != (last_seq, prev):
            problems.append(f"the log ends at row {last_seq}, but row {head[0][0]} was written last")
        if last_seq and not head:
            problems.append("the record of the last row written is missing")
        return problems, calls, checkpoint

    def _pruned(self) -> tuple[str, int]:
        """Where the chain begins: after the rows the newest checkpoint pruned (their last digest, and the
        first row kept), else at the genesis and row 1."""
        found = (GENESIS, 1)
        for (text,) in self._state.execute("SELECT entry FROM audit WHERE entry LIKE '%\"checkpoint\"%'"):
            if not _is_checkpoint(str(text)):
                continue
            for note in json.loads(str(text)).get("notes", []):
                match = _PRUNED.search(str(note))
                if match and int(match.group(1)) + 1 > found[1]:
                    found = (match.group(2), int(match.group(1)) + 1)
        return found

    def against(self, anchors: list[tuple[int, str, str]]) -> list[str]:
        """What the anchors the servers' logs recorded (row, digest, when) say of this database: a row
        anchored that it no longer holds (deleted, replaced or rolled back), or holds with another digest
        (rewritten and re-hashed). Rows pruned behind a checkpoint are not asked for."""
        kept = self._state.execute("SELECT MIN(seq), MAX(seq) FROM audit")
        first, last = (int(kept[0][0]), int(kept[0][1])) if kept and kept[0][0] is not None else (0, 0)
        problems = []
        for seq, digest, at in sorted(set(anchors)):
            if seq == 0 or (first and seq < first):
                continue
            found = self._state.execute("SELECT digest FROM audit WHERE seq = ?", (seq,))
            if not found or seq > last:
                problems.append(
                    f"the log anchored row {seq} at {at}, which the database does not hold: rows were "
                    "removed, or the database was deleted, replaced or rolled back"
                )
                break
            if str(found[0][0]) != digest:
                problems.append(f"row {seq} is not the row the log anchored at {at}: the chain was rewritten")
                break
        return problems


_PRUNED = re.compile(r"row (\d+)'s digest was ([0-9a-f]{64})")


def _written(text: str) -> str:
    try:
        return str(json.loads(text).get("at", ""))
    except (ValueError, AttributeError):
        return ""


def _is_checkpoint(text: str) -> bool:
    try:
        return bool(json.loads(text).get("stage") == "checkpoint")
    except (ValueError, AttributeError):
        return False


def _count_call(text: str, calls: dict[str, set[int]]) -> None:
    """Count the call a row belongs to, or, for a gap row, every call it records."""
    try:
        entry = json.loads(text)
        server, call = entry.get("server_id"), entry.get("call")
    except (ValueError, AttributeError):
        return
    if not isinstance(server, str):
        return
    if entry.get("stage") == GAP:
        for note in entry.get("notes", []):
            calls.setdefault(server, set()).update(_numbers(str(note)))
    elif isinstance(call, int):
        calls.setdefault(server, set()).add(call)


GAP: Final = "gap"
"""The stage of a row recording the calls of a server that ended before their rows were written."""
_CALLS = re.compile(r"^calls ([0-9, -]+) left no row")


def _gap_entry(server: str, missing: list[int], now: str) -> AuditEntry:
    note = f"calls {_spans(missing)} left no row: the server ended before writing them (killed or crashed)"
    return _own_row("<gap>", GAP, note, now, server)


def _own_row(tool: str, stage: str, note: str, now: str, server: str | None = None) -> AuditEntry:
    """A row the audit log writes of itself (no call, no session): what it did or found, in its note."""
    return AuditEntry(
        at=now,
        session_id=None,
        trace_id=None,
        tool=tool,
        command=None,
        targets=(),
        reply_type="",
        code="",
        contract_id=None,
        approval_id=None,
        duration_ms=0.0,
        notes=(note,),
        server_id=server,
        stage=stage,
    )


def _spans(numbers: list[int]) -> str:
    """Sorted numbers as runs: 3, 5-9, 12."""
    runs: list[list[int]] = []
    for number in numbers:
        if runs and number == runs[-1][1] + 1:
            runs[-1][1] = number
        else:
            runs.append([number, number])
    return ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in runs)


def _numbers(note: str) -> set[int]:
    """The call numbers a gap row's note records."""
    match = _CALLS.match(note)
    found: set[int] = set()
    for part in match.group(1).split(",") if match else ():
        low, _, high = part.strip().partition("-")
        if low.isdigit() and (not high or high.isdigit()) and int(high or low) - int(low) <= MOST_CALLS:
            found.update(range(int(low), int(high or low) + 1))
    return found


MOST_CALLS: Final = 200_000
"""The longest run of calls one gap row records (a row edited to name more is counted as naming none)."""


def _missing(calls: dict[str, set[int]], *, from_first: bool) -> dict[str, list[int]]:
    """Each server's calls that have no row: numbers missing from 1 (or, after pruning, from the first
    kept) to the last."""
    found = {}
    for server, seen in sorted(calls.items()):
        missing = sorted(set(range(1 if from_first else min(seen), max(seen) + 1)) - seen)
        if missing:
            found[server] = missing
    return found


_NO_ROW: Final = " left no audit row"
"""How verify ends the line of a server's calls that have no row (the one problem a gap row answers)."""


def _gaps(found: dict[str, list[int]]) -> list[str]:
    """Each server's calls that have no row, one line a server."""
    problems = []
    for server, missing in found.items():
        shown = ", ".join(map(str, missing[:SHOWN])) + (
            f" and {len(missing) - SHOWN} more" if len(missing) > SHOWN else ""
        )
        problems.append(f"server {server}: call {shown}{_NO_ROW}")
    return problems
