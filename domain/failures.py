"""The one mapping from port errors to replies, used by every handler.

A failure the agent can cause or fix (a link, a special file, a missing place) is Invalid with the same
code resolution gives; a store that fails is an Error the operator must look at.
"""

from domain.replies.builder import Reply, ReplyBuilder
from ports.errors import (
    AlreadyExists,
    Busy,
    LinkRefused,
    Misspelled,
    NotADirectory,
    NotFound,
    PortError,
    SpecialFile,
    TooLarge,
    Unavailable,
)


def port_failure(exc: PortError, address: str) -> Reply:
    """The reply for a Files port failure at `address` (a canonical address)."""
    if isinstance(exc, AlreadyExists):
        return ReplyBuilder().invalid("WA-WRITE-I-007", {"address": address})
    if isinstance(exc, LinkRefused):
        return ReplyBuilder().invalid("WA-RES-I-012", {"address": address})
    if isinstance(exc, SpecialFile):
        return ReplyBuilder().invalid("WA-RES-I-013", {"address": address})
    if isinstance(exc, NotFound | NotADirectory | Misspelled):  # Misspelled here: renamed since resolution
        return ReplyBuilder().invalid("WA-RES-I-001", {"address": address})
    if isinstance(exc, Busy):
        return store_busy(exc, address)
    if isinstance(exc, Unavailable | TooLarge):
        return ReplyBuilder().error("WA-IO-E-001", {"address": address})
    raise exc  # pragma: no cover - every port error is handled above


def store_busy(exc: Busy, address: str) -> Reply:
    """WA-IO-E-002: the state store was locked by another process, so nothing changed at `address`."""
    waited = {"waited_s": round(exc.waited, 1), "locked_for_s": round(exc.locked_for, 1)}
    return ReplyBuilder().error("WA-IO-E-002", {"address": address, "store": "busy", **waited})


def history_failure(root: str) -> Reply:
    """The reply when the history of the repository holding `root` cannot be read or written."""
    return ReplyBuilder().error("CT-GATE-E-001", {"root": root})
