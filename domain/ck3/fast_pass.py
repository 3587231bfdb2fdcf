"""A fast pass over a localisation file for the content index: what the one parser
(domain.ck3.localisation) would find in it, read with one regular expression per line, or None where the
file holds anything the pass cannot decide (then the parser reads it).

The pass decides only the plain file: a `l_<language>:` header on its first line that is not blank or a
comment, then only entries `key:0 "value"` whose value is quoted on its line, blank lines and comments,
no key twice, within the parser's bounds. For such a file the parser has no finding and its entries are
the pass's (key, line) pairs; anything else (a line that is not an entry, a missing header, a key
written twice, an unclosed value) goes to the parser, which reports it. Tests hold the two equal on the
sample world and on a generated game-sized world.
"""

import re
from typing import Final

from domain.ck3 import localisation

_PLAIN: Final = re.compile(r'[ \t]*([^\s:#"]+):\d*[ \t]*"[^"\n]*"')
"""An entry whose value opens with `"` right after the key and has a later `"`: the parser's KEY and
value rule accept it whole (the value is what lies between the first and the last quote)."""
_SKIPPED: Final = re.compile(r"\s*(?:#|\Z)")
"""A line the parser skips: blank once stripped, or a comment."""
_HEADER: Final = re.compile(r"[ \t]*l_([a-z_]+):\d*[ \t]*(?:#[^\n]*)?\r?")


def localisation_entries(text: str) -> tuple[str, list[tuple[str, int]]] | None:
    """The language and the (key, line) of each entry of a plain localisation file, or None."""
    if len(text) > localisation.MAX_CHARS:
        return None
    lines = text.removeprefix("\ufeff").split("\n")
    plain = list(map(_PLAIN.match, lines))
    first = next((n for n, line in enumerate(lines) if not _SKIPPED.match(line)), None)
    if first is None or plain[first] is not None:
        return None
    header = _HEADER.fullmatch(lines[first])
    if header is None:
        return None
    entries = [(match[1], n) for n, match in enumerate(plain, start=1) if match is not None]
    others = [line for line, match in zip(lines, plain, strict=True) if match is None]
    del others[first]  # every line before the header is skipped: the header is the first-th of the others
    if not all(map(_SKIPPED.match, others)):
        return None
    if len(entries) > localisation.MAX_ENTRIES or len({key for key, _ in entries}) != len(entries):
        return None
    return header[1], entries
