"""Glob patterns for listing and search: `*` and `?` within one segment, `[...]` sets (`[!...]` negated,
ranges such as `a-z`), and `**` across segments (`**/` also matches no folder at all).

A pattern without `/` matches a name, at any depth (so does `**/name`); a pattern with `/` matches the whole
path below the folder searched (`common/**/*.txt`). Matching is exact in case unless asked otherwise.
No pattern can make a call slow: a segment with more than two stars is matched by a scanner in at most
(name length times pattern length) steps; one with fewer by a regular expression built from its tokens (every
character escaped; with two stars at most it backtracks at most name length² steps); a path in (segments times
pattern segments) segment matches.
"""

import re
from collections.abc import Callable
from functools import cache
from typing import Final

from attrs import frozen

MAX_GLOB: Final = 512
_STAR: Final = ("*",)
_ANY: Final = ("?",)
Token = tuple[str, ...]
"""("*",), ("?",), ("=", char) or ("[", negated, char ranges as "ab" pairs...)."""


@frozen
class Segment:
    """One pattern segment: its tokens, and the regular expression that matches it when that is safe."""

    tokens: tuple[Token, ...]
    regex: re.Pattern[str] | None

    def match(self, text: str) -> bool:
        return (
            self.regex.fullmatch(text) is not None if self.regex is not None else _segment(self.tokens, text)
        )


@frozen
class Glob:
    """A parsed glob; `matches(parts)` answers for a path given as segments below the searched folder."""

    text: str
    segments: tuple[Segment | None, ...]
    """Each pattern segment's tokens; None stands for `**` (any number of segments)."""
    by_name: bool
    ignore_case: bool

    def name_matcher(self) -> Callable[[str], object] | None:
        """For a pattern that matches a name (any depth) exactly in case: a test of the name alone, true
        exactly when `matches` is for any path ending in it (the regex's own fullmatch, where it has one:
        a search asks it of every file); None for any other pattern."""
        last = self.segments[-1]
        if not self.by_name or self.ignore_case or last is None:
            return None
        if last.regex is not None:
            return last.regex.fullmatch
        return last.match

    def matches(self, parts: tuple[str, ...]) -> bool:
        if self.ignore_case:
            parts = tuple(part.casefold() for part in parts)
        if self.by_name:
            last = self.segments[-1]
            return bool(parts) and last is not None and last.match(parts[-1])
        return _path(self.segments, parts)


def compile_glob(pattern: str, *, ignore_case: bool = False) -> Glob:
    """The glob for `pattern` (raises ValueError for an empty or over-long pattern)."""
    if not pattern or len(pattern) > MAX_GLOB:
        raise ValueError(f"a glob is 1 to {MAX_GLOB} characters")
    text = pattern.casefold() if ignore_case else pattern
    rest = text.removeprefix("**/")
    by_name = "/" not in rest.strip("/") and rest != "**"
    chosen = rest.strip("/") if by_name else text.strip("/")
    segments = tuple(
        None if piece == "**" else _compiled(_tokens(piece)) for piece in chosen.split("/") if piece
    )
    return Glob(pattern, segments or (None,), by_name, ignore_case)


SAFE_STARS: Final = 2


def _compiled(tokens: tuple[Token, ...]) -> Segment:
    if sum(token == _STAR for token in tokens) > SAFE_STARS:
        return Segment(tokens, None)
    return Segment(tokens, re.compile("".join(_regex(token) for token in tokens), re.DOTALL))


def _regex(token: Token) -> str:
    if token == _STAR:
        return ".*"
    if token == _ANY:
        return "."
    if token[0] == "=":
        return re.escape(token[1])
    ranges = "".join(
        re.escape(pair[0]) + "-" + re.escape(pair[1]) for pair in token[2:] if pair[0] <= pair[1]
    )
    if not ranges:
        return "." if token[1] == "!" else "(?!)"
    return ("[^" if token[1] == "!" else "[") + ranges + "]"


def _tokens(piece: str) -> tuple[Token, ...]:
    tokens: list[Token] = []
    at = 0
    while at < len(piece):
        char = piece[at]
        end = piece.find("]", at + 2) if char == "[" else -1
        if char == "*":
            if not tokens or tokens[-1] != _STAR:  # a run of stars is one star
                tokens.append(_STAR)
        elif char == "?":
            tokens.append(_ANY)
        elif end != -1:
            body = piece[at + 1 : end]
            negated = body[:1] in {"!", "^"}
            tokens.append(("[", "!" if negated else "", *_ranges(body[1:] if negated else body)))
            at = end
        else:
            tokens.append(("=", char))
        at += 1
    return tuple(tokens)


def _ranges(body: str) -> list[str]:
    ranges = []
    at = 0
    while at < len(body):
        if at + 2 < len(body) and body[at + 1] == "-":
            ranges.append(body[at] + body[at + 2])  # a reversed range such as z-a matches nothing
            at += 3
        else:
            ranges.append(body[at] * 2)
            at += 1
    return ranges


def _one(token: Token, char: str) -> bool:
    if token == _ANY:
        return True
    if token[0] == "=":
        return token[1] == char
    inside = any(pair[0] <= char <= pair[1] for pair in token[2:])
    return inside != (token[1] == "!")


def _segment(tokens: tuple[Token, ...], text: str) -> bool:
    """Whether `text` matches the segment's tokens: a scan that, on a mismatch, moves the last star on."""
    at = position = 0
    star, mark = -1, 0
    while position < len(text):
        if at < len(tokens) and tokens[at] != _STAR and _one(tokens[at], text[position]):
            at, position = at + 1, position + 1
        elif at < len(tokens) and tokens[at] == _STAR:
            star, mark, at = at, position, at + 1
        elif star != -1:
            mark += 1
            at, position = star + 1, mark
        else:
            return False
    while at < len(tokens) and tokens[at] == _STAR:
        at += 1
    return at == len(tokens)


def _path(segments: tuple[Segment | None, ...], parts: tuple[str, ...]) -> bool:
    @cache
    def fits(i: int, j: int) -> bool:
        if i == len(segments):
            return j == len(parts)
        if segments[i] is None:  # `**`: no segment, or one more
            return fits(i + 1, j) or (j < len(parts) and fits(i, j + 1))
        segment = segments[i]
        return j < len(parts) and segment is not None and segment.match(parts[j]) and fits(i + 1, j + 1)

    return fits(0, 0)
