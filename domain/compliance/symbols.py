"""The semantic validator: which symbols a change adds to a file, per file kind, against the baseline.

One analyser per kind, chosen by the file's path:
- Python (`*.py`): module-level functions, classes and assigned names (`ast`);
- CK3 script (`*.txt` below a `common/` folder): top-level `key = {` definitions (scripted effects and
  triggers are such keys in their own folders);
- CK3 events (`*.txt` below `events/`): `namespace = x` (as `namespace:x`) and top-level event ids;
- CK3 localisation (`*.yml` below `localization/`): the `key:0 "…"` entries.
A symbol is new when the file has it now and had it not at the baseline. A file an analyser cannot read
is reported as unparsable, never raised.
"""

import ast
from collections.abc import Callable
from typing import Final

from attrs import frozen

from domain.ck3 import definitions
from domain.ck3 import parse_findings as pf

_SCRIPT_PATH: Final = ("common", "scripted_effects", "file.txt")
_EVENTS_PATH: Final = ("events", "file.txt")
_LOCALISATION_PATH: Final = ("localization", "file.yml")
_STRUCTURAL: Final = frozenset({pf.NOT_CLOSED_BY_ANYTHING, pf.NEVER_CLOSED, pf.OPEN_STRING, pf.LIMIT})
"""Findings after which the top level cannot be trusted: the file counts as unparsable."""


class Unparsable(ValueError):
    """The analyser cannot read the file; the message says where."""


@frozen
class FileSymbols:
    """What the validator found in one changed file."""

    address: str
    kind: str
    added: tuple[str, ...]
    problem: str | None = None


def kind_of(parts: tuple[str, ...]) -> str | None:
    """The analyser for a root-relative path, or None when no analyser reads that kind of file."""
    name = parts[-1].casefold() if parts else ""
    folders = {part.casefold() for part in parts[:-1]}
    if name.endswith(".py"):
        return "python"
    if name.endswith(".txt") and "events" in folders:
        return "ck3-events"
    if name.endswith(".txt") and "common" in folders:
        return "ck3-script"
    if name.endswith(".yml") and folders & {"localization", "localisation"}:
        return "ck3-localisation"
    return None


def added(  # noqa: PLR0913 - the file, its two contents, and what is known of them
    address: str,
    kind: str,
    before: str | None,
    after: str,
    *,
    known: bool = True,
    parts: tuple[str, ...] = (),
) -> FileSymbols:
    """The symbols of `after` that `before` (None: the file is new) did not have, every one of them (a
    limit may page what a reply shows, never what is checked). When the content before is not `known`,
    every symbol counts as new, and the result says why. `parts`, the file's root-relative path, tells a
    CK3 file's folder (the kind of its definitions)."""

    def analyse(text: str) -> set[str]:
        return symbols_of(kind, text, parts)

    try:
        now = analyse(after)
    except Unparsable as exc:
        return FileSymbols(address, kind, (), f"unparsable: {exc}")
    try:
        then = analyse(before) if before is not None else set()
    except Unparsable:  # the baseline did not parse: every symbol now counts as new
        then = set()
    problem = None if known else "its content before the work is unknown, so every symbol counts as new"
    return FileSymbols(address, kind, tuple(sorted(now - then)), problem)


def python_symbols(text: str) -> set[str]:
    """Module-level names: functions, classes and assigned names, also inside top-level `if`, `try`,
    `with` and loop blocks, and every name of a tuple or list target."""
    try:
        module = ast.parse(text.removeprefix("\ufeff"))
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        raise Unparsable(
            f"line {getattr(exc, 'lineno', '?')}: {getattr(exc, 'msg', type(exc).__name__)}"
        ) from exc
    found: set[str] = set()
    pending = list(module.body)
    while pending:
        node = pending.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            found.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            found |= {
                name.id for target in targets for name in ast.walk(target) if isinstance(name, ast.Name)
            }
        elif isinstance(node, ast.If | ast.Try | ast.With | ast.For | ast.While):
            pending += [*node.body, *getattr(node, "orelse", []), *getattr(node, "finalbody", [])]
            pending += [stmt for handler in getattr(node, "handlers", []) for stmt in handler.body]
    return found


def script_symbols(text: str, path: tuple[str, ...] = _SCRIPT_PATH) -> set[str]:
    """Top-level `key = {` definitions of a CK3 script file (and, in `script_values`, `key = value`).
    Raises Unparsable where the parser met a brace or string it could not match."""
    return {found.key for found in _definitions(path, text)}


def event_symbols(text: str, path: tuple[str, ...] = _EVENTS_PATH) -> set[str]:
    """Event ids (top-level `id = {`) and namespaces (`namespace = x`, as `namespace:x`)."""
    return {
        f"namespace:{found.key}" if found.kind == definitions.NAMESPACE else found.key
        for found in _definitions(path, text)
    }


def localisation_symbols(text: str, path: tuple[str, ...] = _LOCALISATION_PATH) -> set[str]:
    """The keys of a localisation file (the language header such as `l_english:` excluded)."""
    content = definitions.read(path, text)
    return {found.key for found in content.definitions} if content else set()


def _definitions(path: tuple[str, ...], text: str) -> tuple[definitions.Definition, ...]:
    """The definitions the one parser finds in a script file; Unparsable on a structural finding."""
    content = definitions.read(path, text)
    if content is None:
        return ()
    broken = [found for found in content.findings if found.code in _STRUCTURAL]
    if broken:
        raise Unparsable(f"line {broken[0].line}: {broken[0].meaning.split(';')[0].lower()}")
    return content.definitions


def symbols_of(kind: str, text: str, parts: tuple[str, ...] = ()) -> set[str]:
    """The symbols of `text` by the analyser of `kind`, with the file's root-relative `parts` when known.
    Raises Unparsable."""
    path = definitions.game_path(parts) if parts else None
    if kind == "ck3-script" and path is not None and definitions.file_kind(path) == "script":
        return script_symbols(text, path)
    return ANALYSERS[kind](text)


ANALYSERS: Final[dict[str, Callable[[str], set[str]]]] = {
    "python": python_symbols,
    "ck3-script": script_symbols,
    "ck3-events": event_symbols,
    "ck3-localisation": localisation_symbols,
}
