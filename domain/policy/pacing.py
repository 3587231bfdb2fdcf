"""Per-session rate limits (SPEC §9): a token bucket per kind of call, refilled continuously.

Each session may make `per_minute` calls of a kind in a burst, and regains one every 60/`per_minute`
seconds; mutations (calls that may change a file) have their own, lower rate. A limit of 0 is no limit.
The bucket says how long until the next call would be allowed; enforcement turns that into the D reply.
"""

from datetime import datetime
from typing import Final

from attrs import define, frozen

UNLIMITED: Final = 0


@frozen
class Rates:
    """Calls per minute a session may make: reads (everything that cannot change a file) and mutations."""

    reads_per_minute: int = 600
    mutations_per_minute: int = 60


@define
class Bucket:
    """What is left of one kind of call's allowance, as of `at`."""

    per_minute: int
    tokens: float
    at: datetime | None = None

    def take(self, now: datetime) -> float | None:
        """Spend one call now; None when allowed, else the seconds until one would be."""
        if self.per_minute == UNLIMITED:
            return None
        per_second = self.per_minute / 60
        if self.at is not None:
            elapsed = max(0.0, (now - self.at).total_seconds())
            self.tokens = min(float(self.per_minute), self.tokens + elapsed * per_second)
        self.at = now
        if self.tokens >= 1:
            self.tokens -= 1
            return None
        return (1 - self.tokens) / per_second


def buckets(rates: Rates) -> dict[bool, Bucket]:
    """A session's fresh allowance: full buckets, keyed by whether the call mutates."""
    return {
        False: Bucket(rates.reads_per_minute, float(rates.reads_per_minute)),
        True: Bucket(rates.mutations_per_minute, float(rates.mutations_per_minute)),
    }
