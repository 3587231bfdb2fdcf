"""Port: where contracts live (the state directory), as plain records."""

from typing import Protocol

from attrs import frozen


@frozen
class TargetRecord:
    """A declared target: a canonical address and what the work does to it (add, modify, delete)."""

    address: str
    edit_kind: str


@frozen
class ContractRecord:
    """A contract as stored (law §6.1 fields and the lifecycle fields SPEC §7 names). Times are ISO 8601."""

    contract_id: str
    created_at: str
    session_id: str
    """The governance session that opened it: only that session's calls are governed by it."""
    mode: str
    root_category: str
    intent: str
    operations: tuple[str, ...]
    targets: tuple[TargetRecord, ...]
    work_declaration: str
    author: str
    baseline_sha: str | None
    """The digest of the baseline set taken at open (each repository and its commit, the manifest's
    digest): a baseline edited in the store no longer matches it."""
    repositories: tuple[tuple[str, str | None], ...]
    """Each git repository whose top lies inside the scope: (the address of its top, HEAD at open or None
    for one without a commit)."""
    expires_at: str
    renewed_from: str | None
    approvals: tuple[str, ...]
    session_signature: str
    status: str
    closed_at: str | None
    state_signature: str
    server_id: str | None = None
    """The server whose session opened it: while that server runs, the contract is its session's, live
    there (never renewed, closed or written under by a session of another server)."""


class ContractStore(Protocol):
    """Port: contract records by id; writes are atomic; raises ports.errors.Unavailable on failure."""

    def get(self, contract_id: str) -> ContractRecord | None: ...

    def put(self, record: ContractRecord) -> None: ...

    def all(self) -> list[ContractRecord]: ...

    def version(self) -> object:
        """A token that changes whenever a record may have changed since it was read, written through this
        store or by any other process on the same state (equal tokens: no record changed in between)."""
        ...
