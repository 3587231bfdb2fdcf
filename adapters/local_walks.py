"""Walks below a folder descriptor for the local files adapter: each folder opened from its parent's
descriptor with O_NOFOLLOW, so a link planted or swapped meanwhile is skipped, never followed; the last
level named as readdir saw it and never opened. `walk` yields folders by their paths, `walk_all` every
entry by its parts, and its kind (from the directory entry: no stat per file), sorted per folder;
`kind_of` and `entries_of` name what an lstat or directory entries found.
"""

import os
import stat
from collections.abc import Callable, Iterable, Iterator
from operator import itemgetter
from typing import Final

from ports.errors import Unavailable
from ports.files import Entry, FolderSift, Kind, Sift

DIR_FLAGS: Final = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


_KINDS: Final[dict[int, Kind]] = {stat.S_IFLNK: "symlink", stat.S_IFDIR: "dir", stat.S_IFREG: "file"}
_NAME: Final = itemgetter(0)
_FILE: Final[Kind] = "file"


def kind_of(info: os.stat_result) -> Kind:
    return _KINDS.get(stat.S_IFMT(info.st_mode), "special")


def entries_of(items: Iterable[os.DirEntry[str]]) -> list[Entry]:
    """The entries of directory entries, an lstat each, sorted by name; one vanished between readdir and
    its lstat is left out. One loop, no call per entry beyond the lstat: a listing runs it for every child."""
    kinds = _KINDS
    entries = []
    for item in items:
        try:
            info = item.stat(follow_symlinks=False)
        except FileNotFoundError:
            continue
        kind = kinds.get(stat.S_IFMT(info.st_mode), "special")
        entries.append(Entry(item.name, kind, info.st_size if kind == "file" else 0))
    entries.sort(key=_NAME)
    return entries


def walk(
    fd: int,
    here: str,
    depth: int,
    keep: Callable[[str], bool] | None,
    sift: FolderSift | None = None,
) -> Iterator[str]:
    """The folders below the open folder `fd`, each as `here` and its path below `fd` (`/` between parts:
    `here` is "" or ends in one)."""
    if depth <= 0:
        return
    try:
        with os.scandir(fd) as it:
            names = sorted(item.name for item in it if item.is_dir(follow_symlinks=False))
    except OSError as exc:
        raise Unavailable("a folder cannot be listed") from exc
    # most folders of a tree hold no folder: nothing to sift, no call
    for name in names if sift is None or not names else sift(names):
        path = here + name
        if keep is not None and not keep(path):
            continue
        if depth == 1:  # the last level: named as readdir saw it (as a listing does), never opened
            yield path
            continue
        try:
            child = os.open(name, DIR_FLAGS, dir_fd=fd)
        except OSError:  # swapped for a link or removed since readdir: skipped, never followed
            continue
        try:
            yield path
            yield from walk(child, path + "/", depth - 1, keep, sift)
        finally:
            os.close(child)


def walk_all(  # noqa: C901 - one loop over a stack of folders, kept whole so no entry pays a call more
    fd: int,
    here: tuple[str, ...],
    depth: int,
    keep: Callable[[tuple[str, ...], Kind], bool],
    sift: Sift | None = None,
) -> Iterator[tuple[tuple[str, ...], Kind]]:
    """Depth-first in name order, from one frame (a walk of many entries would otherwise hand each one
    up through a generator per folder level): a stack of the open folders, each with what is left of its
    entries (those `sift` gives back, when given); every descriptor this opened is closed however the walk
    ends."""
    if depth <= 0:
        return
    listed = _listed if sift is None else lambda folder: sift(_listed(folder))
    frames = [(fd, here, depth, iter(listed(fd)))]
    try:
        while frames:
            top, above, left, pending = frames[-1]
            for name, kind in pending:
                parts = (*above, name)
                if not keep(parts, kind):
                    continue
                if kind != "dir" or left == 1:  # a file, or a folder of the last level: never opened
                    yield parts, kind
                    continue
                try:
                    child = os.open(name, DIR_FLAGS, dir_fd=top)
                except OSError:  # swapped for a link or removed since readdir: skipped, never followed
                    continue
                frames.append((child, parts, left - 1, iter(())))
                yield parts, kind
                frames[-1] = (child, parts, left - 1, iter(listed(child)))
                break  # into the child; this folder's entries go on where they stopped
            else:
                frames.pop()
                if top != fd:
                    os.close(top)
    finally:
        for top, *_ in frames:
            if top != fd:
                os.close(top)


def _listed(fd: int) -> list[tuple[str, Kind]]:
    """The open folder's entries, sorted by name, each kind from the directory entry itself (no stat)."""
    try:
        with os.scandir(fd) as it:
            # most entries are plain files, answered by the first question (not following: a link is no
            # file) without a call of our own
            named = ((i.name, _FILE if i.is_file(follow_symlinks=False) else _other(i)) for i in it)
            return sorted(named)
    except OSError as exc:
        raise Unavailable("a folder cannot be listed") from exc


def _other(item: os.DirEntry[str]) -> Kind:
    if item.is_dir(follow_symlinks=False):
        return "dir"
    return "symlink" if item.is_symlink() else "special"
