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
import re
from collections.abc import Callable
from typing import Final

from attrs import frozen

_LOCALISATION_KEY = re.compile(r'^[ \t]*([A-Za-z0-9_.\-]+):\d*[ \t]+"', re.MULTILINE)
_SCRIPT_TOKEN = re.compile(r'\s*(?:(#[^\n]*)|("(?:[^"\\\n]|\\.)*")|([={}])|([^\s={}"#]+))')


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


def added(address: str, kind: str, before: str | None, after: str, *, known: bool = True) -> FileSymbols:
    """The symbols of `after` that `before` (None: the file is new) did not have, every one of them (a
    limit may page what a reply shows, never what is checked). When the content before is not `known`,
    every symbol counts as new, and the result says why."""
    analyse = ANALYSERS[kind]
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


def script_symbols(text: str) -> set[str]:
    """Top-level `key = {` definitions of a CK3 script file."""
    return {name for name, value in _top_level(text) if value == "{"}


def event_symbols(text: str) -> set[str]:
    """Event ids (top-level `id = {`) and namespaces (`namespace = x`, as `namespace:x`)."""
    found: set[str] = set()
    for name, value in _top_level(text):
        if name == "namespace" and value != "{":
            found.add(f"namespace:{value}")
        elif value == "{":
            found.add(name)
    return found


def localisation_symbols(text: str) -> set[str]:
    """The keys of a localisation file (the language header such as `l_english:` excluded)."""
    return set(_LOCALISATION_KEY.findall(text.removeprefix("\ufeff")))


def _top_level(text: str) -> list[tuple[str, str]]:
    """(key, first token of its value) for every `key = value` at brace depth 0. Raises Unparsable."""
    tokens = _script_tokens(text.removeprefix("\ufeff"))
    pairs: list[tuple[str, str]] = []
    depth = 0
    for at, item in enumerate(tokens):
        if item == "{":
            depth += 1
        elif item == "}":
            depth -= 1
            if depth < 0:
                raise Unparsable("a `}` closes nothing")
        elif depth == 0 and at + 1 < len(tokens) and tokens[at + 1] == "=" and item != "=":
            if at + 2 >= len(tokens):
                raise Unparsable(f"{item} has no value")
            pairs.append((item.strip('"'), tokens[at + 2].strip('"')))
    if depth != 0:
        raise Unparsable("a `{` is never closed")
    return pairs


def _script_tokens(text: str) -> list[str]:
    tokens: list[str] = []
    position = 0
    while position < len(text):
        match = _SCRIPT_TOKEN.match(text, position)
        if match is None or match.end() == position:
            if text[position:].strip():
                raise Unparsable("a string is not closed")
            break
        _, quoted, mark, word = match.groups()  # the first group is a comment
        if quoted or mark or word:
            tokens.append(quoted or mark or word)
        position = match.end()
    return tokens


ANALYSERS: Final[dict[str, Callable[[str], set[str]]]] = {
    "python": python_symbols,
    "ck3-script": script_symbols,
    "ck3-events": event_symbols,
    "ck3-localisation": localisation_symbols,
}
