"""The audit rows the core writes in a decision's own transaction, so a crash after the decision and
before its reply leaves the decision in the audit all the same: a governed change's row, written with its
journal entry before the file changes, and a contract's row, written with the record that opens, renews
or ends it. Each names the call that made it (ports.audit.CallFacts), so one call's rows read as one."""

from typing import Final

from ports.audit import AuditEntry, CallFacts
from ports.contracts import ContractRecord
from ports.journal import JournalEntry

CHANGE: Final = "change"
"""The stage of a governed change's row."""
DECISION: Final = "decision"
"""The stage of a contract decision's row."""


def change_row(entry: JournalEntry, call: CallFacts | None) -> AuditEntry:
    """The row of a governed change about to happen: the journal entry's file and contract."""
    return _row(
        call,
        at=entry.at,
        session_id=entry.session_id,
        what=((entry.address,), entry.contract_id),
        note=f"{entry.kind} begun (journal {entry.entry_id})",
        stage=CHANGE,
    )


def decision_row(record: ContractRecord, call: CallFacts | None) -> AuditEntry:
    """The row of a contract decision: the contract as it is stored now (opened, or ended and how)."""
    if record.status == "open":
        note = f"contract opened{f' renewing {record.renewed_from}' if record.renewed_from else ''}"
        at = record.created_at
    else:
        note, at = f"contract {record.status}", record.closed_at or record.created_at
    return _row(
        call,
        at=at,
        session_id=record.session_id,
        what=((), record.contract_id),  # its targets: the reply's row names them (a contract may have many)
        note=note,
        stage=DECISION,
    )


def _row(  # noqa: PLR0913 - the call, and what its row says
    call: CallFacts | None,
    *,
    at: str,
    session_id: str,
    what: tuple[tuple[str, ...], str | None],
    note: str,
    stage: str,
) -> AuditEntry:
    targets, contract_id = what
    facts = call or CallFacts("<none>")
    return AuditEntry(
        at=at,
        session_id=session_id,
        trace_id=facts.trace_id,
        tool=facts.tool,
        command=facts.command,
        targets=targets,
        reply_type="",
        code="",
        contract_id=contract_id,
        approval_id=None,
        duration_ms=0.0,
        notes=(note,),
        server_id=facts.server_id,
        call=facts.call,
        client=facts.client,
        stage=stage,
    )
