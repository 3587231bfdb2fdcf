"""One folder segment at a time below an open folder descriptor, never following a link (O_NOFOLLOW).

Each name reaching here was validated by the World Adapter; `check_segment` is a second wall. Every
failure is one of the port's errors, chained to the OSError it translates.
"""

import errno
import os
import stat

from adapters.local_walks import DIR_FLAGS, kind_of
from ports.errors import LinkRefused, NotADirectory, NotFound, SpecialFile, TooLarge, Unavailable


def walk_below(top: int, parts: tuple[str, ...], *, create: bool) -> int:
    """The folder `parts` below the open folder `top`, one segment at a time, as a new descriptor."""
    fd = top
    try:
        for name in parts:
            if create:
                make_dir(name, fd)
            child = open_dir(name, fd)
            if fd != top:
                os.close(fd)
            fd = child
    except BaseException:
        if fd != top:
            os.close(fd)
        raise
    return os.dup(top) if fd == top else fd


def open_dir(name: str, parent: int) -> int:
    check_segment(name)
    try:
        return os.open(name, DIR_FLAGS, dir_fd=parent)
    except OSError as exc:
        if exc.errno == errno.ENOENT:
            raise NotFound("no such folder") from exc
        if exc.errno in (errno.ELOOP, errno.ENOTDIR):
            kind = kind_of(lstat(name, parent))
            if kind == "symlink":
                raise LinkRefused("a symbolic link stands on the way") from exc
            raise NotADirectory("not a folder") from exc
        raise Unavailable("a folder cannot be opened") from exc


def make_dir(name: str, parent: int) -> None:
    check_segment(name)
    try:
        os.mkdir(name, 0o755, dir_fd=parent)
    except FileExistsError:
        pass  # whatever stands there is checked when it is opened with O_NOFOLLOW
    except OSError as exc:
        raise Unavailable("a folder cannot be created") from exc


def replaceable_mode(name: str, parent: int) -> int:
    """The permission bits the new file gets: those of the file it replaces, else 0o644."""
    try:
        info = lstat(name, parent)
    except NotFound:
        return 0o644
    if stat.S_ISLNK(info.st_mode):
        raise LinkRefused("the target is a symbolic link")
    if not stat.S_ISREG(info.st_mode) or info.st_nlink != 1:
        raise SpecialFile("not a regular file with a single link")
    return stat.S_IMODE(info.st_mode)


def open_file(name: str, parent: int) -> int:
    check_segment(name)
    try:
        # O_NONBLOCK: opening a FIFO must not hang; fstat then refuses it.
        return os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=parent)
    except OSError as exc:
        if exc.errno == errno.ENOENT:
            raise NotFound("no such file") from exc
        if exc.errno == errno.ELOOP:
            raise LinkRefused("the target is a symbolic link") from exc
        if exc.errno in (errno.ENXIO, errno.ENODEV):
            raise SpecialFile("a socket or device") from exc
        raise Unavailable("a file cannot be opened") from exc


def read_in(parent: int, name: str, limit: int) -> bytes:
    """The content of the regular, singly linked file `name` in the open folder `parent`."""
    fd = open_file(name, parent)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_nlink != 1:
            raise SpecialFile("not a regular file with a single link")
        if info.st_size > limit:
            raise TooLarge("the file is larger than the limit")
        return _read_all(fd, limit)
    finally:
        os.close(fd)


def _read_all(fd: int, limit: int) -> bytes:
    chunks, size = [], 0
    try:
        while chunk := os.read(fd, 1 << 20):
            size += len(chunk)
            if size > limit:  # grew since fstat
                raise TooLarge("the file is larger than the limit")
            chunks.append(chunk)
    except OSError as exc:
        raise Unavailable("a file cannot be read") from exc
    return b"".join(chunks)


def lstat(name: str, parent: int) -> os.stat_result:
    check_segment(name)
    try:
        return os.stat(name, dir_fd=parent, follow_symlinks=False)
    except FileNotFoundError as exc:
        raise NotFound("no such entry") from exc
    except NotADirectoryError as exc:
        raise NotADirectory("not a folder") from exc
    except OSError as exc:
        raise Unavailable("an entry cannot be examined") from exc


def check_segment(name: str) -> None:
    # The World Adapter validated every segment; this is a second wall, not the first.
    if not name or name in {".", ".."} or "/" in name or "\0" in name:
        raise ValueError("an unvalidated path segment reached the filesystem adapter")
