"""Where a pattern matches in a file's bytes, as a content search reports it: the first match starting on
each line, with its 1-based line and column and the line's text around it; and whether bytes are text.

Matching goes a WINDOW of whole lines at a time, and `over()` is asked between windows, so one file cannot
hold a search past its time budget by more than one window's matching. A match may run on past its
window's last line by up to SPAN bytes (a pattern that crosses lines); one that runs further is not found
from that window.
"""

from collections.abc import Callable, Iterator
from typing import Final

from ports.patterns import Matcher

CONTEXT: Final = 240
"""The most characters of a hit's line a reply carries."""
WINDOW: Final = 32 * 1024
"""Bytes of whole lines in which one call of the engine looks for the start of a match."""
SPAN: Final = 16 * 1024
"""How far past its window a match may run (a pattern that crosses lines) and still be found."""


def hits(
    data: bytes, matcher: Matcher, over: Callable[[], bool], *, window: int = WINDOW, span: int = SPAN
) -> Iterator[tuple[int, int, str] | None]:
    """(line, column, the line's text around the match) for the first match starting on each line of
    `data`, a `window` of whole lines at a time (a match may run `span` bytes past it); None, and no
    more, once `over()` says time is up."""
    line, counted, start, size = 1, 0, 0, len(data)
    while start <= size:
        if over():
            yield None
            return
        stop = _line_end(data, min(start + window, size))  # a match starting by here is this window's
        found = matcher.search(data, start, min(size, stop + span))
        if found is None or found[0] > stop:
            start = stop + 1
            continue
        begin = data.rfind(b"\n", 0, found[0]) + 1
        line += data.count(b"\n", counted, begin)
        counted = begin
        end = _line_end(data, found[0])
        yield line, *_context(data[begin:end], found[0] - begin)
        start = end + 1


def _line_end(data: bytes, at: int) -> int:
    """The offset of the newline ending the line `at` is on (the end of `data` if none)."""
    end = data.find(b"\n", at)
    return len(data) if end == -1 else end


def _context(line: bytes, offset: int) -> tuple[int, str]:
    """The 1-based column of byte `offset` of `line`, and up to CONTEXT characters of the line around it."""
    column = len(line[:offset].decode("utf-8", "replace"))
    whole = line.decode("utf-8", "replace").rstrip("\r")
    window = max(0, column - CONTEXT // 3)
    return column + 1, whole[window : window + CONTEXT]


def is_text(data: bytes) -> bool:
    """Whether `data` is text: no NUL byte near its start, and UTF-8 throughout."""
    if b"\x00" in data[:8192]:
        return False
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True
