"""Port: where human-approval records live (the state directory), as plain records."""

from typing import Protocol

from attrs import frozen


@frozen
class ApprovalRecord:
    """One approval request as stored: times are ISO 8601 UTC text, `signature` is the Sigil over the rest."""

    approval_id: str
    kind: str
    payload_digest: str
    summary: str
    created_at: str
    expires_at: str
    state: str
    signature: str


class ApprovalStore(Protocol):
    """Port: approval records by id. Writes are atomic; raises ports.errors.Unavailable on failure."""

    def get(self, approval_id: str) -> ApprovalRecord | None: ...

    def put(self, record: ApprovalRecord) -> None: ...

    def all(self) -> list[ApprovalRecord]: ...

    def matching(self, kind: str, payload_digest: str) -> list[ApprovalRecord]:
        """The records asking for exactly this (kind, payload digest): what an approval lookup needs."""
        ...

    def swap(self, expected: ApprovalRecord, record: ApprovalRecord) -> bool:
        """Store `record` in place of `expected` only if the stored record is still exactly `expected`
        (compare and set, so two deciders never both win); whether it was stored."""
        ...
