"""Port: lint exception tokens (LXE) as files in a root, under `policy/tokens/` (git-tracked, reviewable)."""

from typing import Protocol


class TokenFiles(Protocol):
    """Port: write one LXE document into a root, and read every one there (name, bytes). Raises
    ports.errors.Unavailable when the folder cannot be written or read."""

    def write(self, root: str, token_id: str, document: bytes) -> str:
        """Store the token; the root-relative path it was written to."""
        ...

    def read_all(self, root: str) -> list[tuple[str, bytes]]: ...
