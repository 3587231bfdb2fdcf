"""In-memory adapter for the Files port: a tree of dicts, for fast unit tests and for embedding.

It keeps the local adapter's promises exactly (the shared contract tests run against both): links are
reported and never followed, special files are reported as such, entries come sorted.
"""

import hashlib
from collections.abc import Callable, Iterator, Mapping
from typing import Final

from attrs import frozen

from ports.errors import AlreadyExists, LinkRefused, NotADirectory, NotFound, PortError, SpecialFile, TooLarge
from ports.files import SURVEY_DEPTH, Entry, Files, Kind, Location, Stat


@frozen
class Link:
    """A symbolic link; its target is only ever reported as 'a link', never followed."""

    target: str


@frozen
class Special:
    """A FIFO, device or socket."""


Node = "dict[str, Node] | bytes | Link | Special"
SPECIAL: Final = Special()


class MemoryFiles(Files):
    """Roots held in memory: each root is a nested dict of names to bytes, dicts, Links or SPECIAL."""

    def __init__(self, roots: Mapping[str, dict[str, object]]) -> None:
        self._roots = dict(roots)

    def roots(self) -> frozenset[str]:
        return frozenset(self._roots)

    def kind(self, location: Location) -> Kind:
        if not location.parts:
            self._folder(location)
            return "dir"
        parent = self._folder(Location(location.root, location.parts[:-1]))
        if location.parts[-1] not in parent:
            raise NotFound("no such entry")
        return _kind_of(parent[location.parts[-1]])

    def list_dir(self, location: Location, named: Callable[[str], bool] | None = None) -> list[Entry]:
        folder = self._folder(location)
        return [
            Entry(name, _kind_of(node), _size(node))
            for name, node in sorted(folder.items())
            if named is None or named(name)
        ]

    def read(self, location: Location, limit: int) -> bytes:
        parent = self._parent_of_file(location)
        node = parent[location.parts[-1]]
        assert isinstance(node, bytes)  # noqa: S101 - _parent_of_file checked it
        if len(node) > limit:
            raise TooLarge("the file is larger than the limit")
        return node

    def write(self, location: Location, data: bytes, *, exclusive: bool = False) -> None:
        if not location.parts:
            raise SpecialFile("a root is not a file")
        folder = self._folder(Location(location.root, ()))
        for name in location.parts[:-1]:
            node = folder.setdefault(name, {})
            if isinstance(node, Link):
                raise LinkRefused("a symbolic link stands on the way")
            if not isinstance(node, dict):
                raise NotADirectory("not a folder")
            folder = node
        existing = folder.get(location.parts[-1])
        if exclusive and location.parts[-1] in folder:
            raise AlreadyExists("something stands there")
        if isinstance(existing, Link):
            raise LinkRefused("the target is a symbolic link")
        if existing is not None and not isinstance(existing, bytes):
            raise SpecialFile("not a regular file")
        folder[location.parts[-1]] = bytes(data)

    def delete(self, location: Location) -> None:
        del self._parent_of_file(location)[location.parts[-1]]

    def _parent_of_file(self, location: Location) -> dict[str, object]:
        """The folder holding the regular file at `location` (port errors for anything else)."""
        if not location.parts:
            raise SpecialFile("a root is not a file")
        parent = self._folder(Location(location.root, location.parts[:-1]))
        node = parent.get(location.parts[-1])
        if node is None:
            raise NotFound("no such file")
        if isinstance(node, Link):
            raise LinkRefused("the target is a symbolic link")
        if not isinstance(node, bytes):
            raise SpecialFile("not a regular file")
        return parent

    def read_many(self, folder: Location, names: list[str], limit: int) -> list[bytes | PortError]:
        self._folder(folder)
        found: list[bytes | PortError] = []
        for name in names:
            try:
                found.append(self.read(folder.child(name), limit))
            except PortError as exc:
                found.append(exc)
        return found

    def walk(
        self, location: Location, depth: int, keep: Callable[[tuple[str, ...], Kind], bool]
    ) -> Iterator[tuple[tuple[str, ...], Kind]]:
        yield from _walk_all(self._folder(location), (), depth, keep)

    def walk_dirs(
        self, location: Location, depth: int, keep: Callable[[tuple[str, ...]], bool]
    ) -> Iterator[tuple[str, ...]]:
        yield from _walk(self._folder(location), (), depth, keep)

    def survey(
        self, location: Location, keep: Callable[[tuple[str, ...], Kind], bool]
    ) -> Iterator[tuple[tuple[str, ...], Stat]]:
        for parts, kind in _walk_all(self._folder(location), (), SURVEY_DEPTH + 1, keep):
            if kind == "dir" and len(parts) >= SURVEY_DEPTH:
                raise TooLarge("folders nest deeper than a survey goes")
            node = self._node(Location(location.root, location.parts + parts))
            if isinstance(node, bytes):  # no times here: the content's digest says whether it changed
                yield parts, Stat(kind, len(node), digest=hashlib.sha256(node).hexdigest())
            else:
                yield parts, Stat(kind, link=node.target if isinstance(node, Link) else None)

    def _node(self, location: Location) -> object:
        return self._folder(Location(location.root, location.parts[:-1]))[location.parts[-1]]

    def _folder(self, location: Location) -> dict[str, object]:
        if location.root not in self._roots:
            raise NotFound("no such root")
        node: object = self._roots[location.root]
        for name in location.parts:
            if not isinstance(node, dict):
                raise NotADirectory("not a folder")
            if name not in node:
                raise NotFound("no such folder")
            node = node[name]
            if isinstance(node, Link):
                raise LinkRefused("a symbolic link stands on the way")
        if not isinstance(node, dict):
            raise NotADirectory("not a folder")
        return node


def _kind_of(node: object) -> Kind:
    if isinstance(node, dict):
        return "dir"
    if isinstance(node, bytes):
        return "file"
    if isinstance(node, Link):
        return "symlink"
    return "special"


def _size(node: object) -> int:
    return len(node) if isinstance(node, bytes) else 0


def _walk(
    folder: dict[str, object], here: tuple[str, ...], depth: int, keep: Callable[[tuple[str, ...]], bool]
) -> Iterator[tuple[str, ...]]:
    if depth <= 0:
        return
    for name in sorted(folder):
        child = folder[name]
        parts = (*here, name)
        if isinstance(child, dict) and keep(parts):
            yield parts
            yield from _walk(child, parts, depth - 1, keep)


def _walk_all(
    folder: dict[str, object],
    here: tuple[str, ...],
    depth: int,
    keep: Callable[[tuple[str, ...], Kind], bool],
) -> Iterator[tuple[tuple[str, ...], Kind]]:
    if depth <= 0:
        return
    for name in sorted(folder):
        child = folder[name]
        parts, kind = (*here, name), _kind_of(child)
        if not keep(parts, kind):
            continue
        yield parts, kind
        if isinstance(child, dict):
            yield from _walk_all(child, parts, depth - 1, keep)
