"""The words of a script file's skimmed blocks (domain.ck3.script): each word with its first line, and
the one search that matches a skimmed block whole.

A skimmed block's words are every `[A-Za-z_][\\w.:\\-]*` outside its comments, strings included (what the
content index counts as mentions). All the blocks of a file are read together, so that a word's first
place is found by C loops over the file's tokens, not per block or per word: an ASCII text (nearly every
file of the game) is cut into its runs of word characters by bytes' own translate and split, a run's word
being the run from its first letter or `_` on; any other text by the regular expression.
"""

import re
import string
from typing import Final

_WORD_OR_LINE: Final = re.compile(r"\n|[A-Za-z_][\w.:\-]*")
_COMMENT: Final = re.compile(r"#[^\n]*")
_LINE_MARK: Final = b"\x01"
_WORD_CHARACTERS: Final = frozenset(string.ascii_letters + string.digits + "_.:-")
_RUNS: Final = bytes(
    byte if chr(byte) in _WORD_CHARACTERS else _LINE_MARK[0] if byte == ord("\n") else ord(" ")
    for byte in range(256)
)
"""An ASCII text's bytes as runs of word characters (`\\w.:-`) parted by spaces, its newlines marked."""
_NOT_FIRST: Final = b"0123456789.:-"
"""The word characters a word does not begin with."""


def first_lines(text: str, spans: list[tuple[int, int, int]]) -> list[tuple[str, int]]:
    """Each word of the `spans` of `text` ((start, end, first line) each, in file order) with the line
    of its first place, in the order of those places. The spans are joined with the newlines between
    them kept (a space between two on one line; comments left out), so a token's line is 1 plus the
    newlines before it."""
    if not spans:
        return []
    pieces: list[str] = []
    at = 1
    for start, end, line in spans:
        # what lay between two blocks parts their words: its newlines, or a space on the same line
        pieces += ["\n" * (line - at) or " ", text[start:end]]
        at = line + text.count("\n", start, end)
    joined = "".join(pieces)
    if "#" in joined:
        joined = _COMMENT.sub("", joined)
    if joined.isascii():
        return _ascii_first_lines(joined)
    tokens = _WORD_OR_LINE.findall(joined)
    # the words in the order of their first places (a dict keeps the first), each place then found by
    # searching on from the last one: every token is passed over once, in C
    order = dict.fromkeys(tokens)
    order.pop("\n", None)
    found: list[tuple[str, int]] = []
    place, line, index = 0, 1, tokens.index
    for word in order:
        at = index(word, place)
        line += tokens[place:at].count("\n")
        place = at
        found.append((word, line))
    return found


def _ascii_first_lines(text: str) -> list[tuple[str, int]]:
    """first_lines of an ASCII `text` (no comment in it): its runs of word characters, each newline a
    token of its own, the first place of each distinct run found as first_lines finds a word's; a run's
    word is the run from its first letter or `_` (none: no word), first met where its first run is."""
    tokens = text.encode().translate(_RUNS).replace(_LINE_MARK, b" \x01 ").split()
    order = dict.fromkeys(tokens)
    order.pop(_LINE_MARK, None)
    found: dict[bytes, int] = {}
    place, line, index = 0, 1, tokens.index
    for run in order:
        at = index(run, place)
        line += tokens[place:at].count(_LINE_MARK)
        place = at
        word = run.lstrip(_NOT_FIRST) if run[0] in _NOT_FIRST else run
        if word and word not in found:
            found[word] = line
    # decoded all at once: one C call, not one a word
    return list(zip(b" ".join(found).decode().split(" "), found.values(), strict=True)) if found else []


def closed_block(depth: int) -> re.Pattern[str]:
    """The rest of a block, from just inside its `{` to its `}` included, nesting at most `depth` levels
    below it, every string in it closed on its line: the braces, strings and comments the skim reads,
    matched by the regular expression engine alone (possessive throughout: it never backtracks)."""
    plain = r'[^{}"#]++|"(?:[^"\\\n]|\\.)*+"|#[^\n]*+'
    body = f"(?:{plain})*+"
    for _ in range(depth):
        body = f"(?:{plain}|\\{{{body}\\}})*+"
    return re.compile(body + r"\}")
