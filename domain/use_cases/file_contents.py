"""What the file handlers read of a file, each through its ref: its bytes (up to FILE_LIMIT), its text
(UTF-8 with no NUL byte, up to a limit), its content before a change for the journal, and whether it
still has the SHA-256 a caller expects (a file that changed since it was read is refused, not replaced).
"""

import hashlib
from typing import Final

from domain.contracts import journal
from domain.failures import port_failure
from domain.replies.refusal import Refused
from domain.world.adapter import WorldAdapter
from domain.world.visibility import VisibilityRef
from ports.errors import NotFound, PortError, TooLarge

READ_LIMIT: Final = 2 * 1024 * 1024
"""The most text one reply carries (a longer file is read in windows)."""
FILE_LIMIT: Final = 64 * 1024 * 1024
"""The largest file a read opens; what it returns is bounded by READ_LIMIT."""
UNREADABLE_TEXT: Final = frozenset({"WA-READ-I-002"})
"""What a write's dry run shows as empty content, since the write replaces the file anyway."""
JOURNAL_LIMIT: Final = 16 * 1024 * 1024
"""The largest content before a change the journal keeps (a larger file's change cannot be reverted)."""


def journal_before(world: WorldAdapter, ref: VisibilityRef) -> bytes | str | None:
    """A file's content before a change, for the journal: its bytes, None when absent, or UNKNOWN when it
    is too large to keep (or cannot be read)."""
    try:
        return world.read_file(ref, JOURNAL_LIMIT)
    except NotFound:
        return None
    except PortError:
        return journal.UNKNOWN


def current(
    world: WorldAdapter, ref: VisibilityRef, expected: str | None, *, read: bool, replacing: bool = False
) -> str | None:
    """The file's text now when it is needed (`read`), None for a file that does not exist. With
    `expected`, the file's bytes must have that SHA-256 (and a file that exists against an expected
    absence, or the reverse, fails too): otherwise Refused (Invalid), since the file changed since it
    was read; a file that cannot be read, or is no text, is refused as well.
    `replacing` (a write's dry run): a file that is no text, or too large to read, is shown as empty,
    since the write would replace it all the same."""
    if not read and expected is None:
        return None
    try:
        data = bytes_of(world, ref) if ref.kind is not None else None
    except Refused as refused:
        if replacing and expected is None and refused.code in UNREADABLE_TEXT:
            return ""
        raise
    if expected is not None:
        _unchanged(ref, data, expected)
    if not read or data is None:
        return None
    text = text_of(data)
    if text is None and not replacing:
        raise Refused.invalid("WA-READ-I-001", {"address": ref.address})
    return text or ""


def _unchanged(ref: VisibilityRef, data: bytes | None, expected: str) -> None:
    """Refused unless the file's bytes (None: no file) have the SHA-256 `expected`."""
    actual = None if data is None else hashlib.sha256(data).hexdigest()
    if actual != expected.lower():
        raise Refused.invalid(
            "WA-WRITE-I-006", {"address": ref.address, "expected_sha256": expected, "sha256": actual}
        )


def bytes_of(world: WorldAdapter, ref: VisibilityRef) -> bytes:
    """The file's bytes, up to FILE_LIMIT; raises Refused for a larger file or one that cannot be read."""
    try:
        return world.read_file(ref, FILE_LIMIT)
    except TooLarge:
        raise Refused.invalid("WA-READ-I-002", {"address": ref.address, "limit": FILE_LIMIT}) from None
    except PortError as exc:
        raise Refused(port_failure(exc, ref.address)) from None


def file_bytes(world: WorldAdapter, ref: VisibilityRef) -> bytes | None:
    """The file's bytes, up to FILE_LIMIT; None when it is larger or cannot be read."""
    try:
        return world.read_file(ref, FILE_LIMIT)
    except PortError:
        return None


def load(world: WorldAdapter, ref: VisibilityRef, limit: int = READ_LIMIT) -> str:
    """The file's text, up to `limit` bytes; raises Refused for a larger file, one that cannot be read, or
    one that is no text."""
    try:
        data = world.read_file(ref, limit)
    except TooLarge:
        raise Refused.invalid("WA-READ-I-002", {"address": ref.address, "limit": limit}) from None
    except PortError as exc:
        raise Refused(port_failure(exc, ref.address)) from None
    text = text_of(data)
    if text is None:
        raise Refused.invalid("WA-READ-I-001", {"address": ref.address})
    return text


def text_of(data: bytes) -> str | None:
    if b"\x00" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def digest(data: bytes) -> dict[str, object]:
    return {"size": len(data), "sha256": hashlib.sha256(data).hexdigest()}
