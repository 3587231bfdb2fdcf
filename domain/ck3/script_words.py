"""The words of a script file's skimmed blocks (domain.ck3.script): each word with its first line, and
the one search that matches a skimmed block whole.

A skimmed block's words are every `[A-Za-z_][\\w.:\\-]*` outside its comments, strings included (what the
content index counts as mentions). All the blocks of a file are read together, in one search over their
text, so that a word's first place is found by C loops over the file's tokens, not per block or per word.
"""

import re
from typing import Final

_WORD_OR_LINE: Final = re.compile(r"\n|[A-Za-z_][\w.:\-]*")
_COMMENT: Final = re.compile(r"#[^\n]*")


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
    tokens = _WORD_OR_LINE.findall(_COMMENT.sub("", joined) if "#" in joined else joined)
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


def closed_block(depth: int) -> re.Pattern[str]:
    """The rest of a block, from just inside its `{` to its `}` included, nesting at most `depth` levels
    below it, every string in it closed on its line: the braces, strings and comments the skim reads,
    matched by the regular expression engine alone (possessive throughout: it never backtracks)."""
    plain = r'[^{}"#]++|"(?:[^"\\\n]|\\.)*+"|#[^\n]*+'
    body = f"(?:{plain})*+"
    for _ in range(depth):
        body = f"(?:{plain}|\\{{{body}\\}})*+"
    return re.compile(body + r"\}")
