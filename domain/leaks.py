"""Leak detection: does a JSON-shaped value carry anything that looks like a host path?

The gate scans keys and values, recursively. A hit is reported by its location (a JSON pointer), never by
the offending text, so whoever reports the leak cannot repeat it. Canonical addresses (`ROOT_X:/a/b`,
`mod:Name:/a`) never match: their slash always follows a colon.
"""

import re
from collections.abc import Iterable, Iterator, Mapping

from attrs import field, frozen

_GENERIC = (
    # a '/'-rooted path: a slash that does not continue a word, an address or a relative path
    re.compile(r"(?<![\w.:@+\-])/(?=[^\s/])"),
    # a Windows drive path, C:\ or C:/ (a one-letter "mod name" in mod:A:/ is excluded by the colon)
    re.compile(r"(?<![\w:])[A-Za-z]:[\\/]"),
    # UNC and device namespaces: \\server\share, \\?\C:\, \\.\pipe
    re.compile(r"\\\\"),
    # the home-relative shorthand and file URIs
    re.compile(r"(?:^|[\s\"'(=,])~[\\/]"),
    re.compile(r"(?i)\bfile:"),
)


def _meaningful(paths: Iterable[str]) -> tuple[str, ...]:
    # a one-character "path" (the filesystem root) would match every slash
    return tuple(path for path in paths if len(path) > 1)


@frozen
class LeakGate:
    """Finds host paths in reply data: the generic patterns plus the operator's configured root paths."""

    host_paths: tuple[str, ...] = field(converter=_meaningful)

    def findings(self, value: object) -> list[str]:
        """JSON pointers of every key or value that carries a host path (empty: clean)."""
        return [pointer for pointer, text in _strings(value, "") if self._hit(text)]

    def _hit(self, text: str) -> bool:
        if any(pattern.search(text) for pattern in _GENERIC):
            return True
        return any(path in text for path in self.host_paths)


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
