"""A fast pass over a localisation file for the content index: what the one parser
(domain.ck3.localisation) would find in it, read with one regular expression over its lines, or None
where the file holds anything the pass cannot decide (then the parser reads it).

The pass decides only the plain file: a `l_<language>:` header on its first line that is not blank or a
comment, then only entries `key:0 "value"` whose value is quoted on its line, blank lines and comments,
no key twice, within the parser's bounds. For such a file the parser has no finding and its entries are
the pass's keys and lines; anything else (a line that is not an entry, a missing header, a key
written twice, an unclosed value) goes to the parser, which reports it. Tests hold the two equal on the
sample world and on a generated game-sized world.
"""

import re
from itertools import compress, count
from typing import Final

from domain.ck3 import localisation

_LINE: Final = re.compile(
    r'^(?:[ \t]*+([^\s:#"]++):\d*+[ \t]*+"[^\n]*"[^\n]*+|[^\S\n]*+(?:#[^\n]*+)?)(?:\n|\Z)', re.MULTILINE
)
"""One line the pass decides: an entry whose value opens with `"` right after the key and has a later
`"` on its line (the parser's KEY and value rule accept it whole: the value is what lies between the
first and the last quote; found by running to the line's end and back to its last `"`, a third faster
over the game's localisation than stopping at each `"`), its key taken; or a line the parser skips,
blank once stripped or a comment (its key empty). Anchored at each line's start: a line of neither kind
is left out of the lines found."""
_SKIPPED: Final = re.compile(r"(?:[^\S\n]*(?:#[^\n]*)?\n)*+")
"""The lines the parser skips before the header."""
_HEADER: Final = re.compile(r"[ \t]*l_([a-z_]+):\d*[ \t]*(?:#[^\n]*)?\r?")

Entries = tuple[str, tuple[str, ...], tuple[int, ...]]
"""A plain file's language, its entries' keys and their lines, in file order."""


def localisation_entries(text: str) -> Entries | None:
    """The language and the keys and lines of the entries of a plain localisation file, or None. The
    lines are found by C loops (one pattern over the text, then its lines filtered): the game's
    localisation is millions of lines."""
    if len(text) > localisation.MAX_CHARS:
        return None
    body = text.removeprefix("\ufeff")
    start = _SKIPPED.match(body).end()  # type: ignore[union-attr] # it matches the empty text
    end = body.find("\n", start)
    end = len(body) if end < 0 else end
    header = _HEADER.fullmatch(body, start, end)
    if header is None:
        return None
    first = body.count("\n", 0, start) + 2  # the line after the header's
    found = _LINE.findall(body, end + 1) if end < len(body) else []
    if len(found) != body.count("\n", end + 1) + (end < len(body)):
        return None  # a line is neither an entry nor one the parser skips: the parser reads the file
    keys = tuple(filter(None, found))
    if len(keys) > localisation.MAX_ENTRIES or len(set(keys)) != len(keys):
        return None
    return header[1], keys, tuple(compress(count(first), found))
