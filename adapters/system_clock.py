"""The system clock (UTC) and random identifiers: the two sources of change the core asks for."""

import secrets
from datetime import UTC, datetime

from ports.clock import Clock
from ports.ids import IdSource


class SystemClock(Clock):
    """Now, in UTC."""

    def now(self) -> datetime:
        return datetime.now(UTC)


class RandomIds(IdSource):
    """Identifiers with 96 random bits."""

    def new_id(self, prefix: str) -> str:
        return f"{prefix}-{secrets.token_hex(12)}"
