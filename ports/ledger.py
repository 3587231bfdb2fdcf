"""Port: the carry-over escalation counters (law §13.4), kept per root and file across sessions."""

from typing import Protocol


class Ledger(Protocol):
    """Port: one root's counters (canonical address → opens left out), read and replaced per root, so work
    on one root never resets another's. Raises ports.errors.Unavailable."""

    def load(self, root: str) -> dict[str, int]: ...

    def save(self, root: str, counts: dict[str, int]) -> None: ...
