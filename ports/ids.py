"""Port: fresh identifiers (approvals, contracts). The core never makes randomness itself."""

from typing import Protocol


class IdSource(Protocol):
    """Port: a new, unguessable identifier with the given prefix each call."""

    def new_id(self, prefix: str) -> str: ...
