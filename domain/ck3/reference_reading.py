"""What one CK3 script file references and which localisation its definitions name, read through the one
parser (domain.ck3.script) as a tree of statements, by the reference table (domain.ck3.references).

A value is a key only when it is a plain word: `scope:x`, `flag:x`, `var:x`, `@x`, `$PARAM$`, numbers and
`yes`/`no` name no key of the table. From the first line the parser could not read on (a brace closing
nothing, a block never closed, a string not closed, a limit passed) nothing is taken: `unread_from` says
where that is.

Given the lines a change added or changed, only the top-level blocks that hold one are parsed, each on its
own (a block's references and localisation lie inside it): the file is first cut after each brace that
closes a top-level block, by a scan of its braces, strings and comments alone (the parser's own skim,
domain.ck3.script). A file whose braces do not balance, or with a string not closed, is parsed whole, so
that what the parser could not read is said as before.
"""

import re
from bisect import bisect_left
from collections.abc import Iterator
from typing import Final

from attrs import evolve, frozen

from domain.ck3 import parse_findings as pf
from domain.ck3 import references, script

_KEY: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]*")
_NUMBER: Final = re.compile(r"-?\d+(\.\d+)?")
_NOT_KEYS: Final = frozenset({"yes", "no", "none", "null", "always", "never", "root", "prev", "this", "from"})
"""Words that are no key: booleans, and the scope words a field may name instead of a key."""
_UNREAD: Final = frozenset({pf.NOT_CLOSED_BY_ANYTHING, pf.NEVER_CLOSED, pf.OPEN_STRING, pf.LIMIT})
_CALL_VALUES: Final = frozenset({"yes", "no"})
_ROWS: Final = references.rows_by_field()
_BRACES: Final = re.compile(r'"(?:[^"\\\n]|\\.)*"?|#[^\n]*|[{}]')
"""Braces, and the strings and comments they may lie in: what cuts a file into its top-level blocks."""
_PARAMETER: Final = re.compile(r"\$[A-Za-z_][A-Za-z0-9_]*\$")
_SCRIPTED: Final = frozenset({("common", "scripted_effects"), ("common", "scripted_triggers")})


@frozen
class Reference:
    """One key a field names: the field (`trigger_event.id` for a sub row), the key, the kinds that may
    define it, its line; `call` marks a name called with `= yes` (a scripted effect or trigger or the
    engine's own, told apart later)."""

    field: str
    key: str
    kinds: tuple[str, ...]
    line: int
    call: bool = False


@frozen
class Block:
    """A top-level definition's block: the key, its line, and the statements inside it as
    (path of keys from the definition, value, line), `path` like `("option", "name")`."""

    key: str
    line: int
    fields: tuple[tuple[tuple[str, ...], str | None, int], ...]


@frozen
class Reading:
    """A file's references, its top-level blocks, and the first line not read (None: all was)."""

    references: tuple[Reference, ...]
    blocks: tuple[Block, ...]
    unread_from: int | None


def is_key(value: str | None) -> bool:
    """Whether a value is a plain word that can name a key."""
    return (
        value is not None
        and value not in _NOT_KEYS
        and _KEY.fullmatch(value) is not None
        and _NUMBER.fullmatch(value) is None
    )


def read(path: tuple[str, ...], text: str, lines: set[int] | None = None, *, blocks: bool = True) -> Reading:
    """The references and blocks of the script file at game-relative `path` (case-folded); with `lines`,
    those of the top-level blocks holding one of these lines (from 1) only, when the file's braces
    balance (else of the whole file). Without `blocks`, no block is listed (only a localisation check
    reads them)."""
    pieces = list(_pieces(text)) if lines is not None and len(text) <= script.MAX_CHARS else []
    if lines is None or not pieces or pieces[-1] is None:
        # read whole, or the braces do not balance: the parser says from where it stops
        return _read(path, text, 1, blocks=blocks)
    ordered = sorted(lines)
    found: list[Reference] = []
    kept: list[Block] = []
    unread: int | None = None
    for start, end, first in filter(None, pieces):
        at = bisect_left(ordered, first)
        if at == len(ordered) or ordered[at] > first + text.count("\n", start, end):
            continue  # no changed line from its first line to its last
        reading = _read(path, text[start:end], first, blocks=blocks)
        found += reading.references
        kept += reading.blocks
        if reading.unread_from is not None and unread is None:
            unread = reading.unread_from
    return Reading(tuple(found), tuple(kept), unread)


def parameterised(path: tuple[str, ...], text: str) -> list[tuple[int, int]]:
    """The first and last lines of each scripted effect or trigger of the file at `path` that takes
    parameters (`$NAME$` in its block): the game reads such a body with its arguments put in at each call,
    never on its own (ck3-tiger, src/data/scripted_triggers.rs: "Can't check triggers that have macro
    parameters"), so what it names is only known wrong where it is called. Empty for other files, and for
    a file whose braces do not balance (it is parsed whole, and its note says where it stops)."""
    if path[:2] not in _SCRIPTED or "$" not in text or len(text) > script.MAX_CHARS:
        return []
    pieces = list(_pieces(text))
    if not pieces or pieces[-1] is None:
        return []
    return [
        (first, first + text.count("\n", start, end))
        for start, end, first in filter(None, pieces)
        if _PARAMETER.search(text, start, end)
    ]


def _pieces(text: str) -> Iterator[tuple[int, int, int] | None]:
    """The file cut after each brace that closes a top-level block: (start, end, first line) of each
    piece in order; a None last when the braces do not balance or a string is not closed (the whole
    file is scanned, so that a change that breaks it anywhere is read whole and the note says so)."""
    depth, start, line = 0, 0, 1
    for match in _BRACES.finditer(text):
        mark = match.group()
        if mark == "{":
            depth += 1
        elif mark == "}":
            depth -= 1
            if depth < 0:
                break
            if depth == 0:
                yield start, match.end(), line
                line += text.count("\n", start, match.end())
                start = match.end()
        elif mark[0] == '"' and (len(mark) == 1 or mark[-1] != '"'):
            break
    else:
        if depth == 0:
            yield start, len(text), line
            return
    yield None


def _read(path: tuple[str, ...], text: str, first: int, *, blocks: bool) -> Reading:
    """The references and blocks of `text`, the part of the file that begins on line `first`."""
    tree = script.parse(text, keep=script.MAX_DEPTH)
    unread = min((f.line for f in tree.findings if f.code in _UNREAD), default=None)
    folder = "/".join(path[:-1])
    statements = tree.statements
    found: list[Reference] = []
    for statement in statements:
        if unread is not None and statement.line >= unread:
            break
        if (
            statement.key in _ROWS
            or statement.value in _CALL_VALUES
            or (statement.parent >= 0 and statements[statement.parent].key in _ROWS)
        ):  # else it is no field of the table, in none of its blocks, and no call: most statements
            found += _references(statement, statements, folder)
    listed = _blocks(statements) if blocks else ()
    if first == 1:
        return Reading(tuple(found), listed, unread)
    shift = first - 1
    return Reading(
        tuple(evolve(ref, line=ref.line + shift) for ref in found),
        tuple(_moved(block, shift) for block in listed),
        None if unread is None else unread + shift,
    )


def _moved(block: Block, shift: int) -> Block:
    fields = tuple((path, value, line + shift) for path, value, line in block.fields)
    return Block(block.key, block.line + shift, fields)


def _references(
    statement: script.Statement, statements: tuple[script.Statement, ...], folder: str
) -> list[Reference]:
    parent = statements[statement.parent] if statement.parent >= 0 else None
    found = _named(statement, parent)
    if parent is not None:
        found += _listed(statement, parent, folder)
    if not found and _called(statement, parent):
        row = references.SCRIPTED_CALL
        found.append(Reference(row.field, statement.key, row.kinds, statement.line, call=True))
    return found


def _named(statement: script.Statement, parent: script.Statement | None) -> list[Reference]:
    """`field = key` and `field = { sub = key }`."""
    if statement.is_block or not statement.op or not is_key(statement.value):
        return []
    value = str(statement.value)
    found = [
        Reference(row.field, value, row.kinds, statement.line)
        for row in _ROWS.get(statement.key, ())
        if row.shape == references.VALUE
    ]
    if parent is not None:
        found += [
            Reference(f"{row.field}.{row.sub}", value, row.kinds, statement.line)
            for row in _ROWS.get(parent.key, ())
            if row.shape == references.SUB and row.sub == statement.key
        ]
    return found


def _called(statement: script.Statement, parent: script.Statement | None) -> bool:
    """`name = yes` (or `no`) inside a block of effects or triggers, `name` in no row of the table and not
    a parameter (`DUEL = yes`, all capitals, is one a scripted effect is given)."""
    return (
        parent is not None
        and parent.value is None
        and _holds_calls(parent.key.casefold())
        and not statement.key.isupper()
        and statement.op == "="
        and statement.value in _CALL_VALUES
        and statement.key not in _ROWS
        and statement.key not in references.ENGINE_NAMES
        and is_key(statement.key)
    )


def _holds_calls(block: str) -> bool:
    return block in references.CALL_BLOCKS or block.startswith(references.CALL_ITERATORS)


def _listed(statement: script.Statement, parent: script.Statement, folder: str) -> list[Reference]:
    """A key listed in a block (`events = { a.1 a.2 }`, or `100 = a.1` in `random_events`)."""
    if statement.is_block:
        return []
    if statement.op == "" and statement.value == "":
        key = statement.key
    elif statement.op == "=" and _NUMBER.fullmatch(statement.key):
        key = str(statement.value)
    else:
        return []
    return [
        Reference(row.field, key, row.kinds, statement.line)
        for row in _ROWS.get(parent.key, ())
        if row.shape == references.LIST and _within(folder, row.within) and is_key(key)
    ]


def _within(folder: str, within: str) -> bool:
    return not within or folder == within or folder.startswith(within + "/")


def _blocks(statements: tuple[script.Statement, ...]) -> tuple[Block, ...]:
    """Each top-level block with its statements' key paths."""
    opened: list[tuple[str, int, list[tuple[tuple[str, ...], str | None, int]]]] = []
    paths: dict[int, tuple[str, ...]] = {}
    for index, statement in enumerate(statements):
        if statement.depth == 0:
            paths = {}
            if statement.is_block and not statement.key.startswith("@"):
                paths = {index: ()}
                opened.append((statement.key, statement.line, []))
            continue
        base = paths.get(statement.parent)
        if base is None:
            continue
        path = (*base, statement.key)
        paths[index] = path
        opened[-1][2].append((path, None if statement.is_block else statement.value, statement.line))
    return tuple(Block(key, line, tuple(fields)) for key, line, fields in opened)
