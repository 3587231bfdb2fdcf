"""Port: the server's own records of what happened (close evidence, commit records, stash saves).

They live in the state directory, outside every root: no agent address can name them."""

from typing import Protocol


class EvidenceStore(Protocol):
    """Port: JSON documents by kind and name. `put` stores one durably before it returns and answers the
    reference the operator finds it by; raises ports.errors.Unavailable when it cannot be stored."""

    def put(self, kind: str, name: str, document: str) -> str: ...

    def find(self, kind: str, name: str) -> str | None:
        """The reference of a stored document, None when there is none."""
        ...

    def document(self, kind: str, name: str) -> str | None:
        """A stored document itself, None when there is none."""
        ...
