"""Port: the journal of governed changes (SPEC §7): one entry per file a governed call changes, written
before the file changes (pending) and marked done or failed after, with the content before kept so the
change can be undone."""

from collections.abc import Iterable
from typing import Protocol

from attrs import frozen


@frozen
class JournalEntry:
    """One governed change to one file (or one commit). `before`/`after` are SHA-256 digests of the content
    (None: absent; `before` is "unknown" when the content before could not be read whole). `state` is
    "pending" until the change landed ("done") or did not ("failed")."""

    entry_id: str
    at: str
    session_id: str
    contract_id: str | None
    root: str
    address: str
    kind: str
    """write, delete, commit, revert or stash."""
    before: str | None
    after: str | None
    size: int
    state: str = "pending"
    detail: str = ""
    """A commit: its repository, old and new HEAD; a stash or revert: what it was for (JSON)."""
    path: str = ""
    """The root-relative path (segments joined by /) of the file, or of a commit's repository top."""
    server_id: str | None = None
    """The server whose call began it: while that server runs, its writer alone settles a pending entry."""


class Journal(Protocol):
    """Port: entries in the order they were begun. Raises ports.errors.Unavailable."""

    def begin(self, entry: JournalEntry, content_before: bytes | None) -> None:
        """Record a pending entry (and the content before, when given)."""
        ...

    def settle(self, entry_id: str, state: str, *, if_pending: bool = False) -> None:
        """Mark an entry done or failed. An entry once done is never turned failed. `if_pending`: only an
        entry still pending (another call settling a writer's entry by digest never overrides the writer,
        whose own settle decides: it may turn another's failed into done)."""
        ...

    def entries(
        self, contract_ids: Iterable[str | None] | None = None, *, root: str | None = None, since: str = ""
    ) -> list[JournalEntry]:
        """The entries of these contracts (None in the list: the changes made under no contract; no list:
        all), of one root when `root` is given, made at or after `since` (ISO 8601), oldest first."""
        ...

    def content_before(self, entry_id: str) -> bytes | None:
        """The content an entry recorded before its change, None when none was kept."""
        ...
