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
    folders nested deeper than SURVEY_DEPTH below `fd`."""
    frames: list[tuple[int, tuple[str, ...], Iterator[tuple[str, os.stat_result | None]]]] = [
        (fd, here, iter(_listed(fd)))
    ]
    try:
        while frames:
            folder, above, entries = frames[-1]
            item = next(entries, None)
            if item is None:
                frames.pop()
                if frames:  # the first folder is the caller's to close
                    os.close(folder)
                continue
            child = _entered(folder, (*above, item[0]), item[1], keep, depth=len(frames))
            if child is None:
                continue
            parts, found, opened = child
            yield parts, found
            if opened is not None:
                frames.append((opened, parts, iter(_listing_of(opened))))
    finally:
        for folder, _, _ in frames[1:]:
            os.close(folder)


def _entered(
    folder: int,
    parts: tuple[str, ...],
    info: os.stat_result | None,
    keep: Callable[[tuple[str, ...], Kind], bool],
    *,
    depth: int,
) -> tuple[tuple[str, ...], Stat, int | None] | None:
    """One entry as the survey reports it, and the descriptor of the folder to enter next (None for a
    file, or a folder swapped for a link since the listing: skipped, never followed); None to pass over."""
    if info is None:  # vanished between readdir and stat
        return None
    kind = _kind(info.st_mode)
    if not keep(parts, kind):
        return None
    name = parts[-1]
    link = _link(name, folder) if kind == "symlink" else None
    size = info.st_size if kind in {"file", "symlink"} else 0
    found = Stat(kind, size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino, link)
    if kind != "dir":
        return parts, found, None
    if depth >= SURVEY_DEPTH:
        raise TooLarge("folders nest deeper than a survey goes")
    try:
        return parts, found, os.open(name, _DIR_FLAGS, dir_fd=folder)
    except OSError:
        return parts, found, None


def _listing_of(fd: int) -> list[tuple[str, os.stat_result | None]]:
    try:
        return _listed(fd)
    except Unavailable:
        os.close(fd)
        raise


def _listed(fd: int) -> list[tuple[str, os.stat_result | None]]:
    try:
        with os.scandir(fd) as it:
            entries = sorted(it, key=_name)
            return [(item.name, _stat(item)) for item in entries]
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


def _kind(mode: int) -> Kind:
    if stat.S_ISLNK(mode):
        return "symlink"
    if stat.S_ISDIR(mode):
        return "dir"
    return "file" if stat.S_ISREG(mode) else "special"


def _link(name: str, fd: int) -> str | None:
    try:
        return os.readlink(name, dir_fd=fd)
    except OSError:
        return None
