"""Search patterns compiled by RE2 (google-re2): matching takes time linear in the text for any pattern,
so no pattern an agent sends can stall a search the way a backtracking engine can (`^(a+)+$`).

RE2's syntax has no lookaround, backreferences, possessive quantifiers or atomic groups; a pattern that
uses them is refused with RE2's own message. A pattern whose compiled program is larger than MAX_PROGRAM
is refused too: where RE2's DFA runs out of memory it falls back to an NFA whose time also grows with the
program's size.
"""

from typing import Final

import re2

from ports.patterns import Matcher, PatternRefused, Patterns

SYNTAX: Final = "RE2: no lookaround, backreferences or possessive quantifiers"
MAX_PROGRAM: Final = 1_000
"""The largest compiled program accepted (`\\w{1,200}` is about 800 instructions, `[a-z]{1,400}` 800)."""


class Re2Matcher(Matcher):
    """One compiled RE2 pattern over UTF-8 bytes."""

    def __init__(self, compiled: object) -> None:
        self._compiled = compiled

    def search(self, data: bytes, start: int, end: int) -> tuple[int, int] | None:
        found = self._compiled.search(data, start, end)  # type: ignore[attr-defined]
        if found is None:
            return None
        begin, finish = found.span()
        return int(begin), int(finish)


class Re2Patterns(Patterns):
    """Compiles agents' patterns with RE2, multi-line (`^`/`$` at line boundaries), never logging."""

    @property
    def syntax(self) -> str:
        return SYNTAX

    def compile(self, pattern: str, *, literal: bool, ignore_case: bool) -> Matcher:
        options = re2.Options()
        options.log_errors = False  # RE2 would write to stderr, which a stdio server keeps for its log
        options.case_sensitive = not ignore_case
        options.literal = literal
        text = pattern if literal else f"(?m){pattern}"
        try:
            compiled = re2.compile(text.encode("utf-8"), options)
        except re2.error as exc:
            raise PatternRefused(_said(exc).replace(text, pattern)) from exc
        if compiled.programsize > MAX_PROGRAM:
            raise PatternRefused(f"compiles to {compiled.programsize} instructions, over {MAX_PROGRAM}")
        return Re2Matcher(compiled)


def _said(error: Exception) -> str:
    """RE2's message, as text (it comes as bytes for a bytes pattern)."""
    said = error.args[0] if error.args else b""
    text = said.decode("utf-8", "replace") if isinstance(said, bytes) else str(said)
    return text or "not a valid RE2 pattern"
