"""What one CK3 file defines and mentions, by kind of file, from the one parser (domain.ck3.script and
domain.ck3.localisation). The content index stores it; close's semantic validator compares it before and
after a change.

- `common/<folder>/…/*.txt`: each top-level `key = { … }` is a definition of kind `<folder>` (the folders
  below `common/` joined by `/`, e.g. `traits`, `culture/traditions`); in `script_values` a top-level
  `key = 5` is one too. `@variables` are the file's own and define nothing.
- `events/**.txt`: `namespace = x` (kind `namespace`), each other top-level block an event id (kind
  `event`), and `scripted_trigger x = { … }` / `scripted_effect x = { … }` written there.
- `gui/**.gui`: `type x = widget { … }` inside `types … { }` (kind `gui_type`) and top-level
  `template x { … }` (kind `gui_template`).
- `localization/**.yml`: each entry (kind `localisation`), its language from the header, else the name.
Mentions: every word of a script or GUI file, with its first line, and for `prefix:key` the key too.
"""

from typing import Final

from attrs import frozen

from domain.ck3 import localisation, script
from domain.ck3 import parse_findings as pf
from domain.ck3.parse_findings import ParseFinding

TOPS: Final = frozenset({"common", "events", "gui", "localization"})
LOCALISATION: Final = "localisation"
EVENT: Final = "event"
NAMESPACE: Final = "namespace"
_EVENT_SCRIPTED: Final = frozenset({"scripted_trigger", "scripted_effect"})
_SCALAR_KINDS: Final = frozenset({"script_values"})
_KEEP: Final = {"gui": 2}
"""The levels of statements a kind of file is read to (else the top level): a GUI type lies one down."""
_COMMON_DEPTH: Final = 3
"""common/, a folder, a file: the game reads no file directly in common/."""


@frozen
class Definition:
    """One key a file defines: its kind, the key, its line, and (localisation) its language."""

    kind: str
    key: str
    line: int
    language: str = ""


@frozen
class FileContent:
    """What a file defines, mentions (word -> first line) and the parser's findings; `kind` is the kind of
    file (`script`, `events`, `gui`, `localisation`), `replace` whether it lies in `localization/replace/`."""

    kind: str
    definitions: tuple[Definition, ...]
    mentions: dict[str, int]
    findings: tuple[ParseFinding, ...]
    replace: bool = False


def game_path(parts: tuple[str, ...]) -> tuple[str, ...] | None:
    """The game-relative part of a root-relative path (from its first game folder on, case-folded), or
    None when no folder the index reads is on it."""
    folded = tuple(part.casefold() for part in parts)
    start = next((i for i, part in enumerate(folded[:-1]) if part in TOPS), None)
    return folded[start:] if start is not None else None


def file_kind(path: tuple[str, ...]) -> str | None:
    """The kind of a game-relative file the index reads, or None."""
    name = path[-1] if path else ""
    top = path[0] if len(path) > 1 else ""
    if top == "common" and name.endswith(".txt") and len(path) >= _COMMON_DEPTH:
        return "script"
    if top == "events" and name.endswith(".txt"):
        return "events"
    if top == "gui" and name.endswith(".gui"):
        return "gui"
    if top == "localization" and name.endswith(".yml"):
        return LOCALISATION
    return None


def read(path: tuple[str, ...], text: str) -> FileContent | None:
    """What the file at game-relative `path` defines and mentions (None: a kind the index does not read)."""
    kind = file_kind(path)
    if kind is None:
        return None
    if kind == LOCALISATION:
        parsed = localisation.parse(text)
        language = parsed.language or _language_of(path[-1])
        found = tuple(Definition(LOCALISATION, e.key, e.line, language) for e in parsed.entries)
        return FileContent(kind, found, {}, parsed.findings, replace="replace" in path[1:-1])
    tree = script.parse(text, keep=_KEEP.get(kind, 1), words=True)
    mentions = dict(tree.words)
    for word, line in tree.words.items():
        if ":" in word:
            mentions.setdefault(word.rsplit(":", 1)[1], line)
    found = _definitions(kind, path, tree)
    return FileContent(kind, found, mentions, tree.findings + _duplicates(found))


def defined(path: tuple[str, ...], text: str) -> tuple[Definition, ...]:
    """What the script or GUI file at game-relative `path` defines, as `read` finds it, without reading
    its words (its mentions): () for a file of another kind."""
    kind = file_kind(path)
    if kind is None or kind == LOCALISATION:
        return ()
    return _definitions(kind, path, script.parse(text, keep=_KEEP.get(kind, 1)))


def _duplicates(found: tuple[Definition, ...]) -> tuple[ParseFinding, ...]:
    """A finding for each key defined again in the same file (the later one is read)."""
    first: dict[tuple[str, str], int] = {}
    again: list[ParseFinding] = []
    for definition in found:
        seen = first.setdefault((definition.kind, definition.key), definition.line)
        if seen != definition.line and len(again) < pf.MAX_FINDINGS:
            detail = f"{definition.key[:60]} is defined again (first on line {seen})"
            again.append(ParseFinding(pf.DUPLICATE, definition.line, detail))
    return tuple(again)


def _definitions(kind: str, path: tuple[str, ...], tree: script.Script) -> tuple[Definition, ...]:
    found: list[Definition] = []
    previous: script.Statement | None = None
    for statement in tree.statements:
        bare = previous.key if previous is not None and previous.op == "" and previous.value == "" else ""
        if kind == "script":
            found += _in_common("/".join(path[1:-1]), statement)
        elif kind == "events":
            found += _in_events(statement, bare)
        else:
            found += _in_gui(statement, bare)
        previous = statement
    return tuple(found)


def _in_common(folder: str, statement: script.Statement) -> list[Definition]:
    """A top-level block (or, in `script_values`, a value) other than an `@variable`."""
    if statement.depth or statement.key.startswith("@"):
        return []
    if statement.is_block or (folder in _SCALAR_KINDS and statement.op == "="):
        return [Definition(folder, statement.key, statement.line)]
    return []


def _in_events(statement: script.Statement, bare: str) -> list[Definition]:
    """The namespace, an event id, or a `scripted_trigger x = { … }` (`bare`: the bare word before)."""
    if statement.depth or statement.key.startswith("@"):
        return []
    if statement.key == NAMESPACE and not statement.is_block and statement.value:
        return [Definition(NAMESPACE, statement.value, statement.line)]
    if statement.is_block:
        return [Definition(bare if bare in _EVENT_SCRIPTED else EVENT, statement.key, statement.line)]
    return []


def _in_gui(statement: script.Statement, bare: str) -> list[Definition]:
    """`type x = widget { … }` one level down (in `types … { }`) and `template x { … }` at the top."""
    if not statement.is_block:
        return []
    if statement.depth == 1 and bare == "type":
        return [Definition("gui_type", statement.key, statement.line)]
    if statement.depth == 0 and bare == "template":
        return [Definition("gui_template", statement.key, statement.line)]
    return []


def _language_of(name: str) -> str:
    """The language a localisation file's name gives (`…_l_english.yml`), or ""."""
    stem = name.removesuffix(".yml")
    return stem.rsplit("_l_", 1)[1] if "_l_" in stem else ""
