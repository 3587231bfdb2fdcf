"""`revert` (SPEC §7, §9): undo the open contract's own work, shown first, then done with a human's approval.

Only what the contract's journal (and that of the contracts it renews) changed is in scope: a modified or
deleted file goes back to the content the journal kept before the contract's first change to it, an added
one is removed. A file whose content is no longer what the contract left is listed (`changed_since`) and
left alone; a human's own edits and untracked files, which no journal entry of the contract names, are
never touched; commits stay in history and are listed. The revert saves every file's current content in
the state store first (as a stash does), each file passes enforcement as the write or delete it is, and
nothing happens without an approval bound to exactly this contract, session and list of changes.
"""

import json

from domain.contracts import journal
from domain.contracts.baseline import digest
from domain.contracts.lifecycle import active_contract, owned
from domain.contracts.stash import LIMIT, Restoring, restore
from domain.failures import history_failure
from domain.policy import approvals
from domain.policy.approvals import State
from domain.policy.enforcement import permit
from domain.replies.builder import Reply, ReplyBuilder
from domain.replies.refusal import Refused
from domain.services import Services
from domain.session import Session
from domain.vocabulary import Operation, RootCategory
from domain.world.visibility import VisibilityRef
from ports.contracts import ContractRecord
from ports.errors import NotFound, PortError
from ports.journal import JournalEntry

ACTIONS = {"add": "remove", "modify": "restore", "delete": "recreate"}


def revert(session: Session, services: Services, contract_id: str | None, *, dry_run: bool) -> Reply:
    """Show (dry run) or do the revert of the open contract's own journaled changes; raises Refused for
    what stops it before anything changes."""
    record, plan, kept = _plan(session, services, contract_id)
    shown = [{key: step[key] for key in ("address", "kind", "action")} for step in plan]
    data = {"contract_id": record.contract_id, "files": shown, "count": len(plan), **kept}
    if dry_run or not plan:
        return ReplyBuilder().success("CT-GATE-S-008", data)
    files = _prepared(session, services, record.contract_id, plan)
    approval_id = _approved(session, services, record.contract_id, plan)
    restore(session, services, record.root_category, files, ("revert", approval_id, record.contract_id))
    return ReplyBuilder().success("CT-GATE-S-009", {**data, "saved_as": approval_id})


def _plan(
    session: Session, services: Services, contract_id: str | None
) -> tuple[ContractRecord, list[dict[str, object]], dict[str, object]]:
    """The open contract; for each file its journal changed and that is still as it left it, what
    reverting does; and what is left alone (files changed since, commits)."""
    record = owned(session, services, contract_id)
    root = record.root_category
    ids = journal.chain(services, record)
    try:
        work = journal.per_file(session, services, ids, root)
        plan, changed_since = [], []
        for _, done in sorted(work.items()):
            now = _now(session, root, done)
            reached = journal.undoable(done, now)
            if reached is None:  # changed again since, outside the contract: never overwritten
                changed_since.append(done.address)
            elif reached.before != done.last.after:
                plan.append(_step(done, reached))
        made = [_commit(e) for e in journal.commits(services, ids)]
    except PortError:
        raise Refused(history_failure(root)) from None
    return record, plan, {"changed_since": changed_since, "commits": made}


def _now(session: Session, root: str, done: journal.FileWork) -> str | None:
    """The digest of the file now (None: absent); raises Refused (Invalid) when it cannot be read, so it is
    neither known to be as the contract left it nor able to be saved before it is restored."""
    ref = session.world.ref_or_none(done.address, RootCategory(root), must_exist=False)
    try:
        return digest(session.world.read_file(ref, LIMIT)) if ref is not None and ref.kind else None
    except NotFound:
        return None
    except PortError:
        problem = f"{done.address} cannot be read, so it cannot be saved before it is restored"
        raise Refused.invalid(
            "CT-GATE-I-006", {"contract_id": done.last.contract_id, "problem": problem}
        ) from None


def _step(done: journal.FileWork, reached: JournalEntry) -> dict[str, object]:
    before, after = reached.before, done.last.after
    kind = "add" if before is None else ("delete" if after is None else "modify")
    return {"address": done.address, "kind": kind, "action": ACTIONS[kind], "entry": reached.entry_id}


def _commit(entry: JournalEntry) -> dict[str, object]:
    return {"address": entry.address, "commit": entry.after, "parent": entry.before}


def _approved(session: Session, services: Services, contract_id: str, plan: list[dict[str, object]]) -> str:
    """The id of a human approval of exactly this revert; raises Refused with the reply that asks for one."""
    summary = f"Revert contract {contract_id}: " + "; ".join(f"{p['action']} {p['address']}" for p in plan)
    if not approvals.fits(summary):  # a person must see all of what they approve: never cut
        problem = "too many files to show a person at once"
        raise Refused.invalid("CT-GATE-I-006", {"contract_id": contract_id, "problem": problem})
    payload = json.dumps([contract_id, [(p["address"], p["kind"]) for p in plan]]).encode()
    state, approval = approvals.settle(
        services.authority, "revert", payload, summary, session_id=session.session_id
    )
    if state is State.APPROVED:
        return approval.approval_id
    raise Refused.invalid(
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
) -> Restoring:
    """The files to revert with the content each goes back to, each permitted now and each one whose content
    before was kept (each was read whole to be planned, so each can be saved first); raises Refused before
    a human is asked."""
    refs = _permitted(session, services, plan)
    files: Restoring = []
    for step, ref in zip(plan, refs, strict=True):
        content = services.journal.content_before(str(step["entry"]))  # None for an added file: it was absent
        if step["kind"] != "add" and content is None:
            problem = f"{step['address']}: its content before was too large to keep, so it cannot be restored"
            raise Refused.invalid("CT-GATE-I-006", {"contract_id": contract_id, "problem": problem})
        files.append((str(step["address"]), str(step["kind"]), ref, content))
    return files


def _permitted(session: Session, services: Services, plan: list[dict[str, object]]) -> list[VisibilityRef]:
    """A ref for every file to revert, each permitted now as the write or delete it is; raises Refused with
    the first refusal, before anything changes."""
    contract = active_contract(session, services)
    refs = []
    for item in plan:
        ref = session.world.ref_or_none(str(item["address"]), session.home, must_exist=False)
        if ref is None:
            problem = f"{item['address']} no longer resolves"
            raise Refused.invalid("CT-GATE-I-006", {"contract_id": None, "problem": problem})
        operation = Operation.DELETE if item["action"] == "remove" else Operation.WRITE
        permit(session.mode, operation, session.world.target(ref), contract)
        refs.append(ref)
    return refs
