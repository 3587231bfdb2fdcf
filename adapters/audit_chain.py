"""The audit log's hash chain, one rule for every store that keeps the log (SQLite and memory alike).

Each row's digest is SHA-256 over the previous row's digest and the row's canonical entry (JSON, keys
sorted); the first row's previous digest is GENESIS. An edited, a deleted or a reordered row breaks it.
"""

import hashlib
from typing import Final

GENESIS: Final = "0" * 64


def chain(prev: str, text: str) -> str:
    """A row's digest: SHA-256 over the previous digest and the row's canonical entry."""
    return hashlib.sha256(f"{prev}\n{text}".encode()).hexdigest()
