"""The one parser of CK3 script (Paradox's Jomini format): `key = { … }`, `key = value`, the comparison
operators, `@variables` and `@[ … ]` inline maths, tagged blocks (`hsv { … }`, `rgb { … }`), quoted
strings, comments, `namespace`, event ids, a byte-order mark or none, CRLF or LF.

It reads without recursion and never raises: a broken file yields what parsed plus findings with lines
(domain.ck3.parse_findings). Bounds: MAX_CHARS of text, MAX_TOKENS tokens and MAX_DEPTH levels of nesting
(past MAX_DEPTH the braces are still counted, so 50,000 `{` is two findings and no error).

The result keeps the statements down to `keep` levels (one: the top level) and, when asked, every word
of the file with its first line (what the content index counts as mentions).
"""

import re
from typing import Final, NamedTuple

from attrs import frozen

from domain.ck3 import parse_findings as pf

MAX_CHARS: Final = 32 * 1024 * 1024
MAX_TOKENS: Final = 4_000_000
MAX_DEPTH: Final = 256
TOKEN: Final = re.compile(
    r"(?P<ws>[\s\ufeff]+)|(?P<comment>#[^\n]*)"
    r'|(?P<string>"(?:[^"\\\n]|\\.)*")|(?P<open_string>"[^\n]*)'
    r"|(?P<maths>@\[[^\]\n]*\]?)|(?P<op><=|>=|!=|==|\?=|[=<>])"
    r"|(?P<open>\{)|(?P<close>\})|(?P<word>[^\s={}<>!?\"#]+|[!?])"
)
"""The script's tokens; a parse runs it with `finditer` (the content index's benchmark floor does too)."""
_SKIPPED: Final = frozenset({"ws", "comment"})
_BRACES: Final = re.compile(r'"(?:[^"\\\n]|\\.)*"?|#[^\n]*|[{}]')
_WORD: Final = re.compile(r"[A-Za-z_][\w.:\-]*")
_COMMENT: Final = re.compile(r"#[^\n]*")
_COLUMN_ZERO: Final = re.compile(r"\n([A-Za-z_][^\s={}]*)")
_MENTION: Final = re.compile(r"[A-Za-z_][\w.:\-]*")


class Statement(NamedTuple):
    """One statement: `key op value` (value a word or string), `key op {` (value None, a block), a tagged
    block `key op tag { … }` (value the tag), or a bare value inside a list (op and value empty). The line
    is the key's, `depth` its nesting (0: top level), `parent` the index of its block's statement or -1.
    A plain tuple: a file can hold hundreds of thousands."""

    key: str
    op: str
    value: str | None
    line: int
    depth: int
    parent: int = -1
    tagged: bool = False

    @property
    def is_block(self) -> bool:
        """Whether the statement opens a block (tagged or not)."""
        return self.value is None or self.tagged


@frozen
class Script:
    """A parsed script file: its statements (down to the depth asked), its words with their first line
    (when asked), and the findings."""

    statements: tuple[Statement, ...]
    words: dict[str, int]
    findings: tuple[pf.ParseFinding, ...]

    def top(self) -> list[Statement]:
        """The top-level statements, in file order."""
        return [statement for statement in self.statements if statement.depth == 0]


class _Reader:
    """The parser's state: the key and operator met but not yet complete, the open blocks."""

    def __init__(self, keep: int, *, words: bool) -> None:
        self.keep = keep
        self.collect = words
        self.statements: list[Statement] = []
        self.words: dict[str, int] = {}
        self.findings = pf.Findings()
        self.opened: list[tuple[int, int]] = []  # (line of `{`, index of its statement or -1)
        self.key: tuple[str, int] | None = None
        self.op: str | None = None
        self.value: str | None = None
        self.deep_reported = False

    @property
    def depth(self) -> int:
        return len(self.opened)

    def parent(self) -> int:
        return self.opened[-1][1] if self.opened else -1

    def record(self, key: str, op: str, value: str | None, line: int, *, tagged: bool = False) -> int:
        if self.depth >= self.keep:
            return -1
        self.statements.append(Statement(key, op, value, line, self.depth, self.parent(), tagged))
        return len(self.statements) - 1

    def word(self, text: str, line: int) -> None:
        if self.collect and text not in self.words and _MENTION.fullmatch(text):
            self.words[text] = line

    def flush(self) -> None:
        """Complete what is pending before a token that cannot continue it."""
        if self.key is not None and self.op is not None and self.value is not None:
            self.record(self.key[0], self.op, self.value, self.key[1])
        elif self.key is not None and self.op is not None:
            self.findings.add(pf.NO_VALUE, self.key[1], f"{self.key[0][:60]} {self.op} has no value")
        elif self.key is not None:
            self.record(self.key[0], "", "", self.key[1])
        self.key = self.op = self.value = None

    def open(self, line: int) -> None:
        index = -1
        if self.key is not None and self.op is not None and self.value is not None:
            index = self.record(self.key[0], self.op, self.value, self.key[1], tagged=True)
        elif self.key is not None:
            index = self.record(self.key[0], self.op or "", None, self.key[1])
        self.key = self.op = self.value = None
        if self.depth == MAX_DEPTH and not self.deep_reported:
            self.deep_reported = True
            self.findings.add(
                pf.LIMIT, line, f"nesting deeper than {MAX_DEPTH} levels; its content is not kept"
            )
        self.opened.append((line, index))

    def close(self, line: int) -> None:
        self.flush()
        if self.opened:
            self.opened.pop()
        else:
            self.findings.add(pf.NOT_CLOSED_BY_ANYTHING, line, "`}` closes nothing")

    def token(self, kind: str, text: str, line: int, *, column_zero: bool) -> None:
        if kind == "open":
            self.open(line)
        elif kind == "close":
            self.close(line)
        elif kind == "op":
            if self.key is not None and self.op is None:
                self.op = text
            else:
                self.flush()
                self.findings.add(pf.NO_VALUE, line, f"operator {text} has no key")
        else:
            if kind == "string":
                text = text[1:-1]
            if self.key is not None and self.op is not None and self.value is None:
                self.value = text
            else:
                self.start(kind, text, line, column_zero=column_zero)
                if not self.opened:
                    return  # a top-level key is what the file defines, not a mention
            self.word(text, line)

    def start(self, kind: str, text: str, line: int, *, column_zero: bool) -> None:
        """A word that begins a statement: what was pending is complete."""
        self.flush()
        if column_zero and self.opened and kind == "word":
            self.findings.add(pf.BRACE_SUSPECT, line, f"{text[:60]} starts a line inside a block")
        self.key = (text, line)

    def end(self) -> Script:
        self.flush()
        if self.opened:
            first = self.opened[0][0]
            self.findings.add(pf.NEVER_CLOSED, first, f"{len(self.opened)} block(s) never closed")
        return Script(tuple(self.statements), self.words, self.findings.done())


def parse(text: str, *, keep: int = 1, words: bool = False) -> Script:
    """Parse script `text` (a leading byte-order mark is skipped). Never raises."""
    reader = _Reader(keep, words=words)
    if len(text) > MAX_CHARS:
        reader.findings.add(
            pf.LIMIT, 1, f"the file has more than {MAX_CHARS} characters; the rest is not read"
        )
        text = text[:MAX_CHARS]
    line = 1
    counted = 0  # lines are counted lazily, up to the token that needs one
    budget = [MAX_TOKENS]
    opened = reader.opened
    position: int | None = 0
    while position is not None:
        resume, position = position, None
        for match in TOKEN.finditer(text, resume):
            kind = match.lastgroup
            if kind in _SKIPPED:
                continue
            start = match.start()
            budget[0] -= 1
            line += text.count("\n", counted, start)
            counted = start
            if budget[0] < 0:
                reader.findings.add(pf.LIMIT, line, f"more than {MAX_TOKENS} tokens; the rest is not read")
                break
            value = match.group()
            if kind == "open_string":
                reader.findings.add(pf.OPEN_STRING, line, "a quoted string is not closed on its line")
                value = value + '"'
                kind = "string"
            reader.token(kind or "word", value, line, column_zero=start == 0 or text[start - 1] == "\n")
            if kind == "open" and len(opened) >= keep:
                # the block's content lies below the kept depth: skim it for its braces and words
                position = _skim(reader, text, match.end(), line, budget)
                break
    return reader.end()


def _skim(reader: _Reader, text: str, start: int, line: int, budget: list[int]) -> int | None:
    """Read the block opened just before `start` to its closing brace without keeping its statements:
    its braces (bounded), strings and comments; its words when asked. The position after its closing
    brace (its block closed), or None when the file ends first (the block stays open)."""
    depth = 1
    for match in _BRACES.finditer(text, start):
        budget[0] -= 1
        mark = match.group()
        if mark == "{":
            depth += 1
            if depth + len(reader.opened) > MAX_DEPTH and not reader.deep_reported:
                reader.deep_reported = True
                at = line + text.count("\n", start, match.start())
                reader.findings.add(pf.LIMIT, at, f"nesting deeper than {MAX_DEPTH} levels")
        elif mark == "}":
            depth -= 1
            if depth == 0:
                _block_words(reader, text, start, match.start(), line)
                reader.opened.pop()
                return match.end()
        elif mark[0] == '"' and (len(mark) == 1 or mark[-1] != '"'):
            at = line + text.count("\n", start, match.start())
            reader.findings.add(pf.OPEN_STRING, at, "a quoted string is not closed on its line")
        if budget[0] < 0:
            reader.findings.add(pf.LIMIT, line, f"more than {MAX_TOKENS} tokens; the rest is not read")
            break
    reader.opened.extend([(line, -1)] * (depth - 1))
    _block_words(reader, text, start, len(text), line)
    return None


def _block_words(reader: _Reader, text: str, start: int, end: int, line: int) -> None:
    """The words of a skimmed block as mentions (their first line), and a suspected missing brace for a
    key at column 0 inside it."""
    block = text[start:end]
    for suspect in _COLUMN_ZERO.finditer(block):
        at = line + block.count("\n", 0, suspect.start() + 1)
        reader.findings.add(pf.BRACE_SUSPECT, at, f"{suspect.group(1)[:60]} starts a line inside a block")
    if not reader.collect:
        return
    seen = reader.words
    bare = _COMMENT.sub("", block) if "#" in block else block
    # the block's new words by their first place in it, so that its lines are counted once over it; a
    # difference with the dict itself, never its keys view (that would walk every word of the file)
    firsts = sorted([(max(block.find(word), 0), word) for word in set(_WORD.findall(bare)).difference(seen)])
    counted = 0
    for place, word in firsts:
        line += block.count("\n", counted, place)
        counted = place
        seen[word] = line
