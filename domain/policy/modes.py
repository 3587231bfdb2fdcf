"""Mode initialisation by an agent (law §4): it takes effect only once a human approves it.

`ck3_mode init` asks for a mode. The first call files a pending approval request bound to that exact mode
and answers Invalid with the approval id; once a human approves it (`ck3raven approve ID`), the same call
consumes the approval — stored as consumed before the mode changes, so one approval never works twice —
and the mode is set.
"""

from domain.policy import approvals
from domain.policy.approvals import Authority, State
from domain.replies.builder import Reply, ReplyBuilder
from domain.session import Session, mode_initialisation
from domain.vocabulary import Mode

KIND = "mode"


def init_mode(session: Session, wanted: Mode, authority: Authority) -> Reply:
    """Set the mode if a human approved exactly this; otherwise file (or point to) the approval request."""
    summary = f"Switch this ck3raven session to mode '{wanted.value}'."
    state, record = approvals.settle(authority, KIND, f"mode:{wanted.value}".encode(), summary)
    if state is State.APPROVED:
        initialise(session, wanted, f"approval:{record.approval_id}", authority)
        return ReplyBuilder().success(
            "MCP-CFG-S-005", {"mode": wanted.value, "approval_id": record.approval_id}
        )
    if state is State.DECLINED:  # a human said no: the agent is told so, not asked again until it expires
        return ReplyBuilder().invalid(
            "MCP-CFG-I-004", {"mode": wanted.value, "approval_id": record.approval_id}
        )
    return ReplyBuilder().invalid(
        "MCP-CFG-I-002",
        {
            "mode": wanted.value,
            "approval_id": record.approval_id,
            "hint": f"Ask the user to run `ck3raven approve {record.approval_id}`, then call init again.",
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
