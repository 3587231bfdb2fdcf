"""Port: small server-owned tallies kept across sessions (the carry-over escalation counters)."""

from typing import Protocol


class Ledger(Protocol):
    """Port: a mapping of names to counts, read and replaced whole; raises ports.errors.Unavailable."""

    def load(self) -> dict[str, int]: ...

    def save(self, counts: dict[str, int]) -> None: ...
