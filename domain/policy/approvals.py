"""Human approval (HAT, law §11.2): a server-side record a human approves through a channel the agent's
tools cannot reach, bound to the exact payload it approves, single use, expiring after five minutes.

Every record is signed with the server's Sigil over all its fields, state included, so a record edited on
disk, or left by an earlier server process, never verifies and is treated as absent. State changes are
compare-and-set in the store, so two deciders (a terminal and a client) never both win.
"""

import hashlib
import unicodedata
from datetime import datetime, timedelta
from enum import StrEnum, unique
from typing import Final

from attrs import evolve, field, frozen

from ports.approvals import ApprovalRecord, ApprovalStore
from ports.clock import Clock
from ports.ids import IdSource
from ports.signer import Signer

TTL: Final = timedelta(minutes=5)
SUMMARY_LIMIT: Final = 2000
"""The longest summary a human is shown. A request whose summary is longer is never filed: a person must see
all of what they approve, never a cut."""


@unique
class State(StrEnum):
    """Where an approval stands."""

    PENDING = "pending"
    APPROVED = "approved"
    DECLINED = "declined"
    CONSUMED = "consumed"


@frozen
class Authority:
    """What grants and checks human approvals: the store, the clock, ids and the session's Sigil."""

    store: ApprovalStore
    clock: Clock
    ids: IdSource
    signer: Signer
    approve_command: str = "ck3raven approve {id}"
    """The command a person runs to approve, `{id}` standing for the approval id."""
    same_config: bool = field(default=False, kw_only=True)
    """Whether the server reads a config other than the default: the person must give the same one."""


def hint(authority: Authority, approval_id: str, then: str) -> str:
    """What the agent tells its user when no client UI asked them: the exact command, then the retry."""
    command = authority.approve_command.replace("{id}", approval_id)
    config = " with the same `--config` as the server" if authority.same_config else ""
    return f"Ask the user to run `{command}` in a terminal{config}, then {then}."


def pending(authority: Authority) -> list[ApprovalRecord]:
    """Genuine, live requests waiting for a human, oldest first."""
    now = authority.clock.now()
    return [
        record
        for record in authority.store.all()
        if record.state == State.PENDING and genuine(record, authority.signer) and live(record, now)
    ]


def human_decision(authority: Authority, approval_id: str, *, approve: bool) -> ApprovalRecord | None:
    """Record a human's decision (called only from a human channel); None when it cannot be decided."""
    record = authority.store.get(approval_id)
    if record is None:
        return None
    decided = decide(record, approve=approve, now=authority.clock.now(), signer=authority.signer)
    if decided is None or not authority.store.swap(record, decided):
        return None  # undecidable, or decided by someone else in the meantime
    return decided


def digest(payload: bytes) -> str:
    """The SHA-256 an approval is bound to."""
    return hashlib.sha256(payload).hexdigest()


def safe_summary(text: str) -> str:
    """What the human is shown: control, format and bidi characters escaped as \\u{...}, never cut."""
    return "".join(
        f"\\u{{{ord(char):04x}}}" if unicodedata.category(char)[0] in "CZ" and char != " " else char
        for char in text
    )


def fits(summary: str) -> bool:
    """Whether `summary` can be shown whole (callers refuse the request otherwise)."""
    return len(safe_summary(summary)) <= SUMMARY_LIMIT


def request(authority: Authority, kind: str, payload: bytes, summary: str) -> ApprovalRecord:
    """A new pending, signed approval request for exactly `payload`, stored before it is returned."""
    if not fits(summary):
        raise ValueError("an approval summary must be shown whole: the caller checks fits() first")
    now = authority.clock.now()
    record = ApprovalRecord(
        approval_id=authority.ids.new_id("hat"),
        kind=kind,
        payload_digest=digest(payload),
        summary=safe_summary(summary),
        created_at=now.isoformat(),
        expires_at=(now + TTL).isoformat(),
        state=State.PENDING.value,
        signature="",
    )
    signed = _signed(record, authority.signer)
    authority.store.put(signed)
    return signed


def genuine(record: ApprovalRecord | None, signer: Signer) -> bool:
    """Whether `record` was signed by this session's Sigil exactly as it stands."""
    return record is not None and signer.verify(_payload(record), record.signature)


def live(record: ApprovalRecord, now: datetime) -> bool:
    """Whether `record` has not expired."""
    return now < datetime.fromisoformat(record.expires_at)


def decide(record: ApprovalRecord, *, approve: bool, now: datetime, signer: Signer) -> ApprovalRecord | None:
    """The human's decision on a pending, live, genuine request; None when it cannot be decided."""
    if not genuine(record, signer) or record.state != State.PENDING or not live(record, now):
        return None
    return _signed(evolve(record, state=(State.APPROVED if approve else State.DECLINED).value), signer)


def consume(
    record: ApprovalRecord | None, kind: str, payload: bytes, *, now: datetime, signer: Signer
) -> ApprovalRecord | None:
    """The consumed form of an approved, live, genuine approval for exactly (`kind`, `payload`); None when
    it does not authorise that action (absent, forged, pending, declined, expired, used, or for another
    payload). The caller must store the consumed record before acting, so it is never used twice."""
    if record is None or not genuine(record, signer) or not live(record, now):
        return None
    if record.state != State.APPROVED or record.kind != kind or record.payload_digest != digest(payload):
        return None
    return _signed(evolve(record, state=State.CONSUMED.value), signer)


def _signed(record: ApprovalRecord, signer: Signer) -> ApprovalRecord:
    return evolve(record, signature=signer.sign(_payload(record)))


def _payload(record: ApprovalRecord) -> bytes:
    fields = (
        record.approval_id,
        record.kind,
        record.payload_digest,
        record.created_at,
        record.expires_at,
        record.state,
        digest(record.summary.encode("utf-8")),
    )
    return ("approval:" + "|".join(fields)).encode("utf-8")


def settle(
    authority: Authority, kind: str, payload: bytes, summary: str, *, session_id: str
) -> tuple[State, ApprovalRecord]:
    """Where a human stands on exactly (`kind`, `payload`) for one session: APPROVED means an approval was
    found and consumed just now (stored as consumed first); DECLINED, a live refusal; PENDING, the request
    to wait on (filed now if there was none). An approval given to one session never serves another: the
    session id is part of the payload it is bound to."""
    payload = b"session:" + session_id.encode("utf-8") + b"\n" + payload
    now = authority.clock.now()
    records = authority.store.matching(kind, digest(payload))  # one indexed lookup, not every record
    for record in records:
        consumed = consume(record, kind, payload, now=now, signer=authority.signer)
        if consumed is not None and authority.store.swap(record, consumed):
            return State.APPROVED, record
    for state in (State.DECLINED, State.PENDING):
        for record in records:
            if _live_for(record, kind, state, payload, authority):
                return state, record
    return State.PENDING, request(authority, kind, payload, summary)


def _live_for(record: ApprovalRecord, kind: str, state: State, payload: bytes, authority: Authority) -> bool:
    return (
        record.kind == kind
        and record.state == state
        and record.payload_digest == digest(payload)
        and genuine(record, authority.signer)
        and live(record, authority.clock.now())
    )
