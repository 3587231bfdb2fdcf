"""Mode initialisation by an agent (law §4): it takes effect only once a human approves it.

`ck3_mode init` asks for a mode. The first call files a pending approval request bound to that exact mode
and answers Invalid with the approval id; once a human approves it (`ck3raven approve ID`), the same call
consumes the approval — stored as consumed before the mode changes, so one approval never works twice —
and the mode is set.
"""

from datetime import datetime

from domain import approvals
from domain.approvals import Authority, State
from domain.replies import Reply, ReplyBuilder
from domain.session import Session, mode_initialisation
from domain.vocabulary import Mode
from ports.approvals import ApprovalRecord

KIND = "mode"


def init_mode(session: Session, wanted: Mode, authority: Authority) -> Reply:
    """Set the mode if a human approved exactly this; otherwise file (or point to) the approval request."""
    payload = f"mode:{wanted.value}".encode()
    now = authority.clock.now()
    for record in authority.store.all():
        consumed = approvals.consume(record, KIND, payload, now=now, signer=authority.signer)
        if consumed is not None:
            authority.store.put(consumed)
            initialise(session, wanted, f"approval:{record.approval_id}", authority)
            return ReplyBuilder().success(
                "MCP-CFG-S-005", {"mode": wanted.value, "approval_id": record.approval_id}
            )
    declined = next(
        (r for r in authority.store.all() if _live_for(r, State.DECLINED, payload, authority, now)), None
    )
    if declined is not None:  # a human said no: the agent is told so, not asked again until it expires
        return ReplyBuilder().invalid(
            "MCP-CFG-I-004", {"mode": wanted.value, "approval_id": declined.approval_id}
        )
    waiting = next(
        (r for r in authority.store.all() if _live_for(r, State.PENDING, payload, authority, now)), None
    )
    if waiting is None:
        summary = f"Switch this ck3raven session to mode '{wanted.value}'."
        waiting = approvals.request(authority, KIND, payload, summary)
    return ReplyBuilder().invalid(
        "MCP-CFG-I-002",
        {
            "mode": wanted.value,
            "approval_id": waiting.approval_id,
            "hint": f"Ask the user to run `ck3raven approve {waiting.approval_id}`, then call init again.",
        },
    )


def initialise(session: Session, mode: Mode, source: str, authority: Authority) -> None:
    """Set the mode and seal the record of who set it with the session's Sigil."""
    session.mode = mode
    session.mode_source = source
    session.mode_seal = authority.signer.sign(mode_initialisation(mode, source))


def sealed(session: Session, authority: Authority | None) -> bool:
    """Whether the session's mode record carries this session's seal."""
    if session.mode is None or session.mode_source is None or session.mode_seal is None or authority is None:
        return False
    return authority.signer.verify(mode_initialisation(session.mode, session.mode_source), session.mode_seal)


def _live_for(
    record: ApprovalRecord, state: State, payload: bytes, authority: Authority, now: datetime
) -> bool:
    return (
        record.kind == KIND
        and record.state == state
        and record.payload_digest == approvals.digest(payload)
        and approvals.genuine(record, authority.signer)
        and approvals.live(record, now)
    )
