"""The close gate (law §12; SPEC §7): reconcile the work done with the work declared, then close.

Every change since the baseline — committed, staged, unstaged, untracked — must match a declared target
and edit kind; undeclared work is Invalid, listed, and keeps the contract open. A close that agrees stores
its evidence in the state store first; only then is the contract marked closed and S answered.
"""

import json

from domain.contracts import reconciliation, records
from domain.contracts.lifecycle import own, summary
from domain.contracts.records import Status
from domain.failures import history_failure
from domain.replies.builder import Reply, ReplyBuilder
from domain.services import Services
from domain.session import Session
from ports.errors import PortError


def close_contract(session: Session, services: Services, contract_id: str | None) -> Reply:
    """Reconcile actual work with the declaration; close the contract when they agree."""
    record = own(session, services, contract_id)
    if isinstance(record, Reply):
        return record
    try:
        changes = reconciliation.changes(session.world, services.history, session.home, record)
    except PortError:
        return history_failure(record.root_category)
    declared = {t.address.casefold(): t.edit_kind for t in record.targets}
    undeclared = [c for c in changes if declared.get(str(c["address"]).casefold()) != c["kind"]]
    if undeclared:
        return ReplyBuilder().invalid(
            "CT-GATE-I-007", {"contract_id": record.contract_id, "undeclared": undeclared}
        )
    authority = services.authority
    closed = records.with_status(record, Status.CLOSED, authority.clock.now(), authority.signer)
    evidence = {
        "contract": json.loads(json.dumps(summary(closed))),
        "changes": changes,
        "closed_at": closed.closed_at,
        "signature": closed.state_signature,
    }
    try:
        with services.transactions.atomic():  # the evidence and the closed record land together, or neither
            artifact = services.evidence.put("close", record.contract_id, json.dumps(evidence, indent=1))
            services.contracts.put(closed)
    except PortError:
        return ReplyBuilder().error("CT-GATE-E-002", {"contract_id": record.contract_id})
    return ReplyBuilder().success(
        "CT-GATE-S-002", {"contract_id": record.contract_id, "changes": changes, "artifact": artifact}
    )
