"""Port: the engine that finds an agent's search pattern in a file's bytes, in time linear in the text."""

from typing import Protocol

from ports.errors import PortError


class PatternRefused(PortError):
    """The pattern is not in the syntax the engine accepts, or is too large for it; the message says why
    in the engine's words (it may quote the pattern, never a host path)."""


class Matcher(Protocol):
    """Port: one compiled pattern. `search` answers the (start, end) byte offsets of the leftmost match
    that starts at or after `start` and ends by `end`, or None; the bytes around that span are context
    (`^`, `$` and `\\b` see them), and the time it takes grows with `end - start`, never faster."""

    def search(self, data: bytes, start: int, end: int) -> tuple[int, int] | None: ...


class Patterns(Protocol):
    """Port: compiles patterns for a content search. `literal` takes the text as it is; otherwise it is a
    regular expression in `SYNTAX`. `^` and `$` match at line boundaries. Raises PatternRefused."""

    @property
    def syntax(self) -> str:
        """The name of the regular expression syntax accepted, and where it is described."""
        ...

    def compile(self, pattern: str, *, literal: bool, ignore_case: bool) -> Matcher: ...
