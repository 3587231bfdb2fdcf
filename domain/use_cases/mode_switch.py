"""`ck3_mode` handlers: status, and init by an agent (law §4), which takes effect only once a human
approves it.

The first `init` files a pending approval request bound to that exact mode and this session and answers
Invalid with the approval id; once a human approves it, the same call consumes the approval — stored as
consumed before the mode changes, so one approval never works twice — and this session's mode is set.
"""

from typing import ClassVar, Self

from attrs import evolve, frozen

from domain.policy import approvals
from domain.policy.approvals import Authority, State
from domain.replies.builder import Reply, ReplyBuilder
from domain.services import Services
from domain.session import Session, mode_initialisation
from domain.use_cases.arguments import choice, given
from domain.use_cases.request import Args, Request
from domain.vocabulary import Mode

KIND = "mode"


@frozen
class ModeStatus(Request):
    TOOL: ClassVar[str] = "ck3_mode"
    MODELESS: ClassVar[bool] = True


@frozen
class ModeInit(Request):
    TOOL: ClassVar[str] = "ck3_mode"
    MODELESS: ClassVar[bool] = True
    mode: Mode = given(choice("mode", "the mode to ask for", [m.value for m in Mode], required=True))

    @classmethod
    def build(cls, args: Args) -> Self:
        return cls(Mode(args["mode"]))


def status(session: Session, services: Services, _: ModeStatus) -> Reply:
    """The session mode (None until initialised), who initialised it and whether its seal holds."""
    mode = session.mode.value if session.mode else None
    return ReplyBuilder().success(
        "MCP-CFG-S-002",
        {
            "mode": mode,
            "initialised": mode is not None,
            "source": session.mode_source,
            "sealed": sealed(session, services.authority),
        },
    )


def init(session: Session, services: Services, request: ModeInit) -> Reply:
    """Set the mode if a human approved exactly this; otherwise file (or point to) the approval request."""
    wanted = request.mode
    summary = f"Switch this ck3raven session to mode '{wanted.value}'."
    state, record = approvals.settle(
        services.authority, KIND, f"mode:{wanted.value}".encode(), summary, session_id=session.session_id
    )
    if state is State.APPROVED:
        initialise(session, wanted, f"approval:{record.approval_id}", services.authority)
        session.world.set_view(evolve(session.world.view, mode=wanted))
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
            "hint": approvals.hint(services.authority, record.approval_id, "call init again"),
        },
    )


def initialise(session: Session, mode: Mode, source: str, authority: Authority) -> None:
    """Set the mode and seal the record of who set it with the server's Sigil."""
    session.mode = mode
    session.mode_source = source
    session.mode_seal = authority.signer.sign(mode_initialisation(mode, source))


def sealed(session: Session, authority: Authority) -> bool:
    """Whether the session's mode record carries this server's seal."""
    if session.mode is None or session.mode_source is None or session.mode_seal is None:
        return False
    return authority.signer.verify(mode_initialisation(session.mode, session.mode_source), session.mode_seal)
