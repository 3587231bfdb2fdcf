"""Mod descriptors: `descriptor.mod` in a mod's folder, and the registry file `<name>.mod` beside the mod
folders in the documents' `mod/` folder, both in the game's `key = value` / `key = { … }` format.

Parsing is strict enough to refuse what the launcher would misread (an unterminated string, unbalanced
braces, a key without a value), and reports each problem with its line. A descriptor needs a `name` and
a `supported_version`; a registry file a `name` and a `path`.
"""

import re
from typing import Final

from attrs import frozen

from domain.vocabulary import RootCategory
from domain.world.adapter import WorldAdapter
from ports.errors import PortError

LISTS: Final = frozenset({"tags", "replace_path", "dependencies"})
"""Keys that may hold several values (a `{ … }` list, or the key repeated)."""
SCALARS: Final = ("name", "version", "supported_version", "path", "remote_file_id", "picture")
_TOKEN = re.compile(r'\s*(?:(#[^\n]*)|("(?:[^"\\\n]|\\.)*")|(")|([={}])|([^\s={}"#]+))')


@frozen
class Descriptor:
    """What a descriptor says; `problems` lists (line, problem) for anything it could not read."""

    fields: dict[str, str]
    lists: dict[str, tuple[str, ...]]
    problems: tuple[tuple[int, str], ...]

    def summary(self) -> dict[str, object]:
        """The fields a reply reports (the registry's `path` only as the caller maps it)."""
        known = {key: self.fields.get(key) for key in SCALARS if key != "path"}
        return {**known, **{key: list(self.lists.get(key, ())) for key in sorted(LISTS)}}


def parse(text: str) -> Descriptor:
    """The descriptor in `text` (a byte-order mark is allowed)."""
    tokens, problems = _tokens(text.removeprefix("\ufeff"))
    fields: dict[str, str] = {}
    lists: dict[str, list[str]] = {}
    at = 0
    while at < len(tokens):
        line, key = tokens[at]
        if key in "={}" or at + 2 > len(tokens) or tokens[at + 1][1] != "=":
            problems.append((line, f"expected `key = value`, found {key!r}"))
            at += 1
            continue
        at += 2
        if at < len(tokens) and tokens[at][1] == "{":
            values, at = _list(tokens, at + 1, problems)
            lists.setdefault(key, []).extend(values)
        elif at < len(tokens) and tokens[at][1] not in "={}":
            value = _unquoted(tokens[at][1])
            if key in LISTS:
                lists.setdefault(key, []).append(value)
            else:
                fields.setdefault(key, value)
            at += 1
        else:
            problems.append((line, f"{key} has no value"))
    return Descriptor(fields, {k: tuple(v) for k, v in lists.items()}, tuple(problems))


def read(world: WorldAdapter, home: RootCategory, address: str) -> Descriptor | None:
    """The descriptor file at `address`, read through the world (None: not there, not visible, not text)."""
    ref = world.ref_or_none(address, home)
    if ref is None or ref.kind != "file":
        return None
    try:
        return parse(world.read_file(ref, 256 * 1024).decode("utf-8"))
    except (PortError, UnicodeDecodeError):
        return None


def registry_of(folder: str) -> str | None:
    """The registry file beside a mod folder given in root form: `ROOT_USER_DOCS:/mod/<name>.mod` for a
    local mod, `ROOT_USER_DOCS:/mod/ugc_<id>.mod` for a workshop one."""
    root, _, path = folder.partition(":/")
    if root == RootCategory.ROOT_STEAM.value and path:
        return f"{RootCategory.ROOT_USER_DOCS.value}:/mod/ugc_{path}.mod"
    if root == RootCategory.ROOT_USER_DOCS.value and path.startswith("mod/"):
        return f"{folder}.mod"
    return None


def missing(descriptor: Descriptor, *, registry: bool) -> list[str]:
    """The required fields a descriptor lacks (a registry file needs `path` where a descriptor needs
    `supported_version`)."""
    required = ("name", "path") if registry else ("name", "supported_version")
    return [key for key in required if not descriptor.fields.get(key)]


def _tokens(text: str) -> tuple[list[tuple[int, str]], list[tuple[int, str]]]:
    tokens: list[tuple[int, str]] = []
    problems: list[tuple[int, str]] = []
    position, line, counted = 0, 1, 0
    while position < len(text):
        match = _TOKEN.match(text, position)
        if match is None or match.end() == position:
            break
        start = match.start(match.lastindex or 0)
        line += text.count("\n", counted, start)  # counted once per character: linear in the text
        counted = start
        _, quoted, stray, mark, word = match.groups()  # the first group is a comment
        if stray:
            problems.append((line, "a string is not closed on its line"))
            break
        if quoted or mark or word:
            tokens.append((line, quoted or mark or word))
        position = match.end()
    return tokens, problems


def _list(tokens: list[tuple[int, str]], at: int, problems: list[tuple[int, str]]) -> tuple[list[str], int]:
    values: list[str] = []
    start = tokens[at - 1][0]
    while at < len(tokens) and tokens[at][1] != "}":
        if tokens[at][1] in "={":
            problems.append((tokens[at][0], f"unexpected {tokens[at][1]!r} in a list"))
        else:
            values.append(_unquoted(tokens[at][1]))
        at += 1
    if at >= len(tokens):
        problems.append((start, "a `{` is never closed"))
        return values, at
    return values, at + 1


def _unquoted(token: str) -> str:
    return token[1:-1].replace('\\"', '"') if token.startswith('"') else token
