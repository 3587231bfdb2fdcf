"""Port: the audit log, one row per tool call, hash-chained so an edit or a deletion shows."""

from collections.abc import Sequence
from typing import Protocol

from attrs import frozen


@frozen
class AuditEntry:
    """What one tool call did: never the arguments' contents, only canonical targets and outcomes."""

    at: str
    session_id: str | None
    trace_id: str | None
    tool: str
    command: str | None
    targets: tuple[str, ...]
    reply_type: str
    code: str
    contract_id: str | None
    approval_id: str | None
    duration_ms: float
    notes: tuple[str, ...] = ()
    server_id: str | None = None
    """The server that answered the call; with `call`, the number it gave the call on arrival."""
    call: int | None = None
    client: str | None = None
    """The name of the HTTP client credential the call came with (None: stdio or the operator's token)."""
    stage: str = "reply"
    """"reply": the call's answer; "change": a governed change, written with its journal entry before the
    file changes; "decision": a contract opened, renewed or ended, an approval asked, decided or spent, a
    token declared, made or revoked, written with the record; "gap": calls
    of a server that ended (crashed, killed) before their rows were written (its notes name them);
    "checkpoint": rows pruned before it (its notes name the range and the last digest)."""


@frozen
class CallFacts:
    """The tool call a decision answers, as the rows written in the decision's own transaction (a change's,
    a contract's) name it: the host that received the call knows these; a call made outside any host
    (a test driving the core) has none."""

    tool: str
    command: str | None = None
    trace_id: str | None = None
    server_id: str | None = None
    call: int | None = None
    client: str | None = None


@frozen
class AuditRow:
    """A stored entry: its sequence number, the previous row's digest and its own."""

    seq: int
    entry: AuditEntry
    prev: str
    digest: str


class AuditLog(Protocol):
    """Port: appends entries, lists them, and checks the chain. Raises ports.errors.Unavailable."""

    def append(self, entry: AuditEntry) -> None: ...

    def append_all(self, entries: Sequence[AuditEntry]) -> None:
        """Append `entries` in order, all or none."""
        ...

    def rows(self) -> list[AuditRow]:
        """Every row, oldest first."""
        ...

    def verify(self) -> list[str]:
        """What is wrong with the chain (an edited row, a missing one), empty when it holds."""
        ...
