"""In-memory adapter for the Files port: a tree of dicts, for fast unit tests and for embedding.

It keeps the local adapter's promises exactly (the shared contract tests run against both): links are
reported and never followed, special files are reported as such, entries come sorted. It can also stand in
for a filesystem that ignores case, as the local adapter behaves on one.
"""

import hashlib
import unicodedata
from collections.abc import Callable, Generator, Iterator, Mapping
from typing import Final

from attrs import frozen

from ports.errors import (
    AlreadyExists,
    LinkRefused,
    Misspelled,
    NotADirectory,
    NotFound,
    PortError,
    SpecialFile,
    TooLarge,
)
from ports.files import (
    SURVEY_DEPTH,
    Entry,
    Files,
    FolderSift,
    Kind,
    Location,
    Part,
    Sift,
    Stat,
    SurveyRow,
    WholeFolder,
    below,
)


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
    """Roots held in memory: each root is a nested dict of names to bytes, dicts, Links or SPECIAL.

    With `ignores_case`, every root behaves as a filesystem that ignores case: a name finds the entry whose
    name equals it without regard to case or composition, an entry keeps the spelling it was made with,
    and `kind`, `write` and `delete` raise Misspelled for a location spelled otherwise than its entries
    are."""

    def __init__(self, roots: Mapping[str, dict[str, object]], *, ignores_case: bool = False) -> None:
        self._roots = dict(roots)
        self._folds = ignores_case

    def roots(self) -> frozenset[str]:
        return frozenset(self._roots)

    def ignores_case(self, root: str) -> bool:
        return self._folds and root in self._roots

    def kind(self, location: Location) -> Kind:
        if not location.parts:
            self._folder(location)
            return "dir"
        self._check_spelling(location)
        parent = self._folder(Location(location.root, location.parts[:-1]))
        name = self._name_in(parent, location.parts[-1])
        if name is None:
            raise NotFound("no such entry")
        return _kind_of(parent[name])

    def list_dir(self, location: Location, named: Callable[[str], bool] | None = None) -> list[Entry]:
        folder = self._folder(location)
        return [
            Entry(name, _kind_of(node), _size(node))
            for name, node in sorted(folder.items())
            if named is None or named(name)
        ]

    def read(self, location: Location, limit: int) -> bytes:
        parent = self._parent_of_file(location)
        node = parent[self._name_in(parent, location.parts[-1]) or location.parts[-1]]
        assert isinstance(node, bytes)  # noqa: S101 - _parent_of_file checked it
        if len(node) > limit:
            raise TooLarge("the file is larger than the limit")
        return node

    def read_part(self, location: Location, offset: int, size: int) -> Part:
        parent = self._parent_of_file(location)
        node = parent[self._name_in(parent, location.parts[-1]) or location.parts[-1]]
        assert isinstance(node, bytes)  # noqa: S101 - _parent_of_file checked it
        return Part(node[offset : offset + max(size, 0)], len(node), 0)

    def write(self, location: Location, data: bytes, *, exclusive: bool = False) -> None:
        if not location.parts:
            raise SpecialFile("a root is not a file")
        self._check_spelling(location)
        folder = self._folder(Location(location.root, ()))
        for name in location.parts[:-1]:
            node = folder.setdefault(self._name_in(folder, name) or name, {})
            if isinstance(node, Link):
                raise LinkRefused("a symbolic link stands on the way")
            if not isinstance(node, dict):
                raise NotADirectory("not a folder")
            folder = node
        name = self._name_in(folder, location.parts[-1]) or location.parts[-1]
        existing = folder.get(name)
        if exclusive and name in folder:
            raise AlreadyExists("something stands there")
        if isinstance(existing, Link):
            raise LinkRefused("the target is a symbolic link")
        if existing is not None and not isinstance(existing, bytes):
            raise SpecialFile("not a regular file")
        folder[name] = bytes(data)

    def delete(self, location: Location) -> None:
        self._check_spelling(location)
        parent = self._parent_of_file(location)
        del parent[self._name_in(parent, location.parts[-1]) or location.parts[-1]]

    def _name_in(self, folder: dict[str, object], name: str) -> str | None:
        """The name under which `folder` holds the entry that `name` finds, None when it holds none."""
        if name in folder:
            return name
        if not self._folds:
            return None
        wanted = _folded(name)
        return next((held for held in sorted(folder) if _folded(held) == wanted), None)

    def _check_spelling(self, location: Location) -> None:
        """Raise Misspelled when an entry on the way to `location`, or at it, is spelled otherwise."""
        if not self._folds or location.root not in self._roots:
            return
        node: object = self._roots[location.root]
        spelled: list[str] = []
        for name in location.parts:
            held = self._name_in(node, name) if isinstance(node, dict) else None
            if held is None or not isinstance(node, dict):
                break
            spelled.append(held)
            node = node[held]
        if tuple(spelled) != location.parts[: len(spelled)]:
            raise Misspelled((*spelled, *location.parts[len(spelled) :]))

    def _parent_of_file(self, location: Location) -> dict[str, object]:
        """The folder holding the regular file at `location` (port errors for anything else)."""
        if not location.parts:
            raise SpecialFile("a root is not a file")
        parent = self._folder(Location(location.root, location.parts[:-1]))
        name = self._name_in(parent, location.parts[-1])
        node = parent.get(name) if name is not None else None
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
        self,
        location: Location,
        depth: int,
        keep: Callable[[tuple[str, ...], Kind], bool],
        sift: Sift | None = None,
    ) -> Iterator[tuple[tuple[str, ...], Kind]]:
        yield from _walk_all(self._folder(location), (), depth, keep, sift)

    def walk_dirs(
        self,
        location: Location,
        depth: int,
        keep: Callable[[str], bool] | None,
        sift: FolderSift | None = None,
        above: str = "",
    ) -> Generator[str, None, None]:
        yield from _walk(self._folder(location), above, depth, below(keep, len(above)), sift)

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

    def survey_table(
        self,
        location: Location,
        keep: Callable[[tuple[str, ...], Kind], bool],
        above: str = "",
        whole: WholeFolder | None = None,  # noqa: ARG002 - a shortcut this port's few entries do without
    ) -> dict[str, SurveyRow]:
        rows: dict[str, SurveyRow] = {}
        for parts, found in self.survey(location, keep):
            path = above + "/".join(parts)
            if found.kind == "dir":
                rows[path] = ("dir", 0, 0, 0, 0, None, None)
            else:
                rows[path] = (
                    found.kind,
                    found.size,
                    found.mtime_ns,
                    found.ctime_ns,
                    found.inode,
                    found.link,
                    found.digest,
                )
        return rows

    def _node(self, location: Location) -> object:
        folder = self._folder(Location(location.root, location.parts[:-1]))
        return folder[self._name_in(folder, location.parts[-1]) or location.parts[-1]]

    def _folder(self, location: Location) -> dict[str, object]:
        if location.root not in self._roots:
            raise NotFound("no such root")
        node: object = self._roots[location.root]
        for name in location.parts:
            if not isinstance(node, dict):
                raise NotADirectory("not a folder")
            held = self._name_in(node, name)
            if held is None:
                raise NotFound("no such folder")
            node = node[held]
            if isinstance(node, Link):
                raise LinkRefused("a symbolic link stands on the way")
        if not isinstance(node, dict):
            raise NotADirectory("not a folder")
        return node


def _folded(name: str) -> str:
    """What a filesystem that ignores case compares (APFS also ignores composition)."""
    return unicodedata.normalize("NFC", name).casefold()


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
    folder: dict[str, object],
    here: str,
    depth: int,
    keep: Callable[[str], bool] | None,
    sift: FolderSift | None = None,
) -> Iterator[str]:
    if depth <= 0:
        return
    folders = {name: child for name, child in sorted(folder.items()) if isinstance(child, dict)}
    for name in list(folders) if sift is None or not folders else sift(list(folders)):
        path = here + name
        if keep is None or keep(path):
            yield path
            yield from _walk(folders[name], path + "/", depth - 1, keep, sift)


def _walk_all(
    folder: dict[str, object],
    here: tuple[str, ...],
    depth: int,
    keep: Callable[[tuple[str, ...], Kind], bool],
    sift: Sift | None = None,
) -> Iterator[tuple[tuple[str, ...], Kind]]:
    if depth <= 0:
        return
    entries = [(name, _kind_of(folder[name])) for name in sorted(folder)]
    for name, kind in entries if sift is None else sift(entries):
        parts, child = (*here, name), folder[name]
        if not keep(parts, kind):
            continue
        yield parts, kind
        if isinstance(child, dict):
            yield from _walk_all(child, parts, depth - 1, keep, sift)
