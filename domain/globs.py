"""Glob patterns for listing and search: `*` and `?` within one segment, `[...]` sets (`[!...]` negated),
and `**` across segments (`**/` also matches no folder at all).

A pattern without `/` matches a name, at any depth; a pattern with `/` matches the whole path below the
folder searched (`common/**/*.txt`). Matching is exact in case unless asked otherwise.
"""

import re
from typing import Final

from attrs import frozen

MAX_GLOB: Final = 512


@frozen
class Glob:
    """A compiled glob; `matches(parts)` answers for a path given as segments below the searched folder."""

    text: str
    regex: re.Pattern[str]
    by_name: bool

    def matches(self, parts: tuple[str, ...]) -> bool:
        subject = parts[-1] if self.by_name else "/".join(parts)
        return self.regex.fullmatch(subject) is not None


def compile_glob(pattern: str, *, ignore_case: bool = False) -> Glob:
    """The glob for `pattern` (raises ValueError for an empty or over-long pattern)."""
    if not pattern or len(pattern) > MAX_GLOB:
        raise ValueError(f"a glob is 1 to {MAX_GLOB} characters")
    flags = re.IGNORECASE if ignore_case else 0
    rest = pattern.removeprefix("**/")
    if "/" not in rest.strip("/") and "**" not in rest:  # `**/name`: a name at any depth, so match names
        return Glob(pattern, re.compile(_translate(rest), flags), by_name=True)
    return Glob(pattern, re.compile(_translate(pattern), flags), by_name=False)


def _translate(pattern: str) -> str:
    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        char = pattern[i]
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif char == "*":
            out.append("[^/]*")
            i += 1
        elif char == "?":
            out.append("[^/]")
            i += 1
        elif char == "[" and (end := pattern.find("]", i + 2)) != -1:
            body = pattern[i + 1 : end]
            negated = body.startswith("!")
            body = body[1:] if negated else body
            out.append("[" + ("^" if negated else "") + body.replace("\\", "\\\\") + "]")
            i = end + 1
        else:
            out.append(re.escape(char))
            i += 1
    return "".join(out)
