"""Text edits that are safe to retry: several replacements applied in order, all or none, each of whose
old text must occur exactly once when its turn comes.

When an old text is not found exactly, it is looked for again with line endings (CRLF or LF) and trailing
spaces and tabs at line ends disregarded, on both sides, as whole lines only (the match starts where a line
starts and ends where one ends); a single such match is replaced and the edit says it matched `tolerant`.
The replacement takes the file's own line ending when the file uses one ending throughout; everything
outside the replaced span, a byte-order mark included, stays as it was.
"""

import difflib
from typing import Final, Literal

from attrs import frozen

Matched = Literal["exact", "tolerant"]
BOM: Final = "\ufeff"
SHAPE: Final = {
    "type": "object",
    "description": "One replacement of an edit.",
    "properties": {
        "old_string": {
            "type": "string",
            "description": "text that occurs exactly once when this replacement's turn comes",
        },
        "new_string": {"type": "string", "description": "its replacement"},
    },
    "required": ["old_string", "new_string"],
    "additionalProperties": False,
}
"""A replacement as a call gives it (the JSON schema of one item of an edit's list)."""


@frozen
class Replacement:
    old: str
    new: str


@frozen
class Missed:
    """The edit (1-based) whose old text occurs `count` times where exactly one was needed."""

    edit: int
    count: int


def apply(text: str, replacements: tuple[Replacement, ...]) -> tuple[str, list[Matched]] | Missed:
    """The text after every replacement, and how each matched; or the first that did not match once."""
    how: list[Matched] = []
    ending = _uniform_ending(text)
    for number, replacement in enumerate(replacements, start=1):
        new = replacement.new.replace("\r\n", "\n").replace("\n", ending) if ending else replacement.new
        count = text.count(replacement.old)
        if count == 1:
            start = text.index(replacement.old)
            text = text[:start] + new + text[start + len(replacement.old) :]
            how.append("exact")
            continue
        if count > 1:
            return Missed(number, count)
        spans = _tolerant_spans(text, replacement.old)
        if len(spans) != 1:
            return Missed(number, len(spans))
        start, end = spans[0]
        text = text[:start] + new + text[end:]
        how.append("tolerant")
    return text, how


def diff_lines(address: str, before: str, after: str) -> list[str]:
    """The lines of a unified diff of the change at `address`, each with its line end."""
    lines = difflib.unified_diff(
        before.splitlines(keepends=True), after.splitlines(keepends=True), address, address
    )
    return [line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines]


def _uniform_ending(text: str) -> str | None:
    """ "\\r\\n" or "\\n" when every line ending of `text` is that one; None when mixed or there is none."""
    crlf = text.count("\r\n")
    lf = text.count("\n")
    if lf == 0:
        return None
    if crlf == lf:
        return "\r\n"
    return "\n" if crlf == 0 else None


def _normalised(text: str) -> tuple[str, list[int], list[int]]:
    """`text` with CRLF as LF and trailing blanks of each line dropped, and for each character kept where
    it starts and ends in `text` (so a match maps back to the original span)."""
    out: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    position = 0
    for line in text.splitlines(keepends=True):
        body = line.rstrip("\r\n")
        kept = body.rstrip(" \t")
        out.append(kept)
        starts.extend(range(position, position + len(kept)))
        ends.extend(range(position + 1, position + len(kept) + 1))
        if len(body) < len(line):  # the line ending, as one "\n"
            out.append("\n")
            starts.append(position + len(body))
            ends.append(position + len(line))
        position += len(line)
    return "".join(out), starts, ends


def _tolerant_spans(text: str, old: str) -> list[tuple[int, int]]:
    """The spans of `text` that match `old` once line endings and trailing blanks are disregarded (a
    byte-order mark opening the text is no part of its first line)."""
    if text.startswith(BOM) and not old.startswith(BOM):
        return [(start + 1, end + 1) for start, end in _tolerant_spans(text[1:], old)]
    needle, _, _ = _normalised(old)
    if not needle.strip():
        return []
    haystack, starts, ends = _normalised(text)
    spans: list[tuple[int, int]] = []
    found = haystack.find(needle)
    while found != -1 and len(spans) < 2:  # noqa: PLR2004 - one is a match; a second makes it ambiguous
        end = found + len(needle)
        starts_a_line = found == 0 or haystack[found - 1] == "\n"
        ends_a_line = needle.endswith("\n") or end == len(haystack) or haystack[end] == "\n"
        if starts_a_line and ends_a_line:
            spans.append((starts[found], ends[end - 1]))
        found = haystack.find(needle, found + 1)
    return spans


NEAREST_LINES: Final = 20_000
"""A file longer than this gets no nearest-match hint (each window of it would be compared)."""
NEAREST_SHOWN: Final = 2_000
"""The most characters of the nearest match a hint shows."""


def nearest(text: str, old: str) -> tuple[int, str] | None:
    """Where in `text` the lines most like `old` start (1-based) and what they say, for a replacement whose
    old text was not found; None when nothing is alike enough (or the file is too long to look)."""
    lines = text.splitlines(keepends=True)
    wanted = max(1, len(old.splitlines()))
    if not lines or len(lines) > NEAREST_LINES:
        return None
    target = old.strip()
    best, found = 0.6, None  # below this, a "nearest" match would mislead more than help
    for start in range(max(1, len(lines) - wanted + 1)):
        window = "".join(lines[start : start + wanted]).strip()
        matcher = difflib.SequenceMatcher(None, window, target, autojunk=False)
        if matcher.real_quick_ratio() > best and matcher.quick_ratio() > best and matcher.ratio() > best:
            best, found = matcher.ratio(), (start + 1, window)
    if found is None:
        return None
    return found[0], found[1][:NEAREST_SHOWN]
