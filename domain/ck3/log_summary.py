"""The summary of a log (domain.ck3.log_questions.Tally) made a chunk of text at a time, with the work per
line done by the regular expression engine and built-in calls: the tally the emissions give (a test
holds the two equal), at a size where one Python call per emission costs seconds (SPEC §17: a 100 MB log
within 3 s).

One pattern (ROWS) takes each emission of a chunk at once: a header with the indented lines that continue
it, or any other line, as one row. The messages and first continuation lines of a chunk become their
shapes (digits as `#`, game_log.DIGITS) by one `str.translate` over them joined; the rows are counted by
(engine source, level letter, shape, first continuation's shape) at once (collections.Counter), and a
template is made once per distinct shape. Text is cut where a header starts, so a chunk holds whole
emissions. A chunk that is not clean UTF-8 text (NUL, CR, bytes that are not UTF-8, a line too long, a
last line without its newline) answers None: the caller then reads the log emission by emission, which
says what it found."""

import re
from collections import Counter
from collections.abc import Iterable, Iterator
from itertools import accumulate, chain, repeat
from typing import Final, NamedTuple

from domain.ck3.game_log import DIGITS, GENERIC, LEVELS, MAX_LINE, mask
from domain.ck3.log_questions import MAX_KEYS, OTHER, Group, Tally

CARRY_MOST: Final = 8 * 1024 * 1024
"""The most text held back to keep an emission whole; past it, the text is cut at a line."""
_LONGEST: Final = MAX_LINE // 4
"""The most characters of a line surely within MAX_LINE bytes of UTF-8."""
ROWS: Final = re.compile(
    r"^(?:\[\d{1,2}:\d\d:\d\d\]((?:\[[EWID]\])?\[[^\]\s]+\]):[ \t]?)?(.*)\n"
    r"(?(1)((?:([ \t].*)\n)?(?:[ \t].*\n)*))",
    re.MULTILINE,
)
"""An emission of text made of whole lines (game_log.LINES, one row each): a header's level letter and
engine source as written (`[E][lexer.cpp:299]`; empty for a line of no form), the message (or the whole
line), the indented lines that continue a header, and the first of them without its newline."""
_HEAD: Final = re.compile(r"(?:\[([EWID])\])?\[([^\]\s]+)\]")
_Key = tuple[str, str, str]
"""A header's level letter and engine source as written (empty: a line of no form), the message's shape,
the first continuation line's shape."""


class Counted(NamedTuple):
    """The emissions of one text of whole emissions, counted by key: its lines and its blank lines (no
    emission), and for each key in the order it first came, how many, the last line of its last
    emission, the first line of its first and that emission's number (lines and numbers from 1 within
    the text)."""

    lines: int
    blank: int
    keys: list[tuple[_Key, int, int, int, int]]


def summarise(chunks: Iterable[bytes], level: str, tally: Tally) -> int | None:
    """Add the emissions of a log's bytes to `tally` (`level`: that of a header without a letter); the
    number of lines read, or None at the first chunk that is not clean text (the tally is then partial).
    Each text is counted on its own (`count`, a pure function of its bytes) and merged in order."""
    lines, emitted = 0, 0
    for each in map(count, _texts(chunks)):
        if each is None:
            return None
        lines, emitted = merge(tally, each, level, (lines, emitted))
    return lines


def _texts(chunks: Iterable[bytes]) -> Iterator[bytes]:
    """The log's bytes cut where a header starts (so that each part holds whole emissions); at a line
    too long or a last line without its newline, a part that is not clean text (NUL), and no more."""
    carry = b""
    for chunk in chain(chunks, [None]):
        split = _whole(carry, chunk)
        if split is None:
            yield b"\x00"
            return
        body, carry = split
        if body:
            yield body


def _whole(carry: bytes, chunk: bytes | None) -> tuple[bytes, bytes] | None:
    """The whole emissions of what was held back and `chunk` (None: the end), and what to hold back now
    (from the last header on); None for a line longer than MAX_LINE or a last line without its newline."""
    data = carry + chunk if chunk is not None else carry
    if chunk is None:
        return None if data and not data.endswith(b"\n") else (data, b"")
    cut = data.rfind(b"\n[")
    if cut < 0 or len(data) - cut > CARRY_MOST:
        cut = data.rfind(b"\n")
    if cut < 0:
        return None if len(data) > MAX_LINE else (b"", data)
    return data[: cut + 1], data[cut + 1 :]


def _clean(data: bytes) -> str | None:
    if b"\x00" in data or b"\r" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def count(body: bytes) -> Counted | None:
    """The emissions of `body` (whole emissions) counted by key; None when it is not clean text or a line
    may be longer than the emissions keep (they cut it, and say so)."""
    text = _clean(body)
    rows = ROWS.findall(text) if text else []
    if text is None or not rows:
        return None if text is None else Counted(0, 0, [])
    heads, messages, blocks, firsts = zip(*rows, strict=True)
    longest = max(map(len, heads)) + max(map(len, messages)) + len("[00:00:00]: ")
    if (longest > _LONGEST or max(map(len, blocks)) > _LONGEST) and max(
        map(len, text.split("\n"))
    ) > _LONGEST:
        return None
    total = len(rows)
    shapes = "\n".join(chain(messages, firsts)).translate(DIGITS).split("\n")
    keys: list[_Key] = list(zip(heads, shapes[:total], shapes[total:], strict=True))
    counts = Counter(keys)
    continued = list(accumulate(map(str.count, blocks, repeat("\n"))))
    last = dict(zip(keys, range(total), strict=True))  # a later index replaces an earlier one
    blank = sum(n for key, n in counts.items() if not key[0] and not key[1].strip())
    numbers = _numbers(heads, messages) if blank else None
    found, at = [], 0
    for key, times in counts.items():  # in the order each key first came
        at = keys.index(key, at)
        if key[0] or key[1].strip():  # a blank line is no emission
            end = last[key]
            first_line = at + 1 + (continued[at - 1] if at else 0)
            found.append(
                (key, times, end + 1 + continued[end], first_line, numbers[at] if numbers else at + 1)
            )
    return Counted(total + continued[-1], blank, found)


def merge(tally: Tally, counted: Counted, level: str, before: tuple[int, int]) -> tuple[int, int]:
    """Add a text's count to `tally`, the text found after `before` (lines, emissions), as Tally.add adds
    its emissions one by one; the lines and emissions after it."""
    lines, emitted = before
    for key, times, last_line, first_line, number in counted.keys:
        group = _group(tally, key, times, level)
        if group is None:
            continue
        group.last_line = max(group.last_line, lines + last_line)
        if group.count == times:  # new: its first emission is in this text
            group.first_line, group.example = lines + first_line, emitted + number
    return lines + counted.lines, emitted + sum(key[1] for key in counted.keys)


def _numbers(heads: tuple[str, ...], messages: tuple[str, ...]) -> list[int]:
    """Each row's emission number within its text: rows that are blank lines take none."""
    return list(accumulate(map(bool, map(str.strip, map(str.__add__, heads, messages)))))


def _group(tally: Tally, key: _Key, count: int, level: str) -> Group | None:
    """Count `count` emissions of one key in the tally's levels, sources and group (made if new, its
    count then `count`); None when the tally keeps no more groups (counted as other)."""
    head, shape, first_shape = key
    letter, source = _HEAD.fullmatch(head).groups() if head else ("", "")  # type: ignore[union-attr]
    this = (LEVELS[letter] if letter else level) if source else "unknown"
    tally.emissions += count
    tally.levels[this] = tally.levels.get(this, 0) + count
    named = source or OTHER
    if named in tally.sources or len(tally.sources) < MAX_KEYS:
        tally.sources[named] = tally.sources.get(named, 0) + count
    template = mask(shape)
    if source and first_shape and len(shape) < GENERIC:
        template = f"{template} {mask(first_shape).strip()}"
    group_key = (source or None, template)
    group = tally.groups.get(group_key)
    if group is None:
        if len(tally.groups) >= MAX_KEYS:
            tally.other += count
            return None
        group = tally.groups[group_key] = Group(template, source or None, this)
    group.count += count
    return group
