"""The summary of a log (domain.ck3.log_questions.Tally) made a chunk of text at a time, with the work per
line done by the regular expression engine and built-in calls: the tally the emissions give (a test
holds the two equal), at a size where one Python call per emission costs seconds (SPEC §17: a 100 MB log
within 3 s). A chunk's lines are found by one pattern (game_log.LINES); each message becomes its shape
(digits as `#`, game_log.DIGITS), and the chunk's emissions are counted by (engine source, level, shape)
at once (collections.Counter); a template is made once per distinct shape. Text is cut where a header
starts, so a chunk holds whole emissions. A chunk that is not clean UTF-8 text (NUL, CR, bytes that are
not UTF-8, a line too long, a last line without its newline) answers None: the caller then reads the log
emission by emission, which says what it found."""

import re
from collections import Counter
from collections.abc import Iterable
from itertools import accumulate, chain, repeat
from operator import itemgetter
from typing import Final

from domain.ck3.game_log import DIGITS, GENERIC, LEVELS, LINES, MAX_LINE, mask
from domain.ck3.log_questions import MAX_KEYS, OTHER, Group, Tally

CARRY_MOST: Final = 8 * 1024 * 1024
"""The most text held back to keep an emission whole; past it, the text is cut at a line."""
_LONGEST: Final = MAX_LINE // 4
"""The most characters of a line (or of a continuation block) surely within MAX_LINE bytes of UTF-8."""
_HEAD: Final = itemgetter(0)
_AT: Final = tuple(itemgetter(n) for n in range(6))
SHAPED_LINES: Final = re.compile(
    LINES.pattern.replace(r"(\d{1,2}:\d\d:\d\d)", r"([#\d]{1,2}:[#\d]{2}:[#\d]{2})"), re.MULTILINE
)
"""game_log.LINES over a shape (digits as `#`)."""
SOURCES: Final = re.compile(r"\n\[\d{1,2}:\d\d:\d\d\](?:\[[EWID]\])?\[([^\]\s]+)\]:")
"""The engine source of every header of a text after a newline, in order: asked of the text after one
more newline, it finds every header; its leading newline lets the engine skip to each line's start."""
_Key = tuple[str, str, str, str, int]
"""Engine source, level letter, the message's shape, the first continuation line's shape, and whether
the message is short enough for that line to count (GENERIC)."""


def summarise(chunks: Iterable[bytes], level: str, tally: Tally) -> int | None:
    """Add the emissions of a log's bytes to `tally` (`level`: that of a header without a letter); the
    number of lines read, or None at the first chunk that is not clean text (the tally is then partial)."""
    carry, lines, emitted = b"", 0, 0
    for chunk in chain(chunks, [None]):
        split = _whole(carry, chunk)
        if split is None:
            return None
        body, carry = split
        text = _clean(body) if body else ""
        added = _add(text, level, tally, (lines, emitted)) if text is not None else None
        if added is None:
            return None
        lines, emitted = added
    return lines


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


def _sources(text: str, shaped: list[str]) -> list[str] | None:
    """The engine sources of the headers of `text`, in the rows of its shape (`shaped`: each row's source
    shape, empty for a line that is no header); None when the two disagree on which lines are headers."""
    found = SOURCES.findall("\n" + text)
    if len(found) != len(shaped) - shaped.count(""):
        return None
    named = iter(found)
    return [next(named) if shape else "" for shape in shaped]


def _add(text: str, level: str, tally: Tally, before: tuple[int, int]) -> tuple[int, int] | None:
    """Tally the emissions of `text` (whole emissions), found after `before` (lines, emissions): rows
    found in its shape, each header's engine source read from the text itself; None when the shape's
    lines do not match the text's."""
    lines, emitted = before
    rows = SHAPED_LINES.findall(text.translate(DIGITS)) if text else []
    if not rows:
        return before
    sources = _sources(text, list(map(_AT[2], rows)))
    if sources is None:
        return None
    letters, texts = map(_AT[1], rows), list(map(str.__add__, map(_AT[3], rows), map(_AT[5], rows)))
    blocks = list(map(_AT[4], rows))
    if max(map(len, texts)) > _LONGEST or max(map(len, blocks)) > _LONGEST:
        return None  # a line may be longer than the emissions keep: they cut it, and say so
    firsts = map(_HEAD, map(str.partition, blocks, repeat("\n")))
    short = map(int.__gt__, repeat(GENERIC), map(len, texts))
    keys: list[_Key] = list(zip(sources, letters, texts, firsts, short, strict=True))
    ends = list(accumulate(map(int.__add__, repeat(1), map(str.count, blocks, repeat("\n"))), initial=lines))
    numbers = list(accumulate(map(bool, map(str.strip, texts)), initial=emitted))
    last = dict(zip(keys, range(len(keys)), strict=True))  # a later index replaces an earlier one
    first = dict(zip(reversed(keys), range(len(keys) - 1, -1, -1), strict=True))
    for key, count in Counter(keys).items():
        if key[0] or key[2].strip():  # a blank line is no emission
            where = (ends[first[key]] + 1, ends[last[key] + 1], numbers[first[key] + 1])
            _merge(tally, key, count, level, where)
    return ends[-1], numbers[-1]


def _merge(tally: Tally, key: _Key, count: int, level: str, where: tuple[int, int, int]) -> None:
    """Add `count` emissions of one key, the first at `where` (its first line, its last line, its
    number), to the tally, as Tally.add adds them one by one."""
    source, letter, shape, first_continued, short = key
    this = (LEVELS[letter] if letter else level) if source else "unknown"
    tally.emissions += count
    tally.levels[this] = tally.levels.get(this, 0) + count
    named = source or OTHER
    if named in tally.sources or len(tally.sources) < MAX_KEYS:
        tally.sources[named] = tally.sources.get(named, 0) + count
    template = mask(shape)
    if source and first_continued and short:
        template = f"{template} {mask(first_continued).strip()}"
    group_key = (source or None, template)
    group = tally.groups.get(group_key)
    first_line, last_line, number = where
    if group is None:
        if len(tally.groups) >= MAX_KEYS:
            tally.other += count
            return
        group = tally.groups[group_key] = Group(template, source or None, this, 0, first_line, 0, number)
    if first_line < group.first_line:
        group.first_line, group.example, group.level = first_line, number, this
    group.count += count
    group.last_line = max(group.last_line, last_line)
