"""The survey of a folder of the local filesystem: every entry below it with its lstat facts.

One `scandir` per folder from a descriptor opened with O_NOFOLLOW (a folder swapped for a link between
the listing and the open is skipped, never followed), one lstat per entry (the directory entry's own stat,
which never follows a link), and a link's target text read relative to its folder's descriptor.
"""

import os
import stat
from collections.abc import Callable, Iterator

from ports.errors import TooLarge, Unavailable
from ports.files import SURVEY_DEPTH, Kind, Stat

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def survey(
    fd: int, here: tuple[str, ...], keep: Callable[[tuple[str, ...], Kind], bool]
) -> Iterator[tuple[tuple[str, ...], Stat]]:
    """The entries below the open folder `fd` (whose parts are `here`), sorted, depth-first, walked with a
    stack of its own (one descriptor per level, never the interpreter's recursion). Raises TooLarge for
    folders nested deeper than SURVEY_DEPTH below `fd`. (Each folder's entries are taken in one loop, the
    next folder entered where the loop left off: a survey of a documents folder looks at every entry.)"""
    frames: list[tuple[int, tuple[str, ...], Iterator[tuple[str, os.stat_result]]]] = [
        (fd, here, iter(_listed(fd)))
    ]
    try:
        while frames:
            folder, above, entries = frames[-1]
            entered = None
            for name, info in entries:
                kind: Kind = KINDS.get(stat.S_IFMT(info.st_mode), "special")
                parts = (*above, name)
                if not keep(parts, kind):
                    continue
                yield parts, _found(kind, info, name, folder)
                if kind != "dir":
                    continue
                entered = enter(folder, name, depth=len(frames))
                if entered is not None:
                    frames.append((entered, parts, iter(_listing_of(entered))))
                    break  # depth first: this folder's entries before the rest of its parent's
            if entered is None:
                frames.pop()
                if frames:  # the first folder is the caller's to close
                    os.close(folder)
    finally:
        _close(frames[1:])


def _close(frames: list[tuple[int, tuple[str, ...], Iterator[tuple[str, os.stat_result]]]]) -> None:
    """Close the descriptors of the folders a survey left open (it stopped early, or failed)."""
    for folder, _, _ in frames:
        os.close(folder)


def _found(kind: Kind, info: os.stat_result, name: str, folder: int) -> Stat:
    """What the survey reports of one entry: a link with its target text, a folder or a special file
    without a size."""
    target = link(name, folder) if kind == "symlink" else None
    size = info.st_size if kind in {"file", "symlink"} else 0
    return Stat(kind, size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino, target)


KINDS: dict[int, Kind] = {stat.S_IFREG: "file", stat.S_IFDIR: "dir", stat.S_IFLNK: "symlink"}


def enter(folder: int, name: str, *, depth: int) -> int | None:
    """The descriptor of the folder `name` to survey next (None for one swapped for a link since the
    listing: skipped, never followed)."""
    if depth >= SURVEY_DEPTH:
        raise TooLarge("folders nest deeper than a survey goes")
    try:
        return os.open(name, _DIR_FLAGS, dir_fd=folder)
    except OSError:
        return None


def _listing_of(fd: int) -> list[tuple[str, os.stat_result]]:
    try:
        return _listed(fd)
    except Unavailable:
        os.close(fd)
        raise


def _listed(fd: int) -> list[tuple[str, os.stat_result]]:
    """A folder's entries sorted by name, each with its lstat; an entry gone between the listing and its
    stat is left out."""
    try:
        with os.scandir(fd) as it:
            entries = sorted(it, key=_name)
            stated = [(item.name, _stat(item)) for item in entries]
            return [(name, info) for name, info in stated if info is not None]
    except OSError as exc:
        raise Unavailable("a folder cannot be listed") from exc


def _name(item: os.DirEntry[str]) -> str:
    return item.name


def _stat(item: os.DirEntry[str]) -> os.stat_result | None:
    try:
        return item.stat(follow_symlinks=False)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise Unavailable("an entry cannot be examined") from exc


def link(name: str, fd: int) -> str | None:
    try:
        return os.readlink(name, dir_fd=fd)
    except OSError:
        return None


def entries(fd: int) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(fd) as listing:
            return list(listing)
    except OSError as exc:
        raise Unavailable("a folder cannot be listed") from exc
