"""The open gate (law §12, §13.1 to §13.4; SPEC §7): CT answers S, I or E, never D.

Open checks the request, the one-open-contract-per-session rule, that every target resolves inside the
contract's root, that the capability matrix permits every declared mutation on every target ("scope
infeasible" otherwise) and that a human approved the targets that need one (protected files, and rows
such as the launcher registry that always ask); it records the baseline (`domain.contracts.baseline`:
each repository in the scope with its commit, and a manifest of the scope) and reports carry-over from
earlier work (`domain.contracts.carried`).
"""

import json
from datetime import timedelta

from attrs import frozen

from domain.compliance import closeout
from domain.contracts import baseline, carry_over, records
from domain.contracts.baseline import Baseline, ScopeTooDeep
from domain.contracts.carried import carried_files
from domain.contracts.lifecycle import (
    OpenRequest,
    expired_here,
    expired_reply,
    governing,
    held_elsewhere,
    summary,
)
from domain.contracts.records import Status
from domain.failures import history_failure
from domain.policy import approvals
from domain.policy.approvals import State
from domain.policy.capabilities import Condition, row_for
from domain.policy.enforcement import place_of
from domain.replies import budget
from domain.replies.builder import Reply, ReplyBuilder
from domain.replies.refusal import Refused
from domain.services import Services
from domain.session import Session
from domain.vocabulary import Operation, RootCategory
from domain.world.visibility import VisibilityRef
from ports.contracts import ContractRecord, TargetRecord
from ports.errors import PortError


@frozen
class AdmittedTarget:
    """A declared target made canonical: its record, the ref it resolved to, and whether a human must
    approve it (a protected file, or a row that always asks)."""

    record: TargetRecord
    ref: VisibilityRef
    needs_approval: bool


def open_contract(
    session: Session, services: Services, request: OpenRequest, *, renewed_from: ContractRecord | None = None
) -> Reply:
    """Open a contract for `request` (inheriting the baseline of `renewed_from` when renewing); raises
    Refused for a request that cannot open."""
    targets, approved = _admit(session, services, request)
    root = RootCategory(request.root_category)
    taken, carried = _found(session, services, root, targets) if renewed_from is None else (None, [])
    key = records.address_key(ignores_case=session.world.ignores_case(root.value))
    declared = {key(target.record.address) for target in targets}
    try:
        rules = closeout.ruleset_record(services, renewed_from.contract_id if renewed_from else None)
    except PortError:
        return ReplyBuilder().error("CT-GATE-E-003", {"contract_id": None})
    # read, escalate and write the counters in one transaction: two sessions opening at once never both
    # count from the same old value
    with services.transactions.atomic():
        successor = _successor(services, renewed_from)
        if renewed_from is not None and successor is not None:  # a way on, once: never a fork of a baseline
            problem = f"already renewed as {successor}"
            return ReplyBuilder().invalid(
                "CT-GATE-I-006", {"contract_id": renewed_from.contract_id, "problem": problem}
            )
        counts = carry_over.escalate(services.ledger.load(root.value), carried, declared, key=key)
        section = carry_over.report(carried, counts) if carried else None
        if carry_over.required(counts):  # decided on every file; a reply's worth of them shown
            return _carry_over_refused(carry_over.required(counts), section, budget.room(services.budget))
        bound = _bound(session, services, taken, renewed_from)
        record = _record(session, services, request, targets, (bound, approved, renewed_from))
        services.contracts.put(record)
        services.evidence.put("ruleset", record.contract_id, rules)
        if not renewed_from:
            services.ledger.save(root.value, counts)
    session.contract_id = record.contract_id
    code = "CT-GATE-S-006" if renewed_from else "CT-GATE-S-001"
    space = budget.room(services.budget) // 2  # half for the targets, half for the carry-over
    shown = carry_over.within(section, space) if section else None
    return ReplyBuilder().success(code, {**summary(record, space), "carry_over": shown})


def _carry_over_refused(required: list[str], section: dict[str, object] | None, space: int) -> Reply:
    """CT-GATE-I-008: the files that must be declared or stashed (counted, those that fit a third of
    `space` listed) and the carry-over section in the rest."""
    shown = required[: budget.rows_fitting(required, space // 3)]
    rest = space - budget.cost(shown)
    data = {"required": shown, "count": len(required)}
    return ReplyBuilder().invalid(
        "CT-GATE-I-008", {**data, "carry_over": carry_over.within(section, rest) if section else None}
    )


def renew(session: Session, services: Services, contract_id: str | None, ttl_minutes: int) -> Reply:
    """A new contract inheriting root, operations, targets, declaration and the original baseline."""
    expired = expired_here(session, services) if not contract_id else None
    if expired is not None:  # renew named no contract: the session's own that expired is the one meant
        return expired_reply(expired)
    old = services.contracts.get(contract_id or "")
    if old is None:
        return ReplyBuilder().invalid(
            "CT-GATE-I-006", {"contract_id": contract_id, "problem": "no such contract"}
        )
    problem = _not_renewable(old, services) or _of_another_line(session, services, old)
    if problem is not None:
        return ReplyBuilder().invalid("CT-GATE-I-006", {"contract_id": old.contract_id, "problem": problem})
    request = OpenRequest(
        old.root_category,
        old.intent,
        old.operations,
        old.targets,
        old.work_declaration,
        old.author,
        ttl_minutes,
    )
    return open_contract(session, services, request, renewed_from=old)


def _found(
    session: Session, services: Services, root: RootCategory, targets: list[AdmittedTarget]
) -> tuple[Baseline, list[carry_over.CarriedFile]]:
    """The baseline of a new contract's scope and the carry-over found in it (a renewal inherits its
    predecessor's baseline instead: never a fresh one over work done)."""
    named = tuple("/".join(session.world.location_of(t.ref).parts) for t in targets)
    try:
        taken, dirty = baseline.take(session, services, root.value, named)
        carried = carried_files(session, services, root, (dirty, [top for top, _ in taken.repositories]))
    except ScopeTooDeep:
        problem = {"field": "root_category", "problem": ScopeTooDeep.PROBLEM}
        raise Refused.invalid("CT-GATE-I-001", {"errors": [problem]}) from None
    except PortError:
        raise Refused(history_failure(root.value)) from None
    return taken, carried


def _bound(
    session: Session, services: Services, taken: Baseline | None, renewed_from: ContractRecord | None
) -> tuple[str | None, tuple[tuple[str, str | None], ...]]:
    """The baseline digest and repositories a contract is bound to: the one just taken, stored now (in the
    open's transaction), or the renewed contract's. Raises PortError."""
    if taken is None:
        assert renewed_from is not None  # noqa: S101 - only a renewal takes no baseline
        return renewed_from.baseline_sha, renewed_from.repositories
    sha = baseline.store(services, taken)
    world = session.world
    repositories = tuple(
        (world.address_of(taken.root, baseline.parts_of(top)), commit) for top, commit in taken.repositories
    )
    return sha, repositories


def _successor(services: Services, renewed_from: ContractRecord | None) -> str | None:
    """The contract that already renewed `renewed_from`, if any (checked inside the open's transaction)."""
    if renewed_from is None:
        return None
    renewals = (r.contract_id for r in services.contracts.all() if r.renewed_from == renewed_from.contract_id)
    return next(renewals, None)


def _not_renewable(old: ContractRecord, services: Services) -> str | None:
    """Why `old` cannot be renewed, or None. Law §13.2 renews an expired contract: one still open that can
    no longer govern (past its expiry, or left by a server process that ended, whose key is gone) — never
    a closed or cancelled one, nor one a session of another server that still runs holds open."""
    if old.status == Status.EXPIRED:
        return None
    if old.status != Status.OPEN:
        return f"it was {old.status}: only an expired contract is renewed"
    authority = services.authority
    if records.genuine(old, authority.signer) and records.live(old, authority.clock.now()):
        return "still open"
    if held_elsewhere(services, old):
        return "still open: a session of another running server holds it"
    return None


def _of_another_line(session: Session, services: Services, old: ContractRecord) -> str | None:
    """Why `old` is not of the caller's own line of work, or None. A contract ended in another session that
    still runs (another session of this server, or any session of another server that runs) is that
    session's to renew; only one whose session has ended with its server (stopped, killed, crashed) passes
    to whoever takes the work up (law §13.2: a new session if the original expired)."""
    if old.session_id == session.session_id:
        return None
    servers = services.servers
    if servers is None or old.server_id is None:  # no server ids: this server's own is signed by its key
        here = records.opened_here(old, services.authority.signer)
    else:
        here = old.server_id == servers.own
        if not here and servers.running(old.server_id):
            return "another running server's session holds its line of work: only that session renews it"
    if here:
        return "another session of this server holds its line of work: only that session renews it"
    return None


def _admit(
    session: Session, services: Services, request: OpenRequest
) -> tuple[list[AdmittedTarget], tuple[str, ...]]:
    """The resolved targets and the approved protected addresses; raises Refused saying why the request
    cannot open."""
    problems = _request_problems(request)
    if request.root_category not in {root.value for root in session.world.view.roots}:
        problems.append({"field": "root_category", "problem": "that root is not configured"})
    if problems:
        raise Refused.invalid("CT-GATE-I-001", {"errors": problems})
    current = governing(session, services)
    if current is not None:
        raise Refused.invalid("CT-GATE-I-002", {"contract_id": current.contract_id})
    targets = _resolved(session, request)
    return targets, _protected_approval(session, services, request, targets)


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
    if any(t.edit_kind not in records.EDIT_KINDS for t in request.targets):
        problems.append({"field": "targets", "problem": "edit_kind is add, modify or delete"})
    if not 1 <= request.ttl_minutes <= records.MAX_TTL.total_seconds() // 60:
        problems.append(
            {"field": "ttl_minutes", "problem": f"from 1 to {int(records.MAX_TTL.total_seconds() // 60)}"}
        )
    return problems


def _resolved(session: Session, request: OpenRequest) -> list[AdmittedTarget]:
    """Each target canonical, with its ref and whether it needs a human; raises Refused saying why some
    cannot be."""
    resolved, outside, infeasible = [], [], []
    operations = {Operation(op) for op in request.operations} - {Operation.READ}
    for index, target in enumerate(request.targets):
        try:
            ref = session.world.ref(target.address, session.home, must_exist=False)
        except Refused as refused:
            outside.append(_unresolved(index, refused.reply))
            continue
        facts = session.world.target(ref)
        if facts.root.value != request.root_category:
            outside.append({"index": index, "problem": "lies in another root"})
            continue
        row = (
            row_for(session.mode, facts.root, facts.parts, in_local_mod=facts.in_local_mod)
            if session.mode
            else None
        )
        infeasible += [
            {"address": facts.address, "operation": operation.value}
            for operation in sorted(operations)
            if row is None or row.condition(operation) is None
        ]
        asks = row is not None and any(
            row.condition(op) is Condition.CONTRACT_AND_APPROVAL for op in operations
        )
        record = TargetRecord(facts.address, target.edit_kind)
        resolved.append(AdmittedTarget(record, ref, facts.protected or asks))
    outside = outside or _spelled_twice(session, request.root_category, resolved)
    if outside:
        raise Refused.invalid("CT-GATE-I-003", {"targets": outside})
    if infeasible:
        raise Refused.invalid("CT-GATE-I-004", {"targets": infeasible})
    return resolved


def _spelled_twice(session: Session, root: str, resolved: list[AdmittedTarget]) -> list[dict[str, object]]:
    """The targets naming a file an earlier target names under another spelling, on a root whose
    filesystem ignores case: there the two are one file, and it has one spelling (SPEC §3)."""
    if not session.world.ignores_case(root):
        return []
    first: dict[str, str] = {}
    twice: list[dict[str, object]] = []
    for index, target in enumerate(resolved):
        address = target.record.address
        named = first.setdefault(address.casefold(), address)
        if named != address:
            twice.append(
                {"index": index, "problem": "another target names the same file", "canonical": named}
            )
    return twice


def _unresolved(index: int, reply: Reply) -> dict[str, object]:
    """Why the target at `index` does not resolve (`reply`, the refusal of its resolution). The agent's
    text is never echoed (it may be a host path): its position and the reason are, and the one spelling of
    a target spelled otherwise (it comes from disk)."""
    if reply.code == "WA-RES-I-019":
        return {"index": index, "problem": reply.code, "canonical": reply.data["canonical"]}
    return {"index": index, "problem": reply.code}


def _protected_approval(
    session: Session, services: Services, request: OpenRequest, targets: list[AdmittedTarget]
) -> tuple[str, ...]:
    """The protected targets' places, approved by a human; raises Refused asking for that approval."""
    # approved by where they are, not by a spelling the session's playset decides (`mod:<Name>:/`)
    protected = sorted(place_of(session.world.target(t.ref)) for t in targets if t.needs_approval)
    if not protected:
        return ()
    operations = sorted(request.operations)
    payload = json.dumps([request.root_category, operations, protected, request.intent]).encode()
    summary_text = (
        f"Open a contract on {request.root_category} to {', '.join(operations)} files that need your "
        f"approval: {', '.join(protected)}. The agent's intent: {request.intent}"
    )
    if not approvals.fits(summary_text):  # a person must see all of what they approve
        problem = "too long to show a person whole: declare fewer protected targets or a shorter intent"
        raise Refused.invalid("CT-GATE-I-001", {"errors": [{"field": "targets", "problem": problem}]})
    state, record = approvals.settle(
        services.authority, "contract", payload, summary_text, session_id=session.session_id
    )
    if state is State.APPROVED:
        return tuple(protected)
    raise Refused.invalid(
        "CT-GATE-I-005",
        {
            "approval_id": record.approval_id,
            "state": state.value,
            "targets": protected,
            "hint": approvals.hint(services.authority, record.approval_id, "open again"),
        },
    )


def _record(
    session: Session,
    services: Services,
    request: OpenRequest,
    targets: list[AdmittedTarget],
    established: tuple[
        tuple[str | None, tuple[tuple[str, str | None], ...]], tuple[str, ...], ContractRecord | None
    ],
) -> ContractRecord:
    """The signed record; `established` is what the gate found: baseline, approvals, the renewed one."""
    (sha, repositories), approved, renewed_from = established
    authority = services.authority
    now = authority.clock.now()
    record = ContractRecord(
        contract_id=authority.ids.new_id("ct"),
        created_at=now.isoformat(),
        session_id=session.session_id,
        mode=session.mode.value if session.mode else "",
        root_category=request.root_category,
        intent=request.intent,
        operations=tuple(sorted(set(request.operations))),
        targets=tuple(t.record for t in targets),
        work_declaration=request.work_declaration,
        author=request.author,
        baseline_sha=sha,
        repositories=repositories,
        expires_at=(now + timedelta(minutes=request.ttl_minutes)).isoformat(),
        renewed_from=renewed_from.contract_id if renewed_from else None,
        approvals=approved,
        session_signature="",
        status=Status.OPEN.value,
        closed_at=None,
        state_signature="",
        server_id=services.servers.own if services.servers is not None else None,
    )
    return records.sign(record, authority.signer)
