"""Leak detection: does a reply carry a host path?

A hit is any of the server's own places — the configured roots' real paths, the state directory, the home
and temp directories (given by the operator's configuration) — or a usual system prefix (`/etc/`,
`/home/`, `/Users/`, `C:\\`, `\\\\server`, `~/`, `file:`, ...) wherever it appears in a string, after a
word, a colon, an `@` or a `+` alike. A string the address grammar accepts as a canonical address is never
a hit, whatever its folder names (`ROOT_GAME:/gfx (old)/x.txt`, `ROOT_REPO:/etc/x`): the World Adapter
spelled it, and it names a place inside a root.

`leaks_in_json` scans the serialised envelope once for candidates (the common, clean case costs one pass of
a few regular expressions); only when one is found is the structure walked string by string, so that
canonical addresses and the envelope's message (rendered from a registered template and data that is itself
scanned) are set aside. Hits are reported by JSON pointer, never by their text. The served gate puts
`adapters.leak_screen` in front of that scan: its one pattern finds a candidate wherever these do (a test
holds it to that), so a change here is a change there.
"""

import functools
import json
import re
from collections.abc import Iterable, Iterator, Mapping
from typing import Final

from attrs import field, frozen

from domain.addresses import parsed_or_none
from domain.vocabulary import RootCategory

SYSTEM_FOLDERS: Final = (
    "etc|usr|home|Users|root|var|tmp|opt|srv|proc|sys|dev|mnt|media|private|Volumes|bin|sbin|lib|lib64|"
    "boot|run|snap|nix|Library|System|Applications|Windows|Program Files"
)
_ROOTS: Final = frozenset(root.value for root in RootCategory)
_PATTERNS: Final = (
    re.compile(rf"/(?<![\w.\-]/)(?:{SYSTEM_FOLDERS})(?=/|\\|\"|'|\s|$)"),  # /etc/..., a+/etc/x, path:/Users/x
    re.compile(r":[\\/](?<=[A-Za-z]:[\\/])(?<![\w][A-Za-z]:[\\/])"),  # C:\ or C:/ starting a word
    re.compile(r"\\\\(?=[\w.?$-])"),  # \\server\share, \\?\C:
    re.compile(r"//(?<![\w:]//)(?=\w)"),  # //server/share
    re.compile(r"~[\\/](?<![\w]~[\\/])"),  # ~/ starting a word
    re.compile(r":(?<=(?i:file):)(?<!\w(?i:file):)"),  # file: starting a word (found from its colon: fast)
)


def _meaningful(paths: Iterable[str]) -> tuple[str, ...]:
    # a one-character "path" (the filesystem root) would match every slash
    return tuple(sorted({path for path in paths if len(path) > 1}, key=len, reverse=True))


@frozen
class LeakGate:
    """Finds host paths in reply data: the server's own places and the machine's common ones (literal),
    plus the usual system prefixes."""

    host_paths: tuple[str, ...] = field(converter=_meaningful)
    """The server's own places: the configured roots' real paths and the state directory."""
    common_paths: tuple[str, ...] = field(default=(), converter=_meaningful)
    """The machine's home and temp directories."""
    told: tuple[str, ...] = field(default=(), converter=_meaningful)
    """Commands the operator chose to show, `{id}` standing for an approval id (the approve command with
    its executable and config file): a whole occurrence, ending at a space, quote or the end, is set aside
    before a string is scanned; nothing that follows it is. Never a root's or the state directory's path
    (the composition root checks that)."""

    def leaks_in_json(self, text: str) -> bool:
        """Whether JSON envelope text (written with `ensure_ascii=False`) carries a host path."""
        if not self._candidate(text, json_text=True):
            return False
        envelope = json.loads(text)
        if isinstance(envelope, dict):
            envelope = {key: value for key, value in envelope.items() if key != "message"}
        return bool(self.findings(envelope))

    def leaks_in_content(self, text: str) -> bool:
        """Whether the user's own text (a file, a commit message) names one of the server's own places (the
        only check such text gets: a script may mention /usr/bin, but never where our roots live)."""
        return any(path in text for path in self.host_paths)

    def findings(self, value: object) -> list[str]:
        """JSON pointers of every key or value that carries a host path (empty: clean)."""
        return [
            pointer
            for pointer, text in _strings(value, "")
            if self._candidate(self._untold(text), json_text=False) and not is_address(text)
        ]

    def _untold(self, text: str) -> str:
        for told in self.told:
            text = _told_pattern(told).sub(" ", text)
        return text

    def _candidate(self, text: str, *, json_text: bool) -> bool:
        literals = (*self.host_paths, *self.common_paths)
        if any(path in text for path in literals):
            return True
        if json_text and any(path in text for path in _escaped(literals)):
            return True
        return any(pattern.search(text) for pattern in _PATTERNS)


@functools.lru_cache(maxsize=8)
def _escaped(literals: tuple[str, ...]) -> tuple[str, ...]:
    """The places as JSON text spells them, where that differs from the place (a backslash, a quote)."""
    spelled = (json.dumps(path, ensure_ascii=False)[1:-1] for path in literals)
    return tuple(text for text, path in zip(spelled, literals, strict=True) if text != path)


@functools.lru_cache(maxsize=8)
def _told_pattern(template: str) -> re.Pattern[str]:
    prefix, _, suffix = template.partition("{id}")
    return re.compile(re.escape(prefix) + r"[A-Za-z0-9_-]{1,64}" + re.escape(suffix) + r"(?=[\s`'\"]|$)")


def is_address(text: str) -> bool:
    """Whether `text` is a canonical address the grammar accepts (a root or mod form, nothing else)."""
    parsed = parsed_or_none(text, "ROOT_REPO")
    if parsed is None or (parsed.mod is None and parsed.root not in _ROOTS):
        return False
    return text.startswith(f"mod:{parsed.mod}:/" if parsed.mod is not None else f"{parsed.root}:/")


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
