"""`revert` (SPEC §9): undo the open contract's work, shown first, then done with a human's approval.

A dry run lists every change since the contract's git baseline (committed, staged, unstaged, untracked)
and what reverting does to it: a modified or deleted file is restored to its baseline content, an added
file is removed. The revert itself saves every file's current content in the state store first (as a
stash does), each file passes enforcement as the write or delete it is, and nothing happens without an
approval bound to exactly this contract, session and list of changes.
"""

import json

from domain.contracts import reconciliation
from domain.contracts.lifecycle import active_contract, own
from domain.contracts.stash import readable, restore
from domain.failures import history_failure
from domain.policy import approvals
from domain.policy.approvals import State
from domain.policy.enforcement import enforce
from domain.replies.builder import Reply, ReplyBuilder
from domain.services import Services
from domain.session import Session
from domain.vocabulary import Operation
from domain.world.visibility import VisibilityRef
from ports.contracts import ContractRecord
from ports.errors import PortError

ACTIONS = {"add": "remove", "modify": "restore", "delete": "recreate"}


def revert(session: Session, services: Services, contract_id: str | None, *, dry_run: bool) -> Reply:
    """Show (dry run) or do the revert of the open contract's changes to its baseline."""
    planned = _plan(session, services, contract_id)
    if isinstance(planned, Reply):
        return planned
    record, plan = planned
    if dry_run or not plan:
        return ReplyBuilder().success(
            "CT-GATE-S-008", {"contract_id": record.contract_id, "files": plan, "count": len(plan)}
        )
    files = _prepared(session, services, record.contract_id, plan)
    if isinstance(files, Reply):
        return files
    approval_id = _approved(session, services, record.contract_id, plan)
    if isinstance(approval_id, Reply):
        return approval_id
    at = (record.root_category, str(record.baseline_sha))
    failed = restore(session, services, at, files, ("revert", approval_id, record.contract_id))
    if failed is not None:
        return failed
    return ReplyBuilder().success(
        "CT-GATE-S-009",
        {"contract_id": record.contract_id, "files": plan, "count": len(plan), "saved_as": approval_id},
    )


def _plan(
    session: Session, services: Services, contract_id: str | None
) -> tuple[ContractRecord, list[dict[str, object]]] | Reply:
    """The open contract and, for each change since its baseline, what reverting does to it."""
    record = own(session, services, contract_id)
    if isinstance(record, Reply):
        return record
    if record.baseline_sha is None:
        problem = "its root has no git baseline, so there is no earlier content to restore"
        return ReplyBuilder().invalid(
            "CT-GATE-I-006", {"contract_id": record.contract_id, "problem": problem}
        )
    try:
        changes = reconciliation.changes(session.world, services.history, session.home, record)
    except PortError:
        return history_failure(record.root_category)
    return record, [{**change, "action": ACTIONS[str(change["kind"])]} for change in changes]


def _approved(
    session: Session, services: Services, contract_id: str, plan: list[dict[str, object]]
) -> str | Reply:
    """The id of a human approval of exactly this revert, or the reply that asks for one."""
    summary = f"Revert contract {contract_id}: " + "; ".join(f"{p['action']} {p['address']}" for p in plan)
    if not approvals.fits(summary):  # a person must see all of what they approve: never cut
        problem = "too many files to show a person at once"
        return ReplyBuilder().invalid("CT-GATE-I-006", {"contract_id": contract_id, "problem": problem})
    payload = json.dumps([contract_id, [(p["address"], p["kind"]) for p in plan]]).encode()
    state, approval = approvals.settle(
        services.authority, "revert", payload, summary, session_id=session.session_id
    )
    if state is State.APPROVED:
        return approval.approval_id
    return ReplyBuilder().invalid(
        "CT-GATE-I-005",
        {
            "approval_id": approval.approval_id,
            "state": state.value,
            "targets": [p["address"] for p in plan],
            "hint": approvals.hint(services.authority, approval.approval_id, "revert again"),
        },
    )


def _prepared(
    session: Session, services: Services, contract_id: str, plan: list[dict[str, object]]
) -> list[tuple[str, str, VisibilityRef]] | Reply:
    """The files to revert, each permitted now and each one whose content can be saved first; or the
    refusal, before a human is asked."""
    refs = _permitted(session, services, plan)
    if isinstance(refs, Reply):
        return refs
    files = [(str(p["address"]), str(p["kind"]), ref) for p, ref in zip(plan, refs, strict=True)]
    unsaveable = readable(session, files)
    if unsaveable is not None:
        problem = f"{unsaveable} cannot be saved before it is restored (too large, or not a regular file)"
        return ReplyBuilder().invalid("CT-GATE-I-006", {"contract_id": contract_id, "problem": problem})
    return files


def _permitted(
    session: Session, services: Services, plan: list[dict[str, object]]
) -> list[VisibilityRef] | Reply:
    """A ref for every file to revert, each permitted now as the write or delete it is; or the first
    refusal, before anything changes."""
    contract = active_contract(session, services)
    refs = []
    for item in plan:
        _, ref = session.world.resolve(str(item["address"]), session.home, must_exist=False)
        if ref is None:
            problem = f"{item['address']} no longer resolves"
            return ReplyBuilder().invalid("CT-GATE-I-006", {"contract_id": None, "problem": problem})
        operation = Operation.DELETE if item["action"] == "remove" else Operation.WRITE
        decision = enforce(session.mode, operation, session.world.target(ref), contract)
        if decision.terminal:
            return decision
        refs.append(ref)
    return refs
