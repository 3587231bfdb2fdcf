"""The game's own logs (error.log, game.log, debug.log, crash reports), parsed as a stream: bytes go in a
chunk at a time, emissions come out, and no line is ever dropped. Pure: no file is read here.

An emission is a header line and the lines that continue it. The forms, as the game writes them in public
reports (each cited where it is matched):

- `[18:55:24][jomini_script_system.cpp:169]: Script system error!` followed by indented lines
  `  Error: ...` and `  Script location: file: common/x.txt line: 64` (CK3 error.log quoted in
  github.com/Warcraft-GoA-Development-Team/Warcraft-Guardians-of-Azeroth-2 issue 3, 2021);
- a level letter after the time, `[E][lexer.cpp:299]: File ... should be in utf8-bom encoding`
  (github.com/woodk123/ck3-inheritance-lens docs/modding_guidelines.md);
- `Failed to read culture reference X from database  file: history/characters/x.txt line: 404` (the same
  GoA issue); `Key 'K' is defined in both 'X' and 'Y'` (pdx_localize.cpp, quoted in
  github.com/AndHope/Basileia-Romaion pull request 9); `Error: unexpected token in file: "X" near line: 88`
  (parser.cpp, quoted in github.com/Kaiserreich/Kaiserreich-4-Bug-Reports issue 18117, a Jomini sibling);
  `Object with key: K already exists, using the one at  file: X line: N` (game_singleobjectdatabase.h,
  github.com/bcssov/IronyModManager issue 453); `Couldn't find texture file: X` and the logs' being wiped at
  each start (ck2.paradoxwikis.com/Troubleshooting); `Unrecognized loc key K`
  (ck3.parawikis.com Mod troubleshooting).

An indented line continues the emission before it; any other line that matches no form is kept as a raw
emission of its own. Lines that are not
UTF-8 are decoded with replacement and counted; a line holding NUL bytes is counted as binary; a last line
without its newline is counted as truncated; a line past MAX_LINE bytes is cut and counted.
"""

import re
from collections.abc import Iterator
from typing import Final, NamedTuple

from attrs import define, frozen

MAX_LINE: Final = 64 * 1024
"""The longest line kept whole; the rest of a longer line is cut (and counted)."""
MAX_CONTINUED: Final = 200
"""Continuation lines one emission keeps; the lines past them are still counted in its last line."""
LEVELS: Final = {"E": "error", "W": "warning", "I": "info", "D": "debug"}
DEFAULT_LEVEL: Final = {"error.log": "error", "debug.log": "debug"}
"""A header without a level letter takes its log's level (error.log: error); any other log: info."""

_HEADER: Final = re.compile(r"\[(\d{1,2}:\d\d:\d\d)\](?:\[([EWID])\])?\[([^\]\s]+)\]:[ \t]?(.*)")
LINES: Final = re.compile(
    r"^(?:\[(\d{1,2}:\d\d:\d\d)\](?:\[([EWID])\])?\[([^\]\s]+)\]:[ \t]?(.*)\n((?:[ \t][^\n]*\n)*)|(.*)\n)",
    re.MULTILINE,
)
"""Every line of text made of whole lines: a header with the indented lines that continue it, or any
other line."""
EMISSION: Final = re.compile(
    r"^\[(\d{1,2}:\d\d:\d\d)\](?:\[([EWID])\])?\[([^\]\s]+)\]:[ \t]?(.*)\n((?:[ \t][^\n]*\n)*)", re.MULTILINE
)
"""A header line and the indented lines that continue it, in text of whole lines."""

_NAMED: Final = (
    # "Script location: file: X line: N (object:context)", also "file:  file: X line: N; trigger line: 2"
    # and "... from database  file: X line: N" (GoA issue 3), "using the one at  file: X line: N" (Irony 453)
    ("file", re.compile(r"(?<!near )\bfile:\s+(?:file:\s+)?(?!\")(.+?)\s+line:\s*(\d+)")),
    # 'in file: "X" near line: N' (Kaiserreich 18117)
    ("near", re.compile(r"\bfile:\s*\"([^\"]+)\"(?:\s*near line:\s*(\d+))?")),
    # "near file: X line: N" (SPEC §17)
    ("near", re.compile(r"\bnear file:\s*(.+?)\s+line:\s*(\d+)")),
    # "Key 'K' is defined in both 'X' and 'Y'" (Basileia-Romaion pull request 9)
    ("defined-in-both", re.compile(r"defined in both\s+'([^']+)'\s+and")),
    ("defined-in-both", re.compile(r"defined in both\s+'[^']+'\s+and\s+'([^']+)'")),
    # a file saved without its byte order mark, in lexer.cpp's words (ck3-inheritance-lens guidelines)
    ("encoding", re.compile(r"\bFile\s+'?([^'\s][^']*?)'?\s+should be in utf8-bom encoding")),
    # the texture file a CK2 error.log could not find (CK2 wiki Troubleshooting)
    (
        "missing-file",
        re.compile(
            r"(?i:couldn't find|could not find|failed to (?:open|load))\s+\w*\s*file:?\s+'?\"?([^'\"\s]+)"
        ),
    ),
)
_DEFINED_KEY: Final = re.compile(r"Key '([^']+)' is\s+defined in both")
_CAUSE: Final = re.compile(
    r"(?i:unknown|undefined|invalid|unrecognized|not defined|could not find|couldn't find|failed to read)"
    r"\s+(?:(\w+)\s+)?(?:reference\s+|key\s+|loc key\s+)?(?::\s*)?'?\"?([A-Za-z_][\w.:-]*)'?\"?"
)
"""An undefined key (`Unknown trait 'K'`, `Failed to read culture reference K`, `Unrecognized loc key K`):
the root cause a cascade of emissions shares."""
DIGITS: Final = str.maketrans("0123456789", "#" * 10)
"""Every digit as `#`: a text's shape, made by one call of C (`str.translate`); texts of one shape have
one template."""
_MASKS: Final = (
    (re.compile(r"\bfile:[ \t]+(?:file:[ \t]+)?.+?(?=[ \t]+line:|$)", re.MULTILINE), "file <file>"),
    (re.compile(r"'[^'\n]*'"), "'*'"),
    (re.compile(r"\"[^\"\n]*\""), '"*"'),
    (re.compile(r"#+(?:\.#+)?"), "#"),
)
"""What varies in a shape: the file it names, quoted names, numbers (each run of digits one `#`)."""
_TEMPLATES_KEPT: Final = 1 << 15
GENERIC: Final = 40
"""A header message shorter than this says only that something failed: its first continuation line
tells emissions apart."""


@frozen
class Named:
    """A file an emission names, as the log spells it, with the line it names (None: no line), and how it
    was named (`file`, `near`, `defined-in-both`, `encoding`, `missing-file`)."""

    path: str
    line: int | None
    form: str


class Emission(NamedTuple):
    """One entry of a log: its ordinal, its first and last line numbers, the time and level and engine
    source of its header (None: a raw line that matched no form), its message, the continuation lines
    kept, and every file it names. A named tuple: a log of a million entries makes a million of them."""

    number: int
    first_line: int
    last_line: int
    time: str | None
    level: str
    source: str | None
    message: str
    block: str = ""
    """The continuation lines (at most MAX_CONTINUED), joined by newlines."""

    @property
    def continued(self) -> tuple[str, ...]:
        """The continuation lines kept."""
        return tuple(self.block.split("\n")) if self.block else ()

    @property
    def raw(self) -> bool:
        """Whether the emission is a line that matched no form."""
        return self.source is None

    @property
    def text(self) -> str:
        return f"{self.message}\n{self.block}" if self.block else self.message

    def named(self) -> tuple[Named, ...]:
        """Every file (and line) the emission names, in the order they appear."""
        text = self.text
        found: list[Named] = []
        seen: set[tuple[str, int | None]] = set()
        for form, pattern in _NAMED:
            for match in pattern.finditer(text):
                path = match.group(1).strip().strip("\"'")
                line = (
                    int(match.group(2))
                    if match.lastindex == 2 and match.group(2)  # noqa: PLR2004 - a line number's group
                    else None
                )
                if (
                    path
                    and (path, line) not in seen
                    and not any(n.path == path for n in found if line is None)
                ):
                    seen.add((path, line))
                    found.append(Named(path, line, form))
        return tuple(found)

    def cause(self) -> tuple[str, str] | None:
        """The root cause the emission reports, as (kind, name): an undefined key (`trait`, `lucky`) or a
        missing file (`file`, its path), or a key defined twice (`defined-twice`, the key); None: none."""
        text = self.text
        missing = next((n for n in self.named() if n.form == "missing-file"), None)
        if missing is not None:
            return "file", missing.path
        twice = _DEFINED_KEY.search(text)
        if twice is not None:
            return "defined-twice", twice.group(1)
        found = _CAUSE.search(text)
        if found is None:
            return None
        return (found.group(1) or "key").lower(), found.group(2)


@frozen
class Findings:
    """What a log held that is not a well-formed line: counts of each kind (zero: none)."""

    not_utf8: int = 0
    binary: int = 0
    cut: int = 0
    truncated: bool = False

    def listed(self) -> list[dict[str, object]]:
        """The findings a reply lists (empty: the log is clean text)."""
        said = (
            ("not-utf8", self.not_utf8, "lines that are not UTF-8, read with replacement characters"),
            ("binary", self.binary, "lines holding NUL bytes (binary), read with them removed"),
            ("cut", self.cut, f"lines longer than {MAX_LINE} bytes, cut there"),
            ("truncated", int(self.truncated), "the last line has no newline: the log may be truncated"),
        )
        return [{"finding": name, "lines": count, "says": says} for name, count, says in said if count]


@define
class _Open:
    """The emission being read: where it starts, its header, its continuation lines so far."""

    first: int
    time: str
    level: str
    source: str
    message: str
    parts: list[str]
    kept: int
    last: int


@define
class LogParser:
    """Turns a log's bytes, fed a chunk at a time, into emissions; `finish` ends the stream. A chunk of
    clean UTF-8 text is scanned whole by one pattern (EMISSION); one holding anything else (bytes that are
    not UTF-8, NUL, a line too long) line by line, each line decoded on its own."""

    level: str = "info"
    """The level of a header without a level letter (DEFAULT_LEVEL by the log's name)."""
    line_number: int = 0
    emitted: int = 0
    findings: Findings = Findings()
    _carry: bytes = b""
    _open: _Open | None = None

    @classmethod
    def for_log(cls, name: str) -> "LogParser":
        return cls(DEFAULT_LEVEL.get(name.rsplit("/", 1)[-1].lower(), "info"))

    def feed(self, chunk: bytes) -> Iterator[Emission]:
        """The emissions completed by `chunk` (the last one stays open until a header or the end)."""
        data = self._carry + chunk if self._carry else chunk
        cut = data.rfind(b"\n")
        if cut < 0:
            self._carry = data
            if len(data) > MAX_LINE:  # a line without end in sight: taken now, and cut
                self._carry = b""
                yield from self._line(self._decoded(data))
            return
        body, self._carry = data[: cut + 1], data[cut + 1 :]
        if b"\r" in body:
            body = body.replace(b"\r\n", b"\n")
        text = None
        if b"\x00" not in body and (len(body) <= MAX_LINE or max(map(len, body.split(b"\n"))) <= MAX_LINE):
            try:
                text = body.decode("utf-8")
            except UnicodeDecodeError:
                text = None
        if text is None:
            for raw in body.split(b"\n")[:-1]:
                yield from self._line(self._decoded(raw))
        else:
            yield from self._scan(text)

    def finish(self) -> Iterator[Emission]:
        """The last emissions: the open one, and a last line without its newline (counted truncated)."""
        if self._carry:
            self.findings = _more(self.findings, truncated=True)
            carry, self._carry = self._carry, b""
            yield from self._line(self._decoded(carry))
        if self._open is not None:
            yield self._close()

    def _scan(self, text: str) -> Iterator[Emission]:
        """The emissions of whole lines of clean text, every line found by one pattern (LINES): a header
        with the indented lines after it at once (left open when it ends the text: the next chunk may
        continue it), any other line as `_line` takes it."""
        level = self.level
        rows = LINES.findall(text)
        last = len(rows) - 1
        for index, (time, letter, source, message, block, other) in enumerate(rows):
            if not source:
                yield from self._line(other)
                continue
            if self._open is not None:
                yield self._close()
            first = self.line_number + 1
            count = block.count("\n")
            self.line_number = first + count
            kept = _continued(block, count)
            this = LEVELS[letter] if letter else level
            if index == last:
                parts = [kept] if count else []
                self._open = _Open(
                    first, time, this, source, message, parts, min(count, MAX_CONTINUED), first + count
                )
            else:
                self.emitted += 1
                yield Emission(self.emitted, first, first + count, time, this, source, message, kept)

    def _line(self, text: str) -> Iterator[Emission]:
        self.line_number += 1
        header = _HEADER.match(text)
        if header is not None:
            if self._open is not None:
                yield self._close()
            time, letter, source, message = header.groups()
            level = LEVELS[letter] if letter else self.level
            self._open = _Open(self.line_number, time, level, source, message, [], 0, self.line_number)
            return
        current = self._open
        if current is not None and text[:1] in {" ", "\t"}:
            if current.kept < MAX_CONTINUED:
                current.parts.append(text)
                current.kept += 1
            current.last = self.line_number
            return
        if current is not None:
            yield self._close()
        if text.strip():
            self.emitted += 1
            yield Emission(self.emitted, self.line_number, self.line_number, None, "unknown", None, text)

    def _close(self) -> Emission:
        current = self._open
        assert current is not None  # noqa: S101 - called only with an emission open
        self._open = None
        self.emitted += 1
        return _closed(current, self.emitted)

    def _decoded(self, raw: bytes) -> str:
        if raw.endswith(b"\r"):
            raw = raw[:-1]
        if len(raw) > MAX_LINE:
            raw = raw[:MAX_LINE]
            self.findings = _more(self.findings, cut=1)
        if b"\x00" in raw:
            raw = raw.replace(b"\x00", b"")
            self.findings = _more(self.findings, binary=1)
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            self.findings = _more(self.findings, not_utf8=1)
            return raw.decode("utf-8", "replace")


def _continued(block: str, count: int) -> str:
    """The `count` continuation lines of `block` (each ending in a newline) joined, at most MAX_CONTINUED."""
    if count > MAX_CONTINUED:
        return "\n".join(block.split("\n", MAX_CONTINUED)[:MAX_CONTINUED])
    return block[:-1]


def _closed(current: _Open, number: int) -> Emission:
    """The emission `current` was gathering, numbered `number`."""
    block = "\n".join(current.parts)
    return Emission(
        number,
        current.first,
        current.last,
        current.time,
        current.level,
        current.source,
        current.message,
        block,
    )


def _more(
    findings: Findings, *, not_utf8: int = 0, binary: int = 0, cut: int = 0, truncated: bool = False
) -> Findings:
    return Findings(
        findings.not_utf8 + not_utf8,
        findings.binary + binary,
        findings.cut + cut,
        findings.truncated or truncated,
    )


_templates: dict[str, str] = {}


def template(emission: Emission) -> str:
    """The emission's message with what varies masked (files, quoted names, numbers), and for a header
    whose message says only that something failed (`Script system error!`), its first continuation line
    masked too: emissions of one template differ only in what was masked."""
    message = mask(emission.message.translate(DIGITS))
    if emission.block and len(emission.message) < GENERIC:
        first = emission.block.partition("\n")[0]
        return f"{message} {mask(first.translate(DIGITS)).strip()}"
    return message


def mask(text: str) -> str:
    """A shape (a text with its digits `#`) with files, quoted names and numbers masked (each shape
    masked once while it is kept)."""
    known = _templates.get(text)
    if known is not None:
        return known
    masked = text
    for pattern, replacement in _MASKS:
        masked = pattern.sub(replacement, masked)
    if len(_templates) >= _TEMPLATES_KEPT:
        _templates.clear()
    _templates[text] = masked
    return masked
