"""`ck3_contract` handlers: open, close, cancel, renew, status, list, stash_carry_over (law §12, §13) and
revert (SPEC §9).

Each handler decides one command; the gates in `domain.contracts` do the work. A contract governs only
the session that opened it.
"""

from typing import ClassVar, Self

from attrs import frozen

from domain.contracts import closing, lifecycle, opening, records, stash
from domain.contracts import revert as reverting
from domain.contracts.lifecycle import OpenRequest
from domain.contracts.records import DEFAULT_TTL_MINUTES
from domain.replies.builder import Reply
from domain.services import Services
from domain.session import Session
from domain.use_cases.arguments import Arg, contract_id, flag, given, number, objects, record, text
from domain.use_cases.request import Args, Request
from ports.contracts import TargetRecord

ROOT_OF_WORK = "the root the work is in"
TTL = "minutes it lasts (120)"
TARGET = record(
    "A target declared in a contract.",
    {
        "path": {"type": "string", "description": "the target's address"},
        "edit_kind": {
            "type": "string",
            "enum": ["add", "modify", "delete"],
            "description": "what the work does to it",
        },
    },
    ("path", "edit_kind"),
)


MOST_MINUTES = int(records.MAX_TTL.total_seconds() // 60)
"""The longest contract asked for, in minutes (what the opening enforces)."""


@frozen
class Open(Request):
    TOOL: ClassVar[str] = "ck3_contract"
    ARGS: ClassVar[tuple[Arg, ...]] = (
        text("root_category", ROOT_OF_WORK),
        text("intent", "why the work is done"),
        Arg(
            "operations",
            "what the work does",
            {"type": "array", "items": {"type": "string", "enum": ["READ", "WRITE", "DELETE"]}},
        ),
        objects("targets", "each file the work changes", TARGET),
        text("work_declaration", "what the work is, in a sentence"),
        number("ttl_minutes", TTL, high=MOST_MINUTES),
    )
    declared: OpenRequest

    @classmethod
    def build(cls, args: Args) -> Self:
        """The agent's declaration, as the arguments give it."""
        targets = tuple(TargetRecord(t["path"], t["edit_kind"]) for t in args.get("targets", ()))
        declared = OpenRequest(
            args.get("root_category", ""),
            args.get("intent", ""),
            tuple(args.get("operations", ())),
            targets,
            args.get("work_declaration", ""),
            "agent",
            args.get("ttl_minutes", DEFAULT_TTL_MINUTES),
        )
        return cls(declared)


@frozen
class Close(Request):
    TOOL: ClassVar[str] = "ck3_contract"
    contract_id: str | None = given(contract_id(), default=None)
    cursor: str | None = given(
        text("cursor", "the next_cursor of a refusal, for the rest of its list"), default=None
    )
    """Where a refusal's list goes on (the `next_cursor` of the refusal before)."""


@frozen
class Cancel(Request):
    TOOL: ClassVar[str] = "ck3_contract"
    contract_id: str | None = given(contract_id(), default=None)


@frozen
class Renew(Request):
    TOOL: ClassVar[str] = "ck3_contract"
    contract_id: str | None = given(contract_id())
    ttl_minutes: int = given(
        number("ttl_minutes", TTL, high=MOST_MINUTES), default=records.DEFAULT_TTL_MINUTES
    )


@frozen
class Status(Request):
    TOOL: ClassVar[str] = "ck3_contract"


@frozen
class ListContracts(Request):
    TOOL: ClassVar[str] = "ck3_contract"


@frozen
class StashCarryOver(Request):
    TOOL: ClassVar[str] = "ck3_contract"
    ARGS: ClassVar[tuple[Arg, ...]] = (
        text("root_category", ROOT_OF_WORK),
        contract_id(),
    )
    MUTATES: ClassVar[bool] = True
    root: str = "ROOT_REPO"
    cluster: str | None = None

    @classmethod
    def build(cls, args: Args) -> Self:
        return cls(args.get("root_category", "ROOT_REPO"), args.get("contract_id"))


@frozen
class Revert(Request):
    TOOL: ClassVar[str] = "ck3_contract"
    MUTATES: ClassVar[bool] = True
    contract_id: str | None = given(contract_id(), default=None)
    dry_run: bool = given(flag("dry_run", "only show what it would do"), default=False)


def revert(session: Session, services: Services, request: Revert) -> Reply:
    """Show, then (approved by a human) undo the open contract's changes since its baseline."""
    return reverting.revert(session, services, request.contract_id, dry_run=request.dry_run)


def open_contract(session: Session, services: Services, request: Open) -> Reply:
    """Open a contract of intended work for this session (the open gate decides)."""
    return opening.open_contract(session, services, request.declared)


def close(session: Session, services: Services, request: Close) -> Reply:
    """Reconcile the work with the declaration and close when they agree (the close gate decides)."""
    return closing.close_contract(session, services, request.contract_id, request.cursor)


def cancel(session: Session, services: Services, request: Cancel) -> Reply:
    """End this session's contract without reconciliation."""
    return lifecycle.cancel(session, services, request.contract_id)


def renew(session: Session, services: Services, request: Renew) -> Reply:
    """Open a new contract inheriting an ended one's scope and baseline."""
    return opening.renew(session, services, request.contract_id, request.ttl_minutes)


def status(session: Session, services: Services, _: Status) -> Reply:
    """This session's open contract, or none."""
    return lifecycle.status(session, services)


def list_contracts(_: Session, services: Services, __: ListContracts) -> Reply:
    """Every stored contract, inert ones marked."""
    return lifecycle.list_all(services)


def stash_carry_over(session: Session, services: Services, request: StashCarryOver) -> Reply:
    """Save and revert one carry-over cluster, once a human approves."""
    return stash.stash_carry_over(session, services, request.root, request.cluster)
