"""The address grammar (SPEC §3): parse agent input into a root or mod address, or refuse it.

Reject, never repair: no percent-decoding, no `~` or variable expansion, no case folding, no Unicode
normalisation. Separators and dots are ASCII only. Every refusal names the rule that failed and the valid
forms, and never repeats the input (it may be a host path).
"""

import re
import unicodedata
from typing import Final

from attrs import frozen

from domain.replies.builder import Reply, ReplyBuilder
from domain.replies.refusal import Refused

MAX_ADDRESS_BYTES: Final = 4096
MAX_SEGMENT_BYTES: Final = 255
VALID_FORMS: Final = "ROOT_X:/rel/path, mod:<Name>:/rel/path, or a path relative to the session home"

_ROOT_FORM = re.compile(r"([^:/\\]*):/(.*)", re.DOTALL)
_MOD_FORM = re.compile(r"mod:([^:/\\]+):/(.*)", re.DOTALL)
_HOST_FORMS = re.compile(r"(?i)([/\\~]|[a-z]:|file:|\$[a-z_{(]|%[a-z_]+%)")
_SHORT_NAME = re.compile(r"~\d")
_DEVICE = re.compile(r"(?i)(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³]|conin\$|conout\$)")
# Characters that look like a separator or a dot: refused so that nothing downstream can fold them.
_LOOKALIKES: Final = frozenset(
    "\u2024\u2025\u2026\u2044\u2215\u29f8\u29f9\ufe52\ufe68\uff0e\uff0f\uff3c\u3002"
)
_REFUSED_CATEGORIES: Final = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})

_PLAIN_ROOT = re.compile(r"([A-Za-z0-9_]{2,}):/")
"""A root prefix that is no host form (one letter would be a drive; `file` is checked apart)."""
_PLAIN_SEGMENT = r"(?!(?i:con|prn|aux|nul|com[0-9]|lpt[0-9])(?:[./]|\Z))[A-Za-z0-9_.\-]{0,254}[A-Za-z0-9_\-]"
_PLAIN_PATH = re.compile(rf"(?>{_PLAIN_SEGMENT})(?:/(?>{_PLAIN_SEGMENT}))*+")  # no backtracking across `/`
"""Segments no rule can refuse: ASCII letters, digits, `_`, `-` and dots, 1 to 255 of them, not ending in a
dot (so never `.` or `..`), whose part before the first dot is no device name."""


@frozen
class Parsed:
    """A well-formed address: a root name or a mod reference, and validated segments."""

    root: str | None
    mod: str | None
    parts: tuple[str, ...]


def parse(text: str | None, home: str) -> Parsed:
    """Parse agent input; a bare relative path is taken from `home`. Raises Refused (Invalid, naming the
    rule that failed) for bad input."""
    found = _grammar(text, home)
    if isinstance(found, Parsed):
        return found
    raise Refused(found)


def parsed_or_none(text: str | None, home: str) -> Parsed | None:
    """`parse`, or None where it refuses: for callers that only ask whether a text is an address (no
    refusal is raised to be dropped on their path, which the leak gate takes for every string)."""
    found = _grammar(text, home)
    return found if isinstance(found, Parsed) else None


def _grammar(text: str | None, home: str) -> Parsed | Reply:
    """The address, or the refusal the grammar answers (a value inside the grammar: its callers take the
    address, or Refused)."""
    if text and len(text) <= MAX_ADDRESS_BYTES and text.isascii() and text.isprintable() and "\\" not in text:
        parsed = _plain(text, home)
        if parsed is not None:
            return parsed
    return _parse(text, home)


def _plain(text: str, home: str) -> Parsed | None:
    """The fast path, for printable ASCII text without a backslash (no whole-text rule can fail there): the
    address when every segment is plainly valid, None when the full grammar must look. It accepts only
    what `_parse` accepts, as the same Parsed; every refusal is left to `_parse`."""
    if text.startswith("mod:"):
        match = _MOD_FORM.fullmatch(text)
        if match is None:
            return None
        root, mod, rest = None, match[1], match[2]
    elif (match := _PLAIN_ROOT.match(text)) is not None and match[1].lower() != "file":
        root, mod, rest = match[1], None, text[match.end() :]
    elif not text.startswith("/"):  # a bare path (a leading `/` is a host path)
        root, mod, rest = home, None, text
    else:
        return None
    rest = rest.removesuffix("/")
    if not rest:
        return Parsed(root, mod, ())
    if _PLAIN_PATH.fullmatch(rest) is None:
        return None
    return Parsed(root, mod, tuple(rest.split("/")))


def _parse(text: str | None, home: str) -> Parsed | Reply:  # noqa: PLR0911 - one return per address form
    """The full grammar, for any text."""
    if not text:
        return Parsed(home, None, ())
    refusal = _whole_text(text)
    if refusal is not None:
        return refusal
    if text.startswith("mod:"):
        match = _MOD_FORM.fullmatch(text)
        if match is None:
            return _invalid("WA-RES-I-011", "mod-form")
        return _with_parts(None, match[1], match[2])
    match = _ROOT_FORM.fullmatch(text)
    if match is not None and not _HOST_FORMS.match(text):
        return _with_parts(match[1], None, match[2])
    if _HOST_FORMS.match(text):
        return _invalid("WA-RES-I-002", "host-path")
    return _with_parts(home, None, text)


def host_form(text: str) -> bool:
    """Whether text starts the way a host path does (`/`, `\\`, `~`, a drive, `file:`, a variable)."""
    return _HOST_FORMS.match(text) is not None


def _whole_text(text: str) -> Reply | None:
    if len(text.encode("utf-8", "surrogatepass")) > MAX_ADDRESS_BYTES:
        return _invalid("WA-RES-I-008", "address-length", limit=MAX_ADDRESS_BYTES)
    for position, char in enumerate(text):
        if unicodedata.category(char) in _REFUSED_CATEGORIES or char in _LOOKALIKES or char == "\\":
            return _invalid("WA-RES-I-004", "character", index=position, character=f"U+{ord(char):04X}")
    if not unicodedata.is_normalized("NFC", text):
        return _invalid("WA-RES-I-005", "nfc")
    return None


def _with_parts(root: str | None, mod: str | None, rest: str) -> Parsed | Reply:
    rest = rest.removesuffix("/")  # a single trailing slash names the same folder
    parts = tuple(rest.split("/")) if rest else ()
    for number, segment in enumerate(parts, start=1):
        refusal = _segment(segment, number)
        if refusal is not None:
            return refusal
    return Parsed(root, mod, parts)


def _segment(text: str, number: int) -> Reply | None:  # noqa: PLR0911 - one return per rule
    if not text:
        return _invalid("WA-RES-I-011", "empty-segment", segment=number)
    if text in {".", ".."}:
        return _invalid("WA-RES-I-003", "dot-segment", segment=number)
    if ":" in text:
        return _invalid("WA-RES-I-004", "character", segment=number, character="U+003A")
    if text[-1] in ". ":
        return _invalid("WA-RES-I-006", "trailing-dot-or-space", segment=number)
    if _DEVICE.fullmatch(text.split(".", maxsplit=1)[0].rstrip(" ")):
        return _invalid("WA-RES-I-007", "device-name", segment=number)
    if _SHORT_NAME.search(text):
        return _invalid("WA-RES-I-015", "short-name", segment=number)
    if len(text.encode("utf-8")) > MAX_SEGMENT_BYTES:
        return _invalid("WA-RES-I-008", "segment-length", limit=MAX_SEGMENT_BYTES, segment=number)
    return None


_PLAIN: Final = re.compile(r"[A-Za-z0-9_\-][A-Za-z0-9_.\-]{0,254}")
"""Names that need no further look but the device-name one: ASCII letters, digits, `_`, `-` and dots
inside (a last dot is refused below)."""


def addressable_name(name: str) -> bool:
    """Whether a file or folder name found on disk could be a segment of an address: what a listing, tree
    or search may show (a name no address can spell is never named to an agent, nor read for one)."""
    if _PLAIN.fullmatch(name) and name[-1] != ".":  # most names: one match
        return name[0] not in "cCpPaAnNlL" or not _DEVICE.fullmatch(name.split(".", maxsplit=1)[0])
    if not name or name in {".", ".."} or ":" in name or "\\" in name or name[-1] in ". ":
        return False
    stem = name.split(".", maxsplit=1)[0].rstrip(" ")
    device = len(stem) <= 7 and _DEVICE.fullmatch(stem) is not None  # noqa: PLR2004 - CONOUT$ is longest
    if device or ("~" in name and _SHORT_NAME.search(name)):
        return False
    return _text_fits(name)


def _text_fits(name: str) -> bool:
    """Whether a name is characters an address may hold, in NFC, short enough for a segment."""
    if not (name.isascii() and name.isprintable()):
        if any(unicodedata.category(char) in _REFUSED_CATEGORIES or char in _LOOKALIKES for char in name):
            return False
        if not unicodedata.is_normalized("NFC", name):
            return False
    return len(name.encode("utf-8")) <= MAX_SEGMENT_BYTES


def _invalid(code: str, rule: str, **details: object) -> Reply:
    return ReplyBuilder().invalid(code, {"rule": rule, "expected": VALID_FORMS, **details})


def canonical(root_or_mod: str, parts: tuple[str, ...], *, mod: bool = False) -> str:
    """The one spelling of a target: `ROOT_X:/a/b` or `mod:<Name>:/a/b` (a root itself ends in ':/')."""
    prefix = f"mod:{root_or_mod}" if mod else root_or_mod
    return f"{prefix}:/{'/'.join(parts)}"
