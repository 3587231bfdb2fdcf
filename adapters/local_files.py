"""Local filesystem adapter for the Files port: descriptor-based, never follows a symbolic link.

Each root is opened once at start and pinned by its (device, inode); every call re-checks that the
configured folder is still that directory, then opens the folder it needs from the pinned descriptor so
that a link planted or swapped anywhere on the way is refused rather than followed: in one openat2 call
that crosses no link and leaves no root where the kernel has it (adapters.openat2), else one segment at a
time with O_NOFOLLOW. When openat2 refuses for any reason but a missing folder, the segment walk answers,
so a link, a file on the way or a failure is reported exactly as the walk reports it. On a root whose
filesystem ignores case (probed when it is pinned, adapters.local_spelling), `kind`, `write` and `delete`
also hold each existing segment to the spelling its folder lists. Host paths live only inside this module
and its helpers (local_segments, local_walks, local_writes, local_spelling, local_survey, local_tables,
openat2).
"""

import os
import stat
import threading
import time
from collections.abc import Callable, Collection, Generator, Iterator, Mapping
from contextlib import suppress
from pathlib import Path
from typing import Final

from adapters import local_segments, local_spelling, local_survey, local_tables, openat2, survey_marks
from adapters.local_walks import DIR_FLAGS, entries_of, kind_of, walk, walk_all
from adapters.local_writes import replace_atomically, sweep
from ports.errors import (
    LinkRefused,
    Misspelled,
    NotFound,
    PortError,
    SpecialFile,
    Unavailable,
)
from ports.files import (
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

KEPT_SURVEYS: Final = 16
"""The folders whose last survey's listings are kept (each contract scope and index folder is one)."""


class _PinnedRoot:
    __slots__ = ("fd", "identity", "ignores_case", "path")

    def __init__(self, configured: Path) -> None:
        try:
            self.path = configured.resolve(strict=True)  # a root given through a link is pinned to its target
            self.fd = os.open(self.path, DIR_FLAGS)
        except OSError as exc:
            raise Unavailable("a configured root cannot be opened") from exc
        info = os.fstat(self.fd)
        self.identity = (info.st_dev, info.st_ino)
        self.ignores_case = local_spelling.ignores_case(self.fd, self.path)


class _Open:
    """A folder's descriptor for the length of a `with` block, closed after it unless it is lent (a root's
    own descriptor, which stays open)."""

    __slots__ = ("fd", "lent")

    def __init__(self, fd: int, *, lent: bool = False) -> None:
        self.fd, self.lent = fd, lent

    def __enter__(self) -> int:
        return self.fd

    def __exit__(self, *_: object) -> None:
        if not self.lent:
            os.close(self.fd)


class LocalFiles(Files):
    """The roots on the local disk, pinned at construction. `use_openat2=False` keeps to the segment walk
    even where the kernel has openat2. `marked=True` keeps each survey's listings, and lists again at the
    next survey of the same folder only the folders whose inotify mark saw a change (adapters.local_tables;
    Linux, local file systems; elsewhere every survey lists every folder)."""

    def __init__(self, roots: Mapping[str, Path], *, use_openat2: bool = True, marked: bool = False) -> None:
        self._roots = {}
        for name, path in roots.items():
            try:
                self._roots[name] = _PinnedRoot(Path(path))
            except Unavailable as exc:  # the operator is told which root (this never reaches an agent)
                raise Unavailable(f"{name} cannot be opened ({exc.__cause__ or exc})") from exc
        self._names = frozenset(self._roots)
        self._beneath = openat2.opener() if use_openat2 else None
        self._marks = survey_marks.shared() if marked else None
        self._kept: dict[tuple[str, tuple[str, ...]], local_tables.Kept] = {}
        self._kept_lock = threading.Lock()

    @property
    def uses_openat2(self) -> bool:
        """Whether folders are opened with openat2 (else segment by segment)."""
        return self._beneath is not None

    def close(self) -> None:
        for root in self._roots.values():
            os.close(root.fd)
        with self._kept_lock:
            kept, self._kept = list(self._kept.values()), {}
        for old in kept:
            self._forget(old)

    def roots(self) -> frozenset[str]:
        return self._names

    def ignores_case(self, root: str) -> bool:
        pinned = self._roots.get(root)
        return pinned is not None and pinned.ignores_case

    def kind(self, location: Location) -> Kind:
        if not location.parts:
            self._root(location.root)
            return "dir"
        if self.ignores_case(location.root):
            found = _spelled_kind(self._root(location.root).fd, location.parts)
            if found is None:
                raise NotFound("no such entry")
            return found
        with self._parent(location) as parent:
            return kind_of(local_segments.lstat(location.parts[-1], parent))

    def list_dir(self, location: Location, named: Callable[[str], bool] | None = None) -> list[Entry]:
        with self._dir(location) as fd:
            try:
                with os.scandir(fd) as it:
                    return entries_of(it if named is None else (item for item in it if named(item.name)))
            except OSError as exc:
                raise Unavailable("a folder cannot be listed") from exc

    def read(self, location: Location, limit: int) -> bytes:
        if not location.parts:
            raise SpecialFile("a root is not a file")
        with self._parent(location) as parent:
            return local_segments.read_in(parent, location.parts[-1], limit)

    def read_part(self, location: Location, offset: int, size: int) -> Part:
        if not location.parts:
            raise SpecialFile("a root is not a file")
        with self._parent(location) as parent:
            fd = local_segments.open_file(location.parts[-1], parent)
            try:
                info = os.fstat(fd)
                if not stat.S_ISREG(info.st_mode) or info.st_nlink != 1:
                    raise SpecialFile("not a regular file with a single link")
                data = os.pread(fd, size, offset) if size > 0 and offset < info.st_size else b""
            except OSError as exc:
                raise Unavailable("a file cannot be read") from exc
            finally:
                os.close(fd)
        return Part(data, info.st_size, info.st_mtime_ns)

    def read_many(self, folder: Location, names: list[str], limit: int) -> list[bytes | PortError]:
        found: list[bytes | PortError] = []
        with self._dir(folder) as parent:
            for name in names:
                try:
                    found.append(local_segments.read_in(parent, name, limit))
                except PortError as exc:
                    found.append(exc)
        return found

    def write(self, location: Location, data: bytes, *, exclusive: bool = False) -> None:
        if not location.parts:
            raise SpecialFile("a root is not a file")
        if self.ignores_case(location.root):
            _spelled_kind(self._root(location.root).fd, location.parts)
        with self._dir(Location(location.root, location.parts[:-1]), create=True) as parent:
            name = location.parts[-1]
            mode = local_segments.replaceable_mode(name, parent)
            replace_atomically(parent, name, data, mode, exclusive=exclusive)

    def delete(self, location: Location) -> None:
        if not location.parts:
            raise SpecialFile("a root is not a file")
        if self.ignores_case(location.root):
            _spelled_kind(self._root(location.root).fd, location.parts)
        with self._parent(location) as parent:
            name = location.parts[-1]
            kind = kind_of(local_segments.lstat(name, parent))
            if kind == "symlink":
                raise LinkRefused("the target is a symbolic link")
            if kind != "file":
                raise SpecialFile("only files are deleted")
            try:
                os.unlink(name, dir_fd=parent)  # unlink never follows a link swapped in since the check
            except FileNotFoundError as exc:
                raise NotFound("no such file") from exc
            except OSError as exc:
                raise Unavailable("a file cannot be removed") from exc

    def walk(
        self,
        location: Location,
        depth: int,
        keep: Callable[[tuple[str, ...], Kind], bool],
        sift: Sift | None = None,
    ) -> Iterator[tuple[tuple[str, ...], Kind]]:
        with self._dir(location) as fd:
            yield from walk_all(fd, (), depth, keep, sift)

    def walk_dirs(
        self,
        location: Location,
        depth: int,
        keep: Callable[[str], bool] | None,
        sift: FolderSift | None = None,
        above: str = "",
    ) -> Generator[str, None, None]:
        with self._dir(location) as fd:
            yield from walk(fd, above, depth, below(keep, len(above)), sift)

    def survey(
        self, location: Location, keep: Callable[[tuple[str, ...], Kind], bool]
    ) -> Iterator[tuple[tuple[str, ...], Stat]]:
        with self._dir(location) as fd:
            yield from local_survey.survey(fd, (), keep)

    def survey_table(
        self,
        location: Location,
        keep: Callable[[tuple[str, ...], Kind], bool],
        above: str = "",
        whole: WholeFolder | None = None,
    ) -> dict[str, SurveyRow]:
        with self._dir(location) as fd:
            if self._marks is None:
                return local_tables.table(fd, (), keep, above, whole)
            info = os.fstat(fd)
            kept = self._kept_for((location.root, location.parts), (info.st_dev, info.st_ino))
            with kept.lock:  # one survey of a folder at a time: each takes the last one's listings
                return local_tables.table(fd, (), keep, above, whole, kept, self._marks)

    def _kept_for(self, key: tuple[str, tuple[str, ...]], identity: tuple[int, int]) -> local_tables.Kept:
        """What the last survey of the folder `key` kept (nothing, when another folder stands there now);
        the oldest past KEPT_SURVEYS forgotten, their marks removed."""
        with self._kept_lock:
            kept = self._kept.pop(key, None)
            gone = [] if kept is None or kept.identity == identity else [kept]
            if kept is None or gone:
                kept = local_tables.Kept(identity)
            self._kept[key] = kept  # the most recent last
            gone += [self._kept.pop(old) for old in list(self._kept)[:-KEPT_SURVEYS]]
        for old in gone:
            self._forget(old)
        return kept

    def _forget(self, kept: local_tables.Kept) -> None:
        if self._marks is not None:
            with kept.lock:
                self._marks.forget(kept.marks())
                kept.listings = {}

    def sweep(self, older_than: float = 60.0, roots: Collection[str] | None = None) -> int:
        """Remove the temporary files of writes that never finished (a crash, a kill), in every root (or
        those of `roots`: where writes can happen); only ones older than `older_than` seconds, so a write in
        flight keeps its own. How many went."""
        removed = 0
        cutoff = time.time() - older_than
        for name in self._roots if roots is None else self._roots.keys() & roots:
            with suppress(Unavailable, NotFound), self._dir(Location(name)) as fd:
                removed += sweep(fd, cutoff)
        return removed

    # ------------------------------------------------------------------ descriptor walking

    def _root(self, name: str) -> _PinnedRoot:
        root = self._roots.get(name)
        if root is None:
            raise NotFound("no such root")
        try:
            info = root.path.stat()
        except OSError as exc:
            raise Unavailable("a configured root is gone") from exc
        if (info.st_dev, info.st_ino) != root.identity:
            raise Unavailable("a configured root was replaced since start")
        return root

    def _dir(self, location: Location, *, create: bool = False) -> _Open:
        """An open descriptor of the folder at `location` (made, with its parents, if `create`)."""
        root = self._root(location.root)
        return _Open(self._open_below(root.fd, location.parts, create=create))

    def _parent(self, location: Location) -> _Open:
        """The folder holding `location`, for calls relative to it (a root lends its own descriptor)."""
        root = self._root(location.root)
        parts = location.parts[:-1]
        return _Open(self._open_below(root.fd, parts)) if parts else _Open(root.fd, lent=True)

    def _open_below(self, top: int, parts: tuple[str, ...], *, create: bool = False) -> int:
        """A new descriptor of the folder `parts` below the open folder `top` (one segment is one openat
        with O_NOFOLLOW, which can neither cross a link nor leave `top`: openat2 pays from two on)."""
        if len(parts) > 1 and self._beneath is not None:
            for name in parts:
                local_segments.check_segment(name)
            try:
                return self._beneath(top, "/".join(parts), DIR_FLAGS)
            except FileNotFoundError as exc:
                # the first segment that is not there, as the walk would find it: openat2 stops at a
                # link (ELOOP) or a file (ENOTDIR) before it looks further, and those go to the walk
                if not create:
                    raise NotFound("no such folder") from exc
            except OSError:
                pass  # a link, a file, an escape, a race or a failure on the way: the walk says which
        return local_segments.walk_below(top, parts, create=create)


def _spelled_kind(top: int, parts: tuple[str, ...]) -> Kind | None:
    """What stands at `parts` below the open folder `top` (None: nothing), on a filesystem that ignores
    case. Raises Misspelled when a segment that exists is listed by its folder under another spelling."""
    spelled: list[str | None] = []
    fd = top
    try:
        for name in parts[:-1]:
            try:
                child = local_segments.open_dir(name, fd)
            except NotFound:
                return _unless_misspelled(parts, spelled, None)
            parent, fd = fd, child  # from here the child is closed below, whatever happens
            try:
                spelled.append(local_spelling.spelled_in(parent, name))
            finally:
                if parent != top:
                    os.close(parent)
        found = _spelled_leaf(fd, parts[-1], spelled)
    finally:
        if fd != top:
            os.close(fd)
    return _unless_misspelled(parts, spelled, found)


def _spelled_leaf(folder: int, name: str, spelled: list[str | None]) -> Kind | None:
    """What stands at `name` in the open `folder` (None: nothing), its spelling added to `spelled`."""
    try:
        found = kind_of(local_segments.lstat(name, folder))
    except NotFound:
        return None
    spelled.append(local_spelling.spelled_in(folder, name))
    return found


def _unless_misspelled(parts: tuple[str, ...], spelled: list[str | None], found: Kind | None) -> Kind | None:
    """`found`, when the first segments of `parts` are spelled as `spelled` says their folders list them."""
    if tuple(spelled) == parts[: len(spelled)]:
        return found
    if None in spelled:
        raise Misspelled(None)
    raise Misspelled(tuple(name for name in spelled if name is not None) + parts[len(spelled) :])
