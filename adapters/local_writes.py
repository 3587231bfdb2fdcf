"""Atomic writes for the local files adapter: the new content is written to an unnamed file (O_TMPFILE;
else an exclusive temporary name), synced, and renamed over the target within its folder's descriptor, so
a reader sees the old file or the new one, never part of either; a crash leaves at most a temporary file
named `.<16 hex>.ck3raven-tmp`, which `sweep` removes once it is old enough.
"""

import os
import re
import secrets
from contextlib import suppress
from pathlib import Path
from typing import Final

from adapters.local_walks import DIR_FLAGS
from ports.errors import AlreadyExists, Unavailable

TEMP_SUFFIX: Final = ".ck3raven-tmp"
_TEMP: Final = re.compile(r"\.[0-9a-f]{16}\.ck3raven-tmp")


def replace_atomically(parent: int, name: str, data: bytes, mode: int, *, exclusive: bool = False) -> None:
    temp = f".{secrets.token_hex(8)}{TEMP_SUFFIX}"
    fd = _anonymous_file(parent, mode)
    named = fd is None
    if fd is None:  # no O_TMPFILE here: an exclusive named temp file instead
        fd = _create_exclusive(temp, parent, mode)
    try:
        _write_all(fd, data)
        os.fchmod(fd, mode)
        os.fsync(fd)
        if not named:
            # give the anonymous file a name only once it is complete: a crash before leaves nothing
            os.link(f"/proc/self/fd/{fd}", temp, dst_dir_fd=parent)
        if exclusive:  # a link fails where anything stands: no file that appeared meanwhile is replaced
            os.link(temp, name, src_dir_fd=parent, dst_dir_fd=parent, follow_symlinks=False)
            os.unlink(temp, dir_fd=parent)
        else:
            os.rename(temp, name, src_dir_fd=parent, dst_dir_fd=parent)
    except BaseException as exc:
        with suppress(OSError):
            os.unlink(temp, dir_fd=parent)
        if isinstance(exc, FileExistsError) and exclusive:
            raise AlreadyExists("a file stands there") from exc
        if isinstance(exc, OSError):
            raise Unavailable("the file cannot be written") from exc
        raise
    finally:
        os.close(fd)
    with suppress(OSError):  # the new content is in place: a folder that cannot be synced is no failed write
        os.fsync(parent)  # the rename itself survives a crash once the folder is on disk


def _anonymous_file(parent: int, mode: int) -> int | None:
    flag = getattr(os, "O_TMPFILE", 0)
    if not flag or not Path("/proc/self/fd").is_dir():
        return None
    try:
        return os.open(".", flag | os.O_WRONLY | os.O_CLOEXEC, mode, dir_fd=parent)
    except OSError:
        return None


def _create_exclusive(temp: str, parent: int, mode: int) -> int:
    try:
        return os.open(
            temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, mode, dir_fd=parent
        )
    except OSError as exc:
        raise Unavailable("a temporary file cannot be created") from exc


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def sweep(fd: int, cutoff: float) -> int:
    removed = 0
    try:
        with os.scandir(fd) as it:
            entries = list(it)
    except OSError:
        return 0
    for entry in entries:
        if entry.is_dir(follow_symlinks=False):
            with suppress(OSError):
                child = os.open(entry.name, DIR_FLAGS, dir_fd=fd)
                try:
                    removed += sweep(child, cutoff)
                finally:
                    os.close(child)
        elif _TEMP.fullmatch(entry.name) and entry.is_file(follow_symlinks=False):
            with suppress(OSError):
                if entry.stat(follow_symlinks=False).st_mtime < cutoff:
                    os.unlink(entry.name, dir_fd=fd)
                    removed += 1
    return removed
