"""Change notification by Linux inotify (ctypes on the C library, no thread): each folder asked about is
watched, with every folder below it, from its first question on; the events waiting are read whenever a
generation is asked, and each bumps the generation of every watched folder above the file it names.

Only folders on a file system of this machine's own disks are watched (LOCAL): inotify says nothing of
changes another machine or the host of a virtual machine makes (a network share, a WSL drive of Windows,
FUSE). Nothing is followed through a link below a watched folder (the index's walk enters none). When the
kernel's queue overflowed, events were lost: every watch is dropped and every folder is watched afresh at
its next question, with a new generation. Where inotify is missing, or the watches would pass MAX_WATCHES or a
SHARE of the user's limit, a folder's generation is None and the caller looks at its files itself.
"""

import ctypes
import errno
import os
import struct
import sys
import threading
import weakref
from pathlib import Path
from typing import Final

from ports.files import Location

MAX_WATCHES: Final = 50_000
"""Folders one server watches at most (the user's limit is shared by every program of the user)."""
USER_LIMIT: Final = Path("/proc/sys/fs/inotify/max_user_watches")
"""The kernel's limit on the watches of all of the user's programs together."""
SHARE: Final = 4
"""The part of the user's limit one of this server's watchers takes at most: a quarter, so that an editor's
or a build tool's watches of the same user still find room (8,192 in all on kernels before 5.11)."""


def watch_budget(most: int) -> int:
    """How many watches one watcher may hold: `most`, or a SHARE of the user's limit where that is less."""
    try:
        limit = int(USER_LIMIT.read_text(encoding="ascii"))
    except (OSError, ValueError):
        return most
    return max(0, min(most, limit // SHARE))


_MODIFY, _ATTRIB, _CLOSE_WRITE = 0x2, 0x4, 0x8
_MOVED_FROM, _MOVED_TO, _CREATE, _DELETE = 0x40, 0x80, 0x100, 0x200
_DELETE_SELF, _MOVE_SELF = 0x400, 0x800
OVERFLOW, IGNORED, ONLYDIR, _DONT_FOLLOW, _ISDIR = 0x4000, 0x8000, 0x1000000, 0x2000000, 0x40000000
MASK: Final = (
    _MODIFY | _ATTRIB | _CLOSE_WRITE | _MOVED_FROM | _MOVED_TO | _CREATE | _DELETE | _DELETE_SELF | _MOVE_SELF
)
_CLOEXEC, _NONBLOCK = os.O_CLOEXEC, os.O_NONBLOCK
EVENT: Final = struct.Struct("iIII")
LOCAL: Final = frozenset({
    0xEF53,  # ext2, ext3, ext4
    0x58465342,  # xfs
    0x9123683E,  # btrfs
    0x01021994,  # tmpfs
    0x794C7630,  # overlayfs
    0x2FC12FC1,  # zfs
    0xF2F52010,  # f2fs
})  # fmt: skip
"""The file systems (statfs's f_type) whose every change this machine's kernel makes itself."""


class InotifyChanges:
    """Generations of folders below `roots` (root name -> host folder)."""

    def __init__(self, roots: dict[str, Path]) -> None:
        self._roots = roots
        self._lock = threading.Lock()
        self._fd: int | None = None
        self._closer: weakref.finalize[[int], InotifyChanges] | None = None
        self._tick = 0
        self._at: dict[Path, int] = {}  # a watched folder -> its generation
        self._paths: dict[int, Path] = {}  # a watch -> the folder it watches
        self._tops: dict[int, set[Path]] = {}  # a watch -> the asked folders above it
        self._libc = libc()
        self._budget = watch_budget(MAX_WATCHES)

    def generation(self, place: Location) -> int | None:
        root = self._roots.get(place.root)
        if root is None or self._libc is None:
            return None
        top = root.joinpath(*place.parts)
        with self._lock:
            self._drain()
            if top not in self._at and not self._arm(top):
                return None
            return self._at[top]

    def close(self) -> None:
        with self._lock:
            self._reset()

    def _bump(self, top: Path) -> None:
        self._tick += 1
        self._at[top] = self._tick

    def _arm(self, top: Path) -> bool:
        """Watch `top` and every folder below it; False (nothing left watched for it) when it cannot be."""
        if self._libc is None or _kind_of(self._libc, top) not in LOCAL:
            return False
        if self._fd is None:
            fd = self._libc.inotify_init1(_CLOEXEC | _NONBLOCK)
            if fd < 0:
                return False
            self._fd = fd
            # the user's instances are few (128 by default): one forgotten unclosed is given back
            self._closer = weakref.finalize(self, os.close, fd)
        self._bump(top)
        if not self._watch(top, top, follow=True):
            self._forget(top)
            return False
        return True

    def _watch(self, folder: Path, top: Path, *, follow: bool) -> bool:
        """Watch `folder` and the folders below it for `top` (links not followed); False past the limit."""
        pending = [(folder, follow)]
        while pending:
            here, follows = pending.pop()
            if len(self._paths) >= self._budget or self._fd is None or self._libc is None:
                return False
            flags = MASK | ONLYDIR | (0 if follows else _DONT_FOLLOW)
            wd = self._libc.inotify_add_watch(self._fd, os.fsencode(here), flags)
            if wd < 0:
                if here == folder or ctypes.get_errno() in {errno.ENOSPC, errno.ENOMEM}:
                    return False
                continue  # gone meanwhile, or not a folder: its parent's events say so
            self._paths[wd] = here
            self._tops.setdefault(wd, set()).add(top)
            try:
                with os.scandir(here) as entries:
                    pending += [(Path(e.path), False) for e in entries if e.is_dir(follow_symlinks=False)]
            except OSError:
                continue
        return True

    def _forget(self, top: Path) -> None:
        """Stop counting events for `top` (its watches stay while another folder needs them)."""
        self._at.pop(top, None)
        for wd, tops in list(self._tops.items()):
            tops.discard(top)
            if not tops:
                del self._tops[wd]
                self._paths.pop(wd, None)
                if self._fd is not None and self._libc is not None:
                    self._libc.inotify_rm_watch(self._fd, wd)

    def _drain(self) -> None:
        """Read every event waiting and bump the generation of the folders above each."""
        while self._fd is not None:
            try:
                data = os.read(self._fd, 65536)
            except BlockingIOError:
                return
            except OSError:
                self._reset()
                return
            self._events(data)

    def _events(self, data: bytes) -> None:
        offset = 0
        while offset + EVENT.size <= len(data):
            wd, mask, _, size = EVENT.unpack_from(data, offset)
            name = data[offset + EVENT.size : offset + EVENT.size + size].split(b"\0", 1)[0]
            offset += EVENT.size + size
            if mask & OVERFLOW:
                self._reset()  # events were lost: every folder is watched afresh
                return
            self._event(wd, mask, os.fsdecode(name))

    def _event(self, wd: int, mask: int, name: str) -> None:
        """One event: the generations of the folders above it move on; a new folder is watched too; a
        watched folder gone is forgotten (asked afresh, it is watched again)."""
        tops = self._tops.get(wd, set())
        for top in tops:
            self._bump(top)
        here = self._paths.get(wd)
        if mask & _ISDIR and mask & (_CREATE | _MOVED_TO) and here is not None:
            for top in list(tops):
                if not self._watch(here / name, top, follow=False):
                    self._forget(top)
        if mask & (IGNORED | _DELETE_SELF | _MOVE_SELF):
            for top in [top for top in tops if top == here]:
                self._forget(top)
            if mask & IGNORED:
                self._tops.pop(wd, None)
                self._paths.pop(wd, None)

    def _reset(self) -> None:
        if self._closer is not None:
            self._closer()
        self._fd, self._closer = None, None
        self._at.clear()
        self._paths.clear()
        self._tops.clear()


def _kind_of(libc: ctypes.CDLL, folder: Path) -> int | None:
    """The file system type (statfs's f_type, the first field of its answer) of `folder`, or None."""
    answer = ctypes.create_string_buffer(256)  # struct statfs is 120 bytes on 64-bit Linux
    if libc.statfs(os.fsencode(folder), answer) != 0:
        return None
    return _f_type(answer)


def kind_of_folder(libc: ctypes.CDLL, fd: int) -> int | None:
    """The file system type (statfs's f_type) of the open folder `fd`, or None."""
    answer = ctypes.create_string_buffer(256)
    return _f_type(answer) if libc.fstatfs(fd, answer) == 0 else None


def _f_type(answer: ctypes.Array[ctypes.c_char]) -> int:
    return int.from_bytes(answer.raw[: ctypes.sizeof(ctypes.c_long)], sys.byteorder, signed=True)


def libc() -> ctypes.CDLL | None:
    """The C library when it has inotify (Linux), else None."""
    try:
        found = ctypes.CDLL(None, use_errno=True)
        found.inotify_init1.argtypes = [ctypes.c_int]
        found.inotify_add_watch.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_uint32]
        found.inotify_rm_watch.argtypes = [ctypes.c_int, ctypes.c_int]
        found.statfs.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
        found.fstatfs.argtypes = [ctypes.c_int, ctypes.c_char_p]
    except (OSError, AttributeError):
        return None
    return found
