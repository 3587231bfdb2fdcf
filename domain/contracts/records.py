"""Contracts (law §5 to §7, SPEC §7): a signed, session-scoped declaration of intended work.

The session signature covers the law's `contract:{id}|{created_at}` and the SHA-256 of the canonical JSON
of every immutable field, so editing any of them on disk breaks it; a second signature covers the state
(status, closed_at), so a closed contract can never be reopened by an edit. Contracts of an earlier
session never verify: they are inert.
"""

import hashlib
import json
from collections.abc import Callable
from datetime import datetime, timedelta
from enum import StrEnum, unique
from functools import lru_cache
from typing import Final

from attrs import asdict, evolve

from domain.policy.enforcement import ActiveContract
from domain.vocabulary import Operation, RootCategory
from ports.contracts import ContractRecord
from ports.signer import Signer

DEFAULT_TTL_MINUTES: Final = 120
"""How long a contract opened or renewed without `ttl_minutes` lives."""
MAX_TTL: Final = timedelta(hours=8)
EDIT_KINDS: Final = frozenset({"add", "modify", "delete"})
_IMMUTABLE: Final = (
    "contract_id",
    "created_at",
    "session_id",
    "mode",
    "root_category",
    "intent",
    "operations",
    "targets",
    "work_declaration",
    "author",
    "baseline_sha",
    "repositories",
    "expires_at",
    "renewed_from",
    "approvals",
    "server_id",
)


@unique
class Status(StrEnum):
    """Where a contract stands."""

    OPEN = "open"
    CLOSED = "closed"
    CANCELLED = "cancelled"
    EXPIRED = "expired"
    """Seen past its expiry once, and recorded so: a clock set back later never revives it."""


def address_key(*, ignores_case: bool) -> Callable[[str], str]:
    """How a contract's targets and the changes found are matched on a root: by their exact canonical
    spelling where its filesystem tells case apart (`Foo.txt` and `foo.txt` are two files, SPEC §3), by
    the folded spelling where it does not (they are one file, whatever spelling a change was seen under)."""
    return str.casefold if ignores_case else _exact


def _exact(address: str) -> str:
    return address


def sign(record: ContractRecord, signer: Signer) -> ContractRecord:
    """The record with both of its signatures made by this session's Sigil."""
    signed = evolve(record, session_signature=signer.sign(_identity(record)))
    return evolve(signed, state_signature=signer.sign(_state(signed)))


def genuine(record: ContractRecord, signer: Signer) -> bool:
    """Whether this session signed the record exactly as it stands (identity and state)."""
    return signer.verify(_identity(record), record.session_signature) and signer.verify(
        _state(record), record.state_signature
    )


def opened_here(record: ContractRecord, signer: Signer) -> bool:
    """Whether this server's key signed the record's identity: it was opened (or last re-signed) by a
    session of this server process, never by an earlier process."""
    return signer.verify(_identity(record), record.session_signature)


def live(record: ContractRecord, now: datetime) -> bool:
    """Open and not expired."""
    return record.status == Status.OPEN and now < datetime.fromisoformat(record.expires_at)


def with_status(record: ContractRecord, status: Status, now: datetime, signer: Signer) -> ContractRecord:
    """The record moved out of OPEN to `status` (closed, cancelled, expired) at `now`, re-signed: a contract
    never goes back to OPEN."""
    return sign(evolve(record, status=status.value, closed_at=now.isoformat()), signer)


def as_active(record: ContractRecord) -> ActiveContract:
    """What enforcement needs of a verified, live contract."""
    return ActiveContract(
        record.contract_id,
        RootCategory(record.root_category),
        frozenset(Operation(op) for op in record.operations),
        frozenset(record.approvals),
    )


@lru_cache(maxsize=64)  # a pure function of a frozen record: every governed call verifies the same one
def _identity(record: ContractRecord) -> bytes:
    fields = asdict(record, recurse=True)
    immutable = {name: fields[name] for name in _IMMUTABLE}
    digest = hashlib.sha256(json.dumps(immutable, sort_keys=True, separators=(",", ":")).encode()).hexdigest()
    return f"contract:{record.contract_id}|{record.created_at}|{digest}".encode()


def _state(record: ContractRecord) -> bytes:
    fields = (record.contract_id, record.session_signature, record.status, str(record.closed_at))
    return ("contract-state:" + "|".join(fields)).encode()
