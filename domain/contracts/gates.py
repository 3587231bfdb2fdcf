"""The contract gates (law §12, §13; SPEC §7): open, close, cancel, renew, status, list. CT answers S, I
or E, never D.

Open checks the request, the one-open-contract rule, that every target resolves inside the contract's
root, that the capability matrix permits every declared mutation on every target ("scope infeasible"
otherwise), and that a human approved the protected targets; it records the git baseline. Close
reconciles every change since the baseline — committed, staged, unstaged, untracked — with the declared
targets and edit kinds, and writes an audit artifact.
"""

import json
from datetime import timedelta

from attrs import frozen

from domain.contracts import carry_over, reconciliation
from domain.contracts import records as law
from domain.contracts.records import Status
from domain.policy import approvals
from domain.policy.approvals import Authority, State
from domain.policy.capabilities import row_for
from domain.replies.builder import Reply, ReplyBuilder
from domain.session import Session
from domain.vocabulary import Operation, RootCategory
from domain.world.adapter import WorldAdapter
from ports.contracts import ContractRecord, ContractStore, TargetRecord
from ports.errors import PortError
from ports.files import Location
from ports.history import History
from ports.ledger import Ledger

Resolved = tuple[TargetRecord, Location, bool, bool]
"""A declared target made canonical, its place, whether inside a local mod, whether protected."""


@frozen
class OpenRequest:
    """What an agent declares when it opens a contract."""

    root_category: str
    intent: str
    operations: tuple[str, ...]
    targets: tuple[TargetRecord, ...]
    work_declaration: str
    author: str = "agent"
    ttl_minutes: int = 120


@frozen
class Clerk:
    """Everything the gates work with."""

    session: Session
    world: WorldAdapter
    store: ContractStore
    history: History
    authority: Authority
    ledger: Ledger


def active(clerk: Clerk) -> ContractRecord | None:
    """The one open, unexpired contract this session signed, if any."""
    now = clerk.authority.clock.now()
    return next(
        (r for r in clerk.store.all() if law.genuine(r, clerk.authority.signer) and law.live(r, now)), None
    )


def open_contract(clerk: Clerk, request: OpenRequest, *, renewed_from: ContractRecord | None = None) -> Reply:
    """Open a contract for `request` (inheriting the baseline of `renewed_from` when renewing)."""
    admitted = _admit(clerk, request)
    if isinstance(admitted, Reply):
        return admitted
    targets, approved = admitted
    root = RootCategory(request.root_category)
    try:
        head = clerk.history.head(root.value)
        carried = [] if renewed_from else carried_files(clerk, root, head)
    except PortError:
        return ReplyBuilder().error("CT-GATE-E-001", {"root": root.value})
    declared = {target.address.casefold() for target, _, _, _ in targets}
    counts = carry_over.escalate(clerk.ledger.load(), carried, declared)
    section = carry_over.report(carried, counts) if carried else None
    if carry_over.required(counts):
        return ReplyBuilder().invalid(
            "CT-GATE-I-008", {"required": carry_over.required(counts), "carry_over": section}
        )
    baseline = renewed_from.baseline_sha if renewed_from else head
    record = _record(clerk, request, targets, baseline, approved, renewed_from)
    clerk.store.put(record)
    if not renewed_from:
        clerk.ledger.save(counts)
    code = "CT-GATE-S-006" if renewed_from else "CT-GATE-S-001"
    return ReplyBuilder().success(code, {**_summary(record), "carry_over": section})


def _admit(clerk: Clerk, request: OpenRequest) -> tuple[list[Resolved], tuple[str, ...]] | Reply:
    """The resolved targets and the approved protected addresses, or why the request cannot open."""
    problems = _request_problems(request)
    if request.root_category not in {root.value for root in clerk.world.view.roots}:
        problems.append({"field": "root_category", "problem": "that root is not configured"})
    if problems:
        return ReplyBuilder().invalid("CT-GATE-I-001", {"errors": problems})
    current = active(clerk)
    if current is not None:
        return ReplyBuilder().invalid("CT-GATE-I-002", {"contract_id": current.contract_id})
    targets = _resolved(clerk, request)
    if isinstance(targets, Reply):
        return targets
    approved = _protected_approval(clerk, request, targets)
    if isinstance(approved, Reply):
        return approved
    return targets, approved


def carried_files(clerk: Clerk, root: RootCategory, head: str | None) -> list[carry_over.CarriedFile]:
    """The uncommitted changes under `root`, attributed to the earlier contracts that declared them."""
    if head is None:
        return []
    changes: list[tuple[str, str]] = [
        (clerk.world.address_of(root.value, c.parts), c.kind)
        for c in clerk.history.changes_since(root.value, head)
    ]
    now = clerk.authority.clock.now()
    earlier = [
        r for r in clerk.store.all() if not (law.genuine(r, clerk.authority.signer) and law.live(r, now))
    ]
    return carry_over.attribute(changes, earlier)


def close_contract(clerk: Clerk, contract_id: str | None) -> Reply:
    """Reconcile actual work with the declaration; close the contract when they agree."""
    record = _own(clerk, contract_id)
    if isinstance(record, Reply):
        return record
    changes = _changes(clerk, record)
    if isinstance(changes, Reply):
        return changes
    declared = {t.address.casefold(): t.edit_kind for t in record.targets}
    undeclared = [c for c in changes if declared.get(str(c["address"]).casefold()) != c["kind"]]
    if undeclared:
        return ReplyBuilder().invalid(
            "CT-GATE-I-007", {"contract_id": record.contract_id, "undeclared": undeclared}
        )
    now = clerk.authority.clock.now()
    closed = law.with_status(record, Status.CLOSED, now, clerk.authority.signer)
    artifact = _audit(clerk, closed, changes)
    clerk.store.put(closed)
    return ReplyBuilder().success(
        "CT-GATE-S-002", {"contract_id": record.contract_id, "changes": changes, "artifact": artifact}
    )


def cancel_contract(clerk: Clerk, contract_id: str | None) -> Reply:
    """Close a contract without reconciliation (its work stays as it is, and is carried over)."""
    record = _own(clerk, contract_id)
    if isinstance(record, Reply):
        return record
    now = clerk.authority.clock.now()
    clerk.store.put(law.with_status(record, Status.CANCELLED, now, clerk.authority.signer))
    return ReplyBuilder().success("CT-GATE-S-003", {"contract_id": record.contract_id})


def renew(clerk: Clerk, contract_id: str | None, ttl_minutes: int) -> Reply:
    """A new contract inheriting root, operations, targets, declaration and the original baseline."""
    old = clerk.store.get(contract_id or "")
    if old is None:
        return ReplyBuilder().invalid(
            "CT-GATE-I-006", {"contract_id": contract_id, "problem": "no such contract"}
        )
    if law.genuine(old, clerk.authority.signer) and law.live(old, clerk.authority.clock.now()):
        return ReplyBuilder().invalid(
            "CT-GATE-I-006", {"contract_id": old.contract_id, "problem": "still open"}
        )
    request = OpenRequest(
        old.root_category,
        old.intent,
        old.operations,
        old.targets,
        old.work_declaration,
        old.author,
        ttl_minutes,
    )
    return open_contract(clerk, request, renewed_from=old)


def status(clerk: Clerk) -> Reply:
    """The open contract (or none)."""
    record = active(clerk)
    return ReplyBuilder().success("CT-GATE-S-004", {"active": _summary(record) if record else None})


def list_contracts(clerk: Clerk) -> Reply:
    """Every stored contract; those of earlier sessions (or edited on disk) are marked inert."""
    signer = clerk.authority.signer
    rows = [
        {
            "contract_id": r.contract_id,
            "root_category": r.root_category,
            "status": r.status,
            "created_at": r.created_at,
            "inert": not law.genuine(r, signer),
            "renewed_from": r.renewed_from,
        }
        for r in sorted(clerk.store.all(), key=lambda r: r.created_at)
    ]
    return ReplyBuilder().success("CT-GATE-S-005", {"contracts": rows, "count": len(rows)})


# ------------------------------------------------------------------ the open gate's parts


def _request_problems(request: OpenRequest) -> list[dict[str, str]]:
    problems = []
    if request.root_category not in {root.value for root in RootCategory}:
        problems.append({"field": "root_category", "problem": "not a root category"})
    if not request.intent.strip() or not request.work_declaration.strip():
        problems.append(
            {"field": "intent", "problem": "intent and work_declaration must say what the work is"}
        )
    if not request.operations or not set(request.operations) <= {op.value for op in Operation}:
        problems.append({"field": "operations", "problem": "a non-empty subset of READ, WRITE, DELETE"})
    if not request.targets:
        problems.append({"field": "targets", "problem": "declare at least one target"})
    if any(t.edit_kind not in law.EDIT_KINDS for t in request.targets):
        problems.append({"field": "targets", "problem": "edit_kind is add, modify or delete"})
    if not 1 <= request.ttl_minutes <= law.MAX_TTL.total_seconds() // 60:
        problems.append(
            {"field": "ttl_minutes", "problem": f"from 1 to {int(law.MAX_TTL.total_seconds() // 60)}"}
        )
    return problems


def _resolved(clerk: Clerk, request: OpenRequest) -> list[Resolved] | Reply:
    """Each target canonical, with its place, whether it is inside a local mod, and whether protected."""
    resolved, outside, infeasible = [], [], []
    operations = {Operation(op) for op in request.operations} - {Operation.READ}
    for index, target in enumerate(request.targets):
        reply, ref = clerk.world.resolve(target.address, clerk.session.home, must_exist=False)
        facts = clerk.world.target(ref) if ref is not None else None
        if facts is None or facts.root.value != request.root_category:
            # the agent's text is never echoed (it may be a host path): its position and the reason are
            outside.append({"index": index, "problem": reply.code if ref is None else "lies in another root"})
            continue
        for operation in sorted(operations):
            row = (
                row_for(clerk.session.mode, facts.root, facts.parts, in_local_mod=facts.in_local_mod)
                if clerk.session.mode
                else None
            )
            if row is None or row.condition(operation) is None:
                infeasible.append({"address": facts.address, "operation": operation.value})
        location = Location(facts.root.value, facts.parts)
        resolved.append(
            (TargetRecord(facts.address, target.edit_kind), location, facts.in_local_mod, facts.protected)
        )
    if outside:
        return ReplyBuilder().invalid("CT-GATE-I-003", {"targets": outside})
    if infeasible:
        return ReplyBuilder().invalid("CT-GATE-I-004", {"targets": infeasible})
    return resolved


def _protected_approval(
    clerk: Clerk, request: OpenRequest, targets: list[Resolved]
) -> tuple[str, ...] | Reply:
    protected = sorted(t.address.casefold() for t, _, _, is_protected in targets if is_protected)
    if not protected:
        return ()
    payload = json.dumps([request.root_category, sorted(request.operations), protected]).encode()
    summary = f"Allow {', '.join(sorted(request.operations))} on protected files: {', '.join(protected)}"
    state, record = approvals.settle(clerk.authority, "contract", payload, summary)
    if state is State.APPROVED:
        return tuple(protected)
    return ReplyBuilder().invalid(
        "CT-GATE-I-005",
        {
            "approval_id": record.approval_id,
            "state": state.value,
            "targets": protected,
            "hint": f"Ask the user to run `ck3raven approve {record.approval_id}`, then open again.",
        },
    )


def _record(  # noqa: PLR0913, PLR0917 - the request and the three facts the gate established
    clerk: Clerk,
    request: OpenRequest,
    targets: list[Resolved],
    baseline: str | None,
    approved: tuple[str, ...],
    renewed_from: ContractRecord | None,
) -> ContractRecord:
    now = clerk.authority.clock.now()
    record = ContractRecord(
        contract_id=clerk.authority.ids.new_id("ct"),
        created_at=now.isoformat(),
        mode=clerk.session.mode.value if clerk.session.mode else "",
        root_category=request.root_category,
        intent=request.intent,
        operations=tuple(sorted(set(request.operations))),
        targets=tuple(t for t, _, _, _ in targets),
        work_declaration=request.work_declaration,
        author=request.author,
        baseline_sha=baseline,
        baseline_snapshot=_snapshot(clerk, targets, renewed_from) if baseline is None else (),
        expires_at=(now + timedelta(minutes=request.ttl_minutes)).isoformat(),
        renewed_from=renewed_from.contract_id if renewed_from else None,
        approvals=approved,
        session_signature="",
        status=Status.OPEN.value,
        closed_at=None,
        state_signature="",
    )
    return law.sign(record, clerk.authority.signer)


# ------------------------------------------------------------------ the close gate's parts


def _own(clerk: Clerk, contract_id: str | None) -> ContractRecord | Reply:
    record = active(clerk)
    if record is None or (contract_id and record.contract_id != contract_id):
        return ReplyBuilder().invalid(
            "CT-GATE-I-006", {"contract_id": contract_id, "problem": "not the open contract"}
        )
    return record


def _snapshot(
    clerk: Clerk, targets: list[Resolved], renewed_from: ContractRecord | None
) -> tuple[tuple[str, str | None], ...]:
    """Without git: the content digest of every declared target (inherited on renewal)."""
    if renewed_from is not None and renewed_from.baseline_snapshot:
        return renewed_from.baseline_snapshot
    return reconciliation.snapshot(
        clerk.world, [(target.address, location) for target, location, _, _ in targets]
    )


def _changes(clerk: Clerk, record: ContractRecord) -> list[dict[str, object]] | Reply:
    try:
        return reconciliation.changes(clerk.world, clerk.history, clerk.session.home, record)
    except PortError:
        return ReplyBuilder().error("CT-GATE-E-001", {"root": record.root_category})


def _audit(clerk: Clerk, record: ContractRecord, changes: list[dict[str, object]]) -> str | None:
    return reconciliation.write_evidence(
        clerk.world,
        record.contract_id,
        {
            "contract": json.loads(json.dumps(_summary(record))),
            "changes": changes,
            "closed_at": record.closed_at,
            "signature": record.state_signature,
        },
    )


def _summary(record: ContractRecord) -> dict[str, object]:
    return {
        "contract_id": record.contract_id,
        "root_category": record.root_category,
        "operations": list(record.operations),
        "targets": [{"address": t.address, "edit_kind": t.edit_kind} for t in record.targets],
        "expires_at": record.expires_at,
        "baseline_sha": record.baseline_sha,
        "baseline": "git"
        if record.baseline_sha
        else (
            "snapshot of the declared targets: the root is in no git repository, so only they are reconciled"
        ),
        "renewed_from": record.renewed_from,
        "status": record.status,
    }
