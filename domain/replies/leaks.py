"""Leak detection: does an envelope carry anything that looks like a host path?

Flagged: a '/'-rooted path (a slash that does not continue a word, an address or a relative path),
a Windows drive path (C:\\ or C:/), UNC and device namespaces (two backslashes), the `~/` shorthand, a
`file:` URI, and any configured root's real path. Canonical addresses (`ROOT_X:/a/b`, `mod:Name:/a`) never
match: their slash always follows a colon.

Two views of one scanner: `leaks_in_json` scans the serialized envelope once (keys and values alike: the
path every reply takes), `findings` walks the structure and names each hit by its location (a JSON
pointer), never by its text, for the log. A reply of 200 KB is scanned in about two milliseconds.
"""

import json
import re
from collections.abc import Iterable, Iterator, Mapping

from attrs import field, frozen

# Each pattern starts with the character that must be there, and looks behind from it: the regex engine
# then skips to candidates at memchr speed instead of trying every position.
_GENERIC = tuple(
    re.compile(pattern)
    for pattern in (
        r"/(?<![\w.:@+\-]/)(?=[^\s/])",  # '/'-rooted: the slash does not continue a word or address
        r":[\\/](?<=[A-Za-z]:[\\/])(?<![\w:][A-Za-z]:[\\/])",  # C:\ or C:/ (not the end of mod:A:/)
        r"~[\\/](?<![^\s\"'(=,]~[\\/])",  # ~/ at the start of a word
    )
)
_FILE_URI = re.compile(r"file:(?<!\wfile:)")  # searched in lower-cased text: a literal start stays fast


def _meaningful(paths: Iterable[str]) -> tuple[str, ...]:
    # a one-character "path" (the filesystem root) would match every slash
    return tuple(path for path in paths if len(path) > 1)


def _scan(text: str, unc: str, literals: tuple[str, ...]) -> bool:
    if unc in text or any(literal in text for literal in literals):
        return True
    return any(pattern.search(text) for pattern in _GENERIC) or _FILE_URI.search(text.lower()) is not None


@frozen
class LeakGate:
    """Finds host paths in reply data: the generic patterns plus the operator's configured root paths."""

    host_paths: tuple[str, ...] = field(converter=_meaningful)

    def leaks_in_json(self, text: str) -> bool:
        """Whether JSON text (written with `ensure_ascii=False`) carries a host path."""
        escaped = tuple(json.dumps(path, ensure_ascii=False)[1:-1] for path in self.host_paths)
        return _scan(text, "\\\\\\\\", (*self.host_paths, *escaped))  # JSON doubles each backslash

    def leaks_in_content(self, text: str) -> bool:
        """Whether the user's own file content names a configured root's real path (the only check such
        content gets: a script may legitimately mention /usr/bin, but never where our roots live)."""
        return any(path in text for path in self.host_paths)

    def findings(self, value: object) -> list[str]:
        """JSON pointers of every key or value that carries a host path (empty: clean)."""
        return [pointer for pointer, text in _strings(value, "") if _scan(text, "\\\\", self.host_paths)]


def _strings(value: object, pointer: str) -> Iterator[tuple[str, str]]:
    if isinstance(value, str):
        yield pointer, value
    elif isinstance(value, Mapping):
        for key, item in value.items():
            here = f"{pointer}/{_escape(str(key))}"
            yield here, str(key)
            yield from _strings(item, here)
    elif isinstance(value, list | tuple):
        for position, item in enumerate(value):
            yield from _strings(item, f"{pointer}/{position}")


def _escape(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")
