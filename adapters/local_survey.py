"""The survey of a folder of the local filesystem: every entry below it with its lstat facts.

One `scandir` per folder from a descriptor opened with O_NOFOLLOW (a folder swapped for a link between
the listing and the open is skipped, never followed), one lstat per entry (the directory entry's own stat,
which never follows a link), and a link's target text read relative to its folder's descriptor.
"""

import os
import stat
from collections.abc import Callable, Iterator

from ports.errors import Unavailable
from ports.files import Kind, Stat

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def survey(
    fd: int, here: tuple[str, ...], keep: Callable[[tuple[str, ...], Kind], bool]
) -> Iterator[tuple[tuple[str, ...], Stat]]:
    """The entries below the open folder `fd` (whose parts are `here`), sorted, depth-first."""
    try:
        with os.scandir(fd) as it:
            found = sorted((item.name, _stat(item)) for item in it)
    except OSError as exc:
        raise Unavailable("a folder cannot be listed") from exc
    for name, info in found:
        if info is None:
            continue  # vanished between readdir and stat
        parts = (*here, name)
        kind = _kind(info.st_mode)
        if not keep(parts, kind):
            continue
        link = _link(name, fd) if kind == "symlink" else None
        size = info.st_size if kind in {"file", "symlink"} else 0
        yield parts, Stat(kind, size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino, link)
        if kind != "dir":
            continue
        try:
            child = os.open(name, _DIR_FLAGS, dir_fd=fd)
        except OSError:  # swapped for a link or removed since the listing: skipped, never followed
            continue
        try:
            yield from survey(child, parts, keep)
        finally:
            os.close(child)


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
