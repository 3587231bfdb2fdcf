"""Walks below a folder descriptor for the local files adapter: each folder opened from its parent's
descriptor with O_NOFOLLOW, so a link planted or swapped meanwhile is skipped, never followed; the last
level named as readdir saw it and never opened. `walk` yields folders, `walk_all` every entry and its kind
(from the directory entry: no stat per file), sorted per folder; `kind_of` and `entry_of` name what an
lstat or a directory entry found.
"""

import os
import stat
from collections.abc import Callable, Iterator
from typing import Final

from ports.errors import Unavailable
from ports.files import Entry, Kind

DIR_FLAGS: Final = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def kind_of(info: os.stat_result) -> Kind:
    mode = info.st_mode
    if stat.S_ISLNK(mode):
        return "symlink"
    if stat.S_ISDIR(mode):
        return "dir"
    if stat.S_ISREG(mode):
        return "file"
    return "special"


def entry_of(item: os.DirEntry[str]) -> Entry | None:
    try:
        info = item.stat(follow_symlinks=False)
    except FileNotFoundError:  # vanished between readdir and stat
        return None
    kind = kind_of(info)
    return Entry(item.name, kind, info.st_size if kind == "file" else 0)


def walk(
    fd: int, here: tuple[str, ...], depth: int, keep: Callable[[tuple[str, ...]], bool]
) -> Iterator[tuple[str, ...]]:
    if depth <= 0:
        return
    try:
        with os.scandir(fd) as it:
            names = sorted(item.name for item in it if item.is_dir(follow_symlinks=False))
    except OSError as exc:
        raise Unavailable("a folder cannot be listed") from exc
    for name in names:
        parts = (*here, name)
        if not keep(parts):
            continue
        if depth == 1:  # the last level: named as readdir saw it (as a listing does), never opened
            yield parts
            continue
        try:
            child = os.open(name, DIR_FLAGS, dir_fd=fd)
        except OSError:  # swapped for a link or removed since readdir: skipped, never followed
            continue
        try:
            yield parts
            yield from walk(child, parts, depth - 1, keep)
        finally:
            os.close(child)


def walk_all(
    fd: int, here: tuple[str, ...], depth: int, keep: Callable[[tuple[str, ...], Kind], bool]
) -> Iterator[tuple[tuple[str, ...], Kind]]:
    if depth <= 0:
        return
    try:
        with os.scandir(fd) as it:  # the kind comes from the directory entry itself: no stat per file
            found = sorted((item.name, _entry_kind(item)) for item in it)
    except OSError as exc:
        raise Unavailable("a folder cannot be listed") from exc
    for name, kind in found:
        parts = (*here, name)
        if not keep(parts, kind):
            continue
        if kind != "dir" or depth == 1:  # a file, or a folder of the last level: never opened
            yield parts, kind
            continue
        try:
            child = os.open(name, DIR_FLAGS, dir_fd=fd)
        except OSError:  # swapped for a link or removed since readdir: skipped, never followed
            continue
        try:
            yield parts, kind
            yield from walk_all(child, parts, depth - 1, keep)
        finally:
            os.close(child)


def _entry_kind(item: os.DirEntry[str]) -> Kind:
    if item.is_symlink():
        return "symlink"
    if item.is_dir(follow_symlinks=False):
        return "dir"
    return "file" if item.is_file(follow_symlinks=False) else "special"
