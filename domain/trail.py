"""The audit rows the core writes in a decision's own transaction, so a crash after the decision and
before its reply leaves the decision in the audit all the same: a governed change's row, written with its
journal entry before the file changes; a contract's row, written with the record that opens, renews or
ends it; an approval's, written with the record that files, decides or spends it; a token's, written with
the NSTs, removals or LXE it declares or the HTTP client's token it makes or revokes. Each names the call
that made it (ports.audit.CallFacts), so one call's rows read as one; a person's decision on a terminal is
no tool call, and its row names none."""

from typing import Final

from attrs import evolve

from ports.approvals import ApprovalRecord
from ports.audit import AuditEntry, CallFacts
from ports.contracts import ContractRecord
from ports.journal import JournalEntry

CHANGE: Final = "change"
"""The stage of a governed change's row."""
DECISION: Final = "decision"
"""The stage of a decision's row: a contract's, an approval's, a token's."""


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


HUMAN: Final = CallFacts("<approval>")
"""What the row of a person's decision on an approval names for its call: none (a terminal or a client's
UI answered, not an agent's tool call)."""


def approval_row(record: ApprovalRecord, call: CallFacts | None, at: str) -> AuditEntry:
    """The row of an approval stored as it is now (asked, approved, declined or spent), at `at`."""
    state = {"pending": "asked", "consumed": "spent"}.get(record.state, record.state)
    row = _row(
        call,
        at=at,
        session_id=None,  # a call's own reply row names its session; a person's decision has none
        what=((), None),
        note=f"approval {record.approval_id} ({record.kind}) {state}",
        stage=DECISION,
    )
    return evolve(row, approval_id=record.approval_id)


def token_row(
    kind: str, contract_id: str, names: tuple[str, ...], call: CallFacts | None, at: str
) -> AuditEntry:
    """The row of tokens declared for a contract (`kind`: nst, removal or lxe), naming the files they are
    in (an LXE: its own file under policy/tokens/)."""
    return _row(
        call,
        at=at,
        session_id=None,
        what=(tuple(dict.fromkeys(n for n in names if n)), contract_id),
        note=f"{kind} tokens declared",
        stage=DECISION,
    )


def client_token_row(name: str, action: str, at: str) -> AuditEntry:
    """The row of an HTTP client's token made (`action` "add") or revoked ("revoke") by the operator's
    command: no server, no call; the client's name, never the token."""
    done = "made" if action == "add" else "revoked"
    row = _row(
        CallFacts("<token>", action),
        at=at,
        session_id=None,
        what=((), None),
        note=f"client token {done}",
        stage=DECISION,
    )
    return evolve(row, client=name)


def _row(  # noqa: PLR0913 - the call, and what its row says
    call: CallFacts | None,
    *,
    at: str,
    session_id: str | None,
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
