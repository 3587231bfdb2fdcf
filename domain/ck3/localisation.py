"""The one parser of CK3 localisation (`*_l_<language>.yml`): the `l_<language>:` header, then entries
`key:0 "value"` (the number may be absent), comments, a byte-order mark or none, CRLF or LF.

As the game and ck3-tiger read it, a value runs from the first `"` after the key to the last `"` of its
line. Each entry keeps its `$references$` (other keys or variables) and `[data functions]`, which the
index does not count as mentions (SPEC §15: mentions cover script and GUI files). Never raises: a line
that is not an entry is a finding, and so is a key written twice.
"""

import re
from typing import Final

from attrs import frozen

from domain.ck3 import parse_findings as pf

MAX_CHARS: Final = 32 * 1024 * 1024
MAX_ENTRIES: Final = 1_000_000
KEY: Final = re.compile(r'^[ \t]*([^\s:#"]+):(\d*)[ \t]*(.*?)[ \t]*\r?$', re.MULTILINE)
"""A localisation line (`key:0 "value"` or the header); the content index's benchmark floor runs it."""
_HEADER: Final = re.compile(r"l_([a-z_]+)")
_REFERENCE: Final = re.compile(r"\$([^$\s|]+)(?:\|[^$]*)?\$")
_FUNCTION: Final = re.compile(r"\[([^\]]*)\]")


@frozen
class Entry:
    """One entry: key, its version number (None when absent), value without its outer quotes, line, and
    the `$references$` and `[functions]` of the value."""

    key: str
    version: int | None
    value: str
    line: int
    references: tuple[str, ...] = ()
    functions: tuple[str, ...] = ()


@frozen
class Localisation:
    """A parsed localisation file: its language (from the header; None without one), entries, findings."""

    language: str | None
    entries: tuple[Entry, ...]
    findings: tuple[pf.ParseFinding, ...]

    def keys(self) -> dict[str, Entry]:
        """The entries by key; the later of two with one key wins, as the game reads the file."""
        return {entry.key: entry for entry in self.entries}


def parse(text: str) -> Localisation:
    """Parse localisation `text` (a leading byte-order mark is skipped). Never raises."""
    reading = _Reading()
    if len(text) > MAX_CHARS:
        reading.findings.add(
            pf.LIMIT, 1, f"the file has more than {MAX_CHARS} characters; the rest is not read"
        )
        text = text[:MAX_CHARS]
    for number, line in enumerate(text.removeprefix("\ufeff").split("\n"), start=1):
        stripped = line.strip()
        if stripped and not stripped.startswith("#") and not reading.line(number, line, stripped):
            break
    if reading.language is None and not reading.entries:
        reading.findings.add(pf.HEADER, 1, "the file has no l_<language>: header")
    return Localisation(reading.language, tuple(reading.entries), reading.findings.done())


class _Reading:
    """What one file has given so far."""

    def __init__(self) -> None:
        self.language: str | None = None
        self.entries: list[Entry] = []
        self.seen: dict[str, int] = {}
        self.findings = pf.Findings()

    def line(self, number: int, line: str, stripped: str) -> bool:
        """Read one line that is neither blank nor a comment; False once the file passes MAX_ENTRIES."""
        match = KEY.match(line)
        if match is None:
            self.findings.add(pf.NOT_AN_ENTRY, number, f'not a key:0 "value" entry: {stripped[:60]}')
            return True
        key, version, rest = match.groups()
        first = self.language is None and not self.entries
        if first and not rest.split("#")[0].strip() and (header := _HEADER.fullmatch(key)):
            self.language = header.group(1)
            return True
        if first:
            self.findings.add(pf.HEADER, number, "the file does not open with an l_<language>: header")
        value = _value(rest)
        if value is None and rest.startswith('"'):
            self.findings.add(pf.OPEN_STRING, number, f"the value of {key[:60]} is not closed on its line")
            value = rest[1:]
        if value is None:
            self.findings.add(pf.NOT_AN_ENTRY, number, f"{key[:60]} has no quoted value")
            return True
        if key in self.seen:
            self.findings.add(
                pf.DUPLICATE, number, f"{key[:60]} is defined again (first on line {self.seen[key]})"
            )
        self.seen.setdefault(key, number)
        if len(self.entries) >= MAX_ENTRIES:
            self.findings.add(pf.LIMIT, number, f"more than {MAX_ENTRIES} entries; the rest is not read")
            return False
        references, functions = tuple(_REFERENCE.findall(value)), tuple(_FUNCTION.findall(value))
        self.entries.append(
            Entry(key, int(version) if version else None, value, number, references, functions)
        )
        return True


def _value(rest: str) -> str | None:
    """The value between the first and the last `"` of what follows the key, or None."""
    first, last = rest.find('"'), rest.rfind('"')
    if first != 0 or last <= first:
        return None
    return rest[first + 1 : last]
