"""How much of a text or a list fits in one reply (SPEC §16): the budget is on one copy of the envelope,
as compact JSON in UTF-8. A window is cut at a line or a row, never inside one (a single line longer than the
whole budget is the only exception: it is cut, and the reply says the window is truncated).

`OVERHEAD` is what an envelope takes besides the window itself: its fixed fields, the message (a rendered
template), the trace id and the reply's other data fields, each small and bounded.
"""

import json
from collections.abc import Callable, Sequence
from typing import Final, cast

OVERHEAD: Final = 2 * 1024
MOST_ROWS: Final = 1_000
"""The most rows a page of a paged query (playset keys, overrides, a folder's merged view) holds when the
call asks for a `limit`: the maximum its schema declares and the one its handler enforces."""


def cost(value: object) -> int:
    """The bytes `value` takes in the envelope's JSON."""
    if isinstance(value, str):  # most of what is counted, the text of a read the most of it
        return _string_cost(value)
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogatepass"))


_ESCAPED: Final = bytes(range(0x20)) + b'"\\'
"""What JSON (json.dumps with ensure_ascii=False) escapes in a string: the control characters, the quote and
the backslash; all else it writes as it stands (an unpaired surrogate as its three bytes)."""
_SIX: Final = bytes(code for code in range(0x20) if code not in b"\b\f\n\r\t")
"""The escaped characters written in six bytes (\\u001f); the rest of `_ESCAPED` takes two (\\n, \\")."""


def _string_cost(text: str) -> int:
    """The bytes of `text` as a JSON string, counted without writing it: its UTF-8 (no byte of a character
    beyond ASCII is one JSON escapes), two quotes, and one byte more per character escaped in two, five more
    per character escaped in six. Two C passes over the bytes at most, where the escaped text would be built
    (twice as slow on a file's text, whose every line end is escaped)."""
    data = text.encode("utf-8", "surrogatepass")
    escaped = len(data) - len(data.translate(None, _ESCAPED))
    if not escaped:
        return len(data) + 2
    return len(data) + 2 + escaped + 4 * (len(data) - len(data.translate(None, _SIX)))


def room(budget: int, *fixed: object) -> int:
    """What is left of `budget` for a window, once the envelope and the reply's `fixed` values are counted."""
    return max(0, budget - OVERHEAD - sum(cost(value) for value in fixed))


def rows_fitting(rows: Sequence[object], space: int) -> int:
    """How many leading rows of a list fit in `space` bytes (at least one, so a window always moves on)."""
    # a list's JSON is its rows, a comma after each but the last, [ and ]: a run of rows adds its list's
    # cost less one (the comma after its last row stands in for the bracket)
    try:  # rows that are all strings (names, addresses: a tree's folders) join; see _names_cost
        whole = _names_cost(rows)
    except TypeError:
        return _leading(len(rows), 0, space, lambda start, end: cost(list(rows[start:end])) - 1)
    if whole <= space:  # the usual page: counted in one pass
        return len(rows)
    return _leading(len(rows), 0, space, lambda start, end: _names_cost(rows[start:end]))


def _names_cost(names: Sequence[object]) -> int:
    """What a run of strings adds to a list: each string's cost and a comma. A string's cost is its bytes,
    escapes and two quotes, and bytes and escapes add up over a concatenation (a character is escaped, or
    not, on its own): the run is counted from its joined text, with no list written. TypeError when a row
    is no string."""
    return _string_cost("".join(cast("Sequence[str]", names))) - 2 + 3 * len(names)


def text_fitting(lines: Sequence[str], space: int) -> int:
    """How many leading lines, joined into one JSON string, fit in `space` bytes (at least one)."""
    # every character takes a byte at least: only text no longer than the space can fit whole, and such
    # text is counted once to know (a whole file's window that fits, the usual read, is counted no more)
    joined = "".join(lines)
    if len(joined) <= space and cost(joined) <= space:
        return len(lines)
    # a string's JSON is its characters' escapes between two quotes: a run of lines adds its text's escapes
    return _leading(len(lines), 2, space, lambda start, end: cost("".join(lines[start:end])) - 2)


def _leading(total: int, used: int, space: int, run_cost: Callable[[int, int], int]) -> int:
    """How many of `total` leading items fit in `space` once `used` is counted (at least one), items
    `start` to `end` adding `run_cost(start, end)`: counted a run at a time, each run encoded once, the run
    doubling while it fits and halving when it does not. Exact, as no item adds less than nothing; a window
    that fits whole is encoded once (in runs), one that does not about twice what of it fits, never the
    rest."""
    count, run = 0, 1
    while count < total:
        end = min(total, count + run)
        more = run_cost(count, end)
        if used + more <= space:
            used, count, run = used + more, end, run * 2
        elif run > 1:
            run //= 2
        else:
            return max(1, count)
    return total


def clip(text: str, space: int) -> str:
    """The longest leading part of `text` whose JSON string fits in `space` bytes."""
    end = len(text)
    while end and cost(text[:end]) > space:
        end = min(end - 1, end * space // cost(text[:end]))
    return text[:end]


CURSOR_DIGITS: Final = 9
"""The longest cursor of a search or a tree: a count of rows, far past any cap."""


def position(cursor: str | None) -> int | None:
    """The rows a cursor of a window moved past (a `next_cursor` of a search or a tree: the count of rows
    already shown, in the order the window walks them); None for a cursor that is not one."""
    if cursor is None:
        return 0
    return int(cursor) if cursor.isascii() and cursor.isdigit() and len(cursor) <= CURSOR_DIGITS else None


class Passing:
    """Rows an earlier window showed, passed over as a walk finds them again."""

    def __init__(self, shown: int) -> None:
        self.left = shown

    def past(self) -> bool:
        """Whether the row just found is past those shown before (else it is passed over)."""
        if self.left:
            self.left -= 1
            return False
        return True
