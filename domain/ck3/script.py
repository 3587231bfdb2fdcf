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
from domain.ck3 import script_words

MAX_CHARS: Final = 32 * 1024 * 1024
MAX_TOKENS: Final = 4_000_000
MAX_DEPTH: Final = 256
TOKEN: Final = re.compile(
    r"(?P<ws>[\s\ufeff]+)|(?P<comment>#[^\n]*)"
    r'|(?P<string>"(?:[^"\\\n]|\\.)*")|(?P<open_string>"[^\n]*)'
    r"|(?P<maths>@\[[^\]\n]*\]?)|(?P<op><=|>=|!=|==|\?=|[=<>])"
    r"|(?P<open>\{)|(?P<close>\})|(?P<word>[^\s={}<>!?\"#]+|[!?])"
)
"""The script's tokens, by name. A parse runs the same tokens as `_TOKENS` (by number, whitespace taken
with the token after it), each token's kind told by its group."""
_BRACES: Final = re.compile(r'"(?:[^"\\\n]|\\.)*"?|#[^\n]*|[{}]')
_COLUMN_ZERO: Final = re.compile(r"\n([A-Za-z_][^\s={}]*)")
_MENTION: Final = re.compile(r"[A-Za-z_][\w.:\-]*")
_SKIM_DEPTH: Final = 24
"""The nesting a skimmed block is matched whole to, in one search (`_CLOSED`)."""


_CLOSED: Final = script_words.closed_block(_SKIM_DEPTH)


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


# Possessive and atomic throughout: a word or operator is never given back to let what follows match, so
# a statement matched whole is exactly the tokens a match at a time would read (`@[` begins inline maths).
_SPACE: Final = r"[\s\ufeff]*+"
_PLAIN_WORD: Final = r'(?!@\[)[^\s={}<>!?"#\ufeff][^\s={}<>!?"#]*+'
_OPERATOR: Final = r"(?>(<=|>=|!=|==|\?=|[=<>]))"
_PAIR_TOKENS: Final = (
    rf'(({_PLAIN_WORD}){_SPACE}{_OPERATOR}{_SPACE}(?>({_PLAIN_WORD})|(@\[[^\]\n]*\]?)|"((?:[^"\\\n]|\\.)*+)")'
    rf"(?!{_SPACE}\{{))"
)
_BLOCK_TOKENS: Final = rf"(({_PLAIN_WORD}){_SPACE}{_OPERATOR}{_SPACE}\{{)"
_SINGLE: Final = (
    r'(#[^\n]*|\Z)|("(?:[^"\\\n]|\\.)*")|("[^\n]*)|(@\[[^\]\n]*\]?)|(<=|>=|!=|==|\?=|[=<>])'
    r'|(\{)|(\})|([^\s={}<>!?"#\ufeff][^\s={}<>!?"#]*|[!?])'
)
_STATEMENTS: Final = re.compile(rf"{_SPACE}(?:{_PAIR_TOKENS}|{_BLOCK_TOKENS}|{_SINGLE})")
"""TOKEN's tokens by group number, each with the whitespace before it (a word still never begins with a
byte-order mark), the end of the text read as a comment; and before them the two statements most written,
three tokens in one match: `key op value` (a word, inline maths or a string, no `{` after it, else a
tagged block) and `key op {`. What a parse runs: each match a search that never skips, a quarter of
TOKEN's matches."""
_TOKENS: Final = re.compile(rf"{_SPACE}(?:(?!){_PAIR_TOKENS}|(?!){_BLOCK_TOKENS}|{_SINGLE})")
"""The same, a token per match (its statement groups never match): where the tokens are counted one by
one, a text longer than the tokens left."""
_PAIR, _BLOCK, _COMMENTED, _STRING, _OPEN_STRING, _MATHS, _OP, _OPEN, _CLOSE, _PLAIN = (1, 7, *range(10, 18))
_CLOSED_WORDS: Final = frozenset({_PLAIN, _MATHS, _STRING})
_WORD_KEYS: Final = frozenset({_PAIR, _BLOCK, _PLAIN})
"""Keys that are a plain word (one at column 0 inside a block is suspect)."""
_new = tuple.__new__
"""A Statement from its full tuple, without the Python-level constructor (one per statement)."""


class _Reader:
    """The parser's state: the key, operator and value met but not yet complete (`key` None: none), the
    open blocks, the tokens left, and the line of the last token counted."""

    def __init__(self, keep: int, *, words: bool) -> None:
        self.keep = keep
        self.collect = words
        self.statements: list[Statement] = []
        self.words: dict[str, int] = {}
        self.skimmed: list[tuple[int, int, int]] = []  # (start, end, first line) of each block skimmed
        self.findings = pf.Findings()
        self.opened: list[tuple[int, int]] = []  # (line of `{`, index of its statement or -1)
        self.key: str | None = None
        self.key_line = 0
        self.op: str | None = None
        self.value: str | None = None
        self.deep_reported = False
        self.budget = [MAX_TOKENS]
        self.line = 1
        self.counted = 0  # lines are counted lazily, up to the token that needs one

    def run(self, text: str, position: int) -> int | None:  # noqa: C901, PLR0912, PLR0915
        """Read the tokens from `position` on: the position just inside a block opened at the depth not
        kept (for `_skim`), or None at the end or past the bound. One loop, its state in locals and every
        case inline: a call per token would be most of a parse's time. Three tokens are read in one match
        only where the tokens left cannot run out before the text does (each is a character at least)."""
        findings, opened, keep, collect, words = (
            self.findings,
            self.opened,
            self.keep,
            self.collect,
            self.words,
        )
        statements = self.statements
        key, key_line, op, value = self.key, self.key_line, self.op, self.value
        line, counted, budget = self.line, self.counted, self.budget[0]
        resume = None
        tokens = _STATEMENTS if len(text) - position <= budget else _TOKENS
        for match in tokens.finditer(text, position):
            kind = match.lastindex or _COMMENTED  # every match has a group
            if kind == _COMMENTED:
                continue
            budget -= 1
            if budget >= 0 and kind == _OP and op is None and key is not None:
                op = match.group(kind)
                continue
            if budget >= 0 and value is None and op is not None and kind in _CLOSED_WORDS:
                value = match.group(kind)[1:-1] if kind == _STRING else match.group(kind)
                if collect and value not in words and _MENTION.fullmatch(value):
                    line += text.count("\n", counted, match.start(kind))
                    counted = match.start(kind)
                    words[value] = line
                continue
            start = match.start(kind)
            line += text.count("\n", counted, start)
            counted = start
            if budget < 0:
                findings.add(pf.LIMIT, line, f"more than {MAX_TOKENS} tokens; the rest is not read")
                break
            if kind <= _BLOCK:  # a statement's three tokens
                budget -= 2
                if op is not None and value is None:  # its key is the value a pending operator awaits
                    self.key, self.key_line, self.op, self.value = key, key_line, op, value
                    self.line, self.counted = line, counted
                    self.split(text, match, kind)
                    key, key_line, op, value = self.key, self.key_line, self.op, self.value
                    line, counted = self.line, self.counted
                    if kind == _BLOCK and len(opened) >= keep:
                        resume = match.end()
                        break
                    continue
            token = match.group(kind)
            if kind == _OPEN_STRING:
                findings.add(pf.OPEN_STRING, line, "a quoted string is not closed on its line")
                token = token[1:]
                if key is not None and op is not None and value is None:
                    value = token
                    if collect and token not in words and _MENTION.fullmatch(token):
                        words[token] = line
                    continue
            elif kind == _STRING:
                token = token[1:-1]
            if key is not None and kind != _OPEN:  # what is pending is complete
                depth = len(opened)
                if op is not None and value is None:
                    findings.add(pf.NO_VALUE, key_line, f"{key[:60]} {op} has no value")
                elif depth < keep:
                    parent = opened[-1][1] if opened else -1
                    held = (key, op or "", "" if op is None else value, key_line, depth, parent, False)
                    statements.append(_new(Statement, held))
                key = op = value = None
            if kind == _CLOSE:
                if opened:
                    opened.pop()
                else:
                    findings.add(pf.NOT_CLOSED_BY_ANYTHING, line, "`}` closes nothing")
                continue
            if kind == _OP:
                findings.add(pf.NO_VALUE, line, f"operator {token} has no key")
                continue
            if kind != _OPEN:  # a key: a word, string or inline maths, or a statement's first token
                if kind in _WORD_KEYS:
                    token = match.group(kind + 1) if kind <= _BLOCK else token
                    if opened and (start == 0 or text[start - 1] == "\n"):
                        findings.add(pf.BRACE_SUSPECT, line, f"{token[:60]} starts a line inside a block")
                key, key_line = token, line
                if opened and collect and token not in words and _MENTION.fullmatch(token):
                    words[token] = line
                if kind == _PAIR:
                    op = match.group(3)
                    value, at = match.group(4), 4
                    if value is None:
                        value, at = (match.group(5), 5) if match.group(6) is None else (match.group(6), 6)
                    if collect and value not in words and _MENTION.fullmatch(value):
                        words[value] = line + text.count("\n", counted, match.start(at))
                    continue
                if kind != _BLOCK:
                    continue
                op = match.group(9)
                line += text.count("\n", counted, match.end() - 1)
                counted = match.end() - 1
            index, depth = -1, len(opened)  # a block opens
            if key is not None and depth < keep:
                tagged = op is not None and value is not None
                parent = opened[-1][1] if opened else -1
                held = (key, op or "", value if tagged else None, key_line, depth, parent, tagged)
                statements.append(_new(Statement, held))
                index = len(statements) - 1
            key = op = value = None
            if depth == MAX_DEPTH and not self.deep_reported:
                self.deep_reported = True
                detail = f"nesting deeper than {MAX_DEPTH} levels; its content is not kept"
                findings.add(pf.LIMIT, line, detail)
            opened.append((line, index))
            if depth + 1 >= keep:
                resume = match.end()  # the block's content lies below the depth kept
                break
        self.key, self.key_line, self.op, self.value = key, key_line, op, value
        self.line, self.counted, self.budget[0] = line, counted, budget
        return resume

    def split(self, text: str, match: re.Match[str], kind: int) -> None:
        """A statement's three tokens met where a key and operator await a value (`a = b = c`, a broken
        file), read one by one: its key is that value, its operator has no key, its value begins the next
        statement (or its `{` opens a block)."""
        first = _PAIR + 1 if kind == _PAIR else _BLOCK + 1
        self.value = match.group(first)
        self.word(self.value, self.at(text, match.start(first)))
        self.flush()
        operator = self.at(text, match.start(first + 1))
        self.findings.add(pf.NO_VALUE, operator, f"operator {match.group(first + 1)} has no key")
        if kind == _BLOCK:
            self.open(self.at(text, match.end() - 1))
            return
        at = next(group for group in (4, 5, 6) if match.group(group) is not None)
        line = self.at(text, match.start(at))
        if at == _PAIR + 3 and self.opened and text[match.start(at) - 1] == "\n":
            self.findings.add(pf.BRACE_SUSPECT, line, f"{match.group(at)[:60]} starts a line inside a block")
        self.key, self.key_line = match.group(at), line
        if self.opened:
            self.word(self.key, line)

    def at(self, text: str, start: int) -> int:
        """The line of the character at `start` (at or after the last one counted)."""
        self.line += text.count("\n", self.counted, start)
        self.counted = start
        return self.line

    def word(self, text: str, line: int) -> None:
        if self.collect and text not in self.words and _MENTION.fullmatch(text):
            self.words[text] = line

    def flush(self) -> None:
        """Complete what is pending before a token that cannot continue it."""
        if self.key is not None and self.op is not None and self.value is None:
            self.findings.add(pf.NO_VALUE, self.key_line, f"{self.key[:60]} {self.op} has no value")
        elif self.key is not None and len(self.opened) < self.keep:
            parent = self.opened[-1][1] if self.opened else -1
            value = "" if self.op is None else self.value
            held = (self.key, self.op or "", value, self.key_line, len(self.opened), parent, False)
            self.statements.append(_new(Statement, held))
        self.key = self.op = self.value = None

    def open(self, line: int) -> None:
        """A `{` with nothing pending (what was pending is complete)."""
        self.flush()
        if len(self.opened) == MAX_DEPTH and not self.deep_reported:
            self.deep_reported = True
            self.findings.add(
                pf.LIMIT, line, f"nesting deeper than {MAX_DEPTH} levels; its content is not kept"
            )
        self.opened.append((line, -1))

    def end(self) -> Script:
        """Complete what is pending; the script read."""
        self.flush()
        if self.opened:
            first = self.opened[0][0]
            self.findings.add(pf.NEVER_CLOSED, first, f"{len(self.opened)} block(s) never closed")
        return Script(tuple(self.statements), self.words, self.findings.done())

    def skimmed_words(self, text: str) -> None:
        """The words of every skimmed block as mentions, each at its first line in the file
        (domain.ck3.script_words); a word the statements kept met first on a later line takes this one."""
        words = self.words
        for word, line in script_words.first_lines(text, self.skimmed):
            if words.setdefault(word, line) > line:
                words[word] = line


def parse(text: str, *, keep: int = 1, words: bool = False) -> Script:
    """Parse script `text` (a leading byte-order mark is skipped). Never raises."""
    reader = _Reader(keep, words=words)
    if len(text) > MAX_CHARS:
        reader.findings.add(
            pf.LIMIT, 1, f"the file has more than {MAX_CHARS} characters; the rest is not read"
        )
        text = text[:MAX_CHARS]
    position = reader.run(text, 0)
    while position is not None:
        # a block whose content lies below the depth kept: skim it for its braces and words
        resumed = _skim(reader, text, position, reader.line, reader.budget)
        position = None if resumed is None else reader.run(text, resumed)
    if reader.collect:
        reader.skimmed_words(text)
    return reader.end()


def _skim(reader: _Reader, text: str, start: int, line: int, budget: list[int]) -> int | None:
    """Read the block opened just before `start` to its closing brace without keeping its statements:
    its braces (bounded), strings and comments; its words when asked. The position after its closing
    brace (its block closed), or None when the file ends first (the block stays open). A block that nests
    at most _SKIM_DEPTH levels, every string closed, is matched whole in one search, where no bound can be
    reached (a text no longer than the tokens allowed, the nesting far from the deepest); any other is read
    a brace at a time, which finds what is wrong in it."""
    closed = _closed_whole(reader, text, start)
    if closed is not None:
        _block_words(reader, text, start, closed - 1, line)
        reader.opened.pop()
        return closed
    return _skim_braces(reader, text, start, line, budget)


def _skim_braces(reader: _Reader, text: str, start: int, line: int, budget: list[int]) -> int | None:
    """`_skim`, a brace, string or comment at a time: what it finds wrong is said at its line."""
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


def _closed_whole(reader: _Reader, text: str, start: int) -> int | None:
    """The position after the `}` closing the block opened just before `start`, when one search finds it
    (None: the block is read a brace at a time)."""
    if len(text) > MAX_TOKENS or len(reader.opened) + _SKIM_DEPTH >= MAX_DEPTH:
        return None
    closed = _CLOSED.match(text, start)
    return None if closed is None else closed.end()


def _block_words(reader: _Reader, text: str, start: int, end: int, line: int) -> None:
    """A skimmed block: kept for its words (read with every other block's at the end of the parse), and
    a suspected missing brace for a key at column 0 inside it."""
    for suspect in _COLUMN_ZERO.finditer(text, start, end):
        at = line + text.count("\n", start, suspect.start() + 1)
        reader.findings.add(pf.BRACE_SUSPECT, at, f"{suspect.group(1)[:60]} starts a line inside a block")
    if reader.collect:
        reader.skimmed.append((start, end, line))
