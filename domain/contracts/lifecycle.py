"""Which contract governs a session, and the lifecycle commands that need no reconciliation: cancel,
status, list (law §13; SPEC §7). CT answers S, I or E, never D.

A contract governs only the session that opened it, and only while its signatures verify (this server
process signed it exactly as it stands), it is open and unexpired: finding it is one lookup by id, and the
verified record is kept in the session while the store's version says nothing was written since.
"""

import json
from contextlib import suppress

from attrs import frozen

from domain.contracts import records
from domain.contracts.records import Status
from domain.policy.enforcement import ActiveContract
from domain.replies import budget
from domain.replies.builder import Reply, ReplyBuilder
from domain.replies.refusal import Refused
from domain.services import Services
from domain.session import Session, Verified
from ports.contracts import ContractRecord, TargetRecord
from ports.errors import PortError


@frozen
class OpenRequest:
    """What an agent declares when it opens a contract."""

    root_category: str
    intent: str
    operations: tuple[str, ...]
    targets: tuple[TargetRecord, ...]
    work_declaration: str
    author: str = "agent"
    ttl_minutes: int = records.DEFAULT_TTL_MINUTES


def governing(session: Session, services: Services) -> ContractRecord | None:
    """The one open, unexpired contract this session opened and this process signed, if any."""
    verified = _verified(session, services)
    if verified is None:
        return None
    record, authority = verified.record, services.authority
    now = authority.clock.now()
    if not records.live(record, now):
        if record.status == Status.OPEN:  # seen expired: recorded, so no later clock brings it back
            with suppress(PortError):
                services.contracts.put(records.with_status(record, Status.EXPIRED, now, authority.signer))
        return None
    return record


def held_elsewhere(services: Services, record: ContractRecord) -> bool:
    """Whether a session of another server holds `record`: open, unexpired, and opened on a server that
    still runs (its key is not this server's, but the contract is live where it was made, not inert)."""
    servers, server_id = services.servers, record.server_id
    if servers is None or server_id is None or server_id == servers.own:
        return False
    return records.live(record, services.authority.clock.now()) and servers.running(server_id)


def active_contract(session: Session, services: Services) -> ActiveContract | None:
    """The governing contract as enforcement needs it (mode included: one made in another mode is none)."""
    if governing(session, services) is None:  # expiry seen here is recorded there
        return None
    verified = _verified(session, services)
    if verified is None:
        return None
    if session.mode is None or verified.record.mode != session.mode.value:
        return None
    return verified.active


def _verified(session: Session, services: Services) -> Verified | None:
    """The session's contract, read and its signatures verified once per version of the store: while the
    store reports the version it was read at, no record has changed, here or in another process (expiry
    is checked by the caller at every call)."""
    if session.contract_id is None:
        session.verified = None
        return None
    version = services.contracts.version()  # before the read: a write after it shows as a new version
    kept = session.verified
    if kept is not None and kept.version == version and kept.record.contract_id == session.contract_id:
        return kept
    record = services.contracts.get(session.contract_id)
    if (
        record is None
        or record.session_id != session.session_id
        or not records.genuine(record, services.authority.signer)
    ):
        session.verified = None
        return None
    session.verified = Verified(version, record, records.as_active(record))
    return session.verified


def expired_here(session: Session, services: Services) -> ContractRecord | None:
    """The contract this session opened, when it has expired (none: it is live, closed, or there is none)."""
    if governing(session, services) is not None:  # an expiry seen here is recorded there
        return None
    verified = _verified(session, services)
    if verified is None:
        return None
    record = verified.record
    expired = record.status == Status.EXPIRED or (
        record.status == Status.OPEN and not records.live(record, services.authority.clock.now())
    )
    return record if expired else None


def expired_reply(record: ContractRecord) -> Reply:
    """CT-GATE-I-013: the session's contract expired; the ready call renews it."""
    renew = {"command": "renew", "contract_id": record.contract_id}
    data = {"contract_id": record.contract_id, "expires_at": record.expires_at}
    return ReplyBuilder().invalid(
        "CT-GATE-I-013", data | {"request": {"tool": "ck3_contract", "arguments": renew}}
    )


def owned(session: Session, services: Services, contract_id: str | None) -> ContractRecord:
    """The governing contract when `contract_id` names it (or is empty); raises Refused (Invalid) otherwise
    (the session's own contract that expired is named, with the call that renews it)."""
    record = governing(session, services)
    expired = expired_here(session, services) if record is None else None
    if expired is not None and contract_id in {None, "", expired.contract_id}:
        raise Refused(expired_reply(expired))
    if record is None or (contract_id and record.contract_id != contract_id):
        raise Refused.invalid(
            "CT-GATE-I-006", {"contract_id": contract_id, "problem": "not the open contract"}
        )
    return record


def cancel(session: Session, services: Services, contract_id: str | None) -> Reply:
    """Close a contract without reconciliation (its work stays as it is, and is carried over); raises
    Refused when it is not the session's open contract."""
    record = owned(session, services, contract_id)
    authority = services.authority
    services.contracts.put(
        records.with_status(record, Status.CANCELLED, authority.clock.now(), authority.signer)
    )
    return ReplyBuilder().success("CT-GATE-S-003", {"contract_id": record.contract_id})


def status(session: Session, services: Services) -> Reply:
    """The open contract of this session (or none), and the last one it closed with its evidence and
    what that evidence says of compliance (outcome, ruleset hash, new symbols, NSTs, findings, LXEs); the
    compliance of evidence that names a host path (kept before names were screened) is left out."""
    record = governing(session, services)
    last = services.contracts.get(session.contract_id) if record is None and session.contract_id else None
    closed = None
    if last is not None and last.status == Status.CLOSED and records.genuine(last, services.authority.signer):
        evidence = services.evidence.find("close", last.contract_id)
        document = services.evidence.document("close", last.contract_id)
        compliance = json.loads(document).get("compliance") if document else None
        if services.leaks.findings(compliance):  # kept before names were screened: no reply can show it
            compliance = None
        closed = {
            "contract_id": last.contract_id,
            "closed_at": last.closed_at,
            "evidence": evidence,
            "compliance": compliance,
        }
    return ReplyBuilder().success(
        "CT-GATE-S-004",
        {
            "active": summary(record, budget.room(services.budget) // 2) if record else None,
            "last_closed": closed,
        },
    )


def list_all(services: Services) -> Reply:
    """Every stored contract; those of earlier server processes (or edited on disk) are marked inert, and
    those a session of another running server holds are not."""
    signer = services.authority.signer
    rows = [
        {
            "contract_id": r.contract_id,
            "root_category": r.root_category,
            "status": r.status,
            "created_at": r.created_at,
            "inert": not records.genuine(r, signer) and not held_elsewhere(services, r),
            "renewed_from": r.renewed_from,
        }
        for r in sorted(services.contracts.all(), key=lambda r: r.created_at)
    ]
    return ReplyBuilder().success("CT-GATE-S-005", {"contracts": rows, "count": len(rows)})


def summary(record: ContractRecord, space: int | None = None) -> dict[str, object]:
    """What a reply says about a contract: its targets counted in full, and listed (those that fit
    `space` bytes, when given; the contract's status lists them all within a larger budget)."""
    targets = [{"address": t.address, "edit_kind": t.edit_kind} for t in record.targets]
    return {
        "contract_id": record.contract_id,
        "root_category": record.root_category,
        "operations": list(record.operations),
        "targets": targets if space is None else targets[: budget.rows_fitting(targets, space)],
        "target_count": len(targets),
        "expires_at": record.expires_at,
        "baseline_sha": record.baseline_sha,
        "baseline": (
            f"a manifest of the scope and {len(record.repositories)} git repositories in it"
            if record.repositories
            else "a manifest of the scope (no git repository in it)"
        ),
        "repositories": [{"address": address, "commit": commit} for address, commit in record.repositories],
        "renewed_from": record.renewed_from,
        "status": record.status,
    }
