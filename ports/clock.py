"""Port: what time it is. The core never reads a clock itself."""

from datetime import datetime
from typing import Protocol


class Clock(Protocol):
    """Port: the current time, timezone-aware (UTC)."""

    def now(self) -> datetime: ...
