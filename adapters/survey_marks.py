"""Linux inotify marks on the folders a survey listed, so that the next survey lists again only the folders
where something happened since (git's file system monitor, kept inside the server).

A folder is marked through the descriptor the survey opened it by (`/proc/self/fd/N`): the watch is on
exactly the folder listed, never on whatever a path names by then. Every event waiting is read at the
start of each survey (`drain`), and each one dates its folder with that drain's tick; a folder listed
after a drain is `unchanged` while no later drain dated it. The kernel queues an event within the system
call that made the change, so a change made before a drain began is read by that drain.

What a folder's mark does not see, and the survey therefore never trusts to it (adapters.local_tables): a
folder on a file system that another machine, or a layer beneath it, can change (a network share, a WSL
drive of Windows, FUSE, overlayfs: only LOCAL kinds but overlayfs are marked); lost events (the queue
overflowed: every folder is listed afresh). Left to the operator, and written in docs/security-model.md:
a second name made outside the surveyed folder and written through, a write through a shared memory map or
by native asynchronous I/O while its writer holds the file open, a status time moved alone, a file system
mounted over a folder after it was listed.
"""

import ctypes
import errno
import os
import threading
import weakref
from typing import Final

from adapters import inotify_changes
from adapters.inotify_changes import (
    EVENT,
    IGNORED,
    MASK,
    ONLYDIR,
    OVERFLOW,
    kind_of_folder,
    libc,
    watch_budget,
)

OVERLAY: Final = 0x794C7630
"""overlayfs, never marked: a change made in one of its layers beneath it sends the overlay no event."""
MAX_MARKS: Final = 50_000
"""Folders one process marks at most (and never more than a share of the user's limit, which every program
of the user draws on: inotify_changes.watch_budget)."""


class SurveyMarks:
    """One inotify instance, for the surveys of every marked files adapter of a process (`shared`); its
    ticks order drains and listings."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._libc = libc()
        self._fd: int | None = None
        self._closer: weakref.finalize[[int], SurveyMarks] | None = None
        self._tick = 0
        self._lost = 0  # the tick of the drain that found the queue overflowed: no earlier listing is trusted
        self._dated: dict[int, int] = {}  # a mark -> the tick of the drain that read its last event
        self._live: set[int] = set()  # the marks the kernel still holds
        self._full = False  # the kernel refused a mark for want of room: no more are asked for
        self._budget = watch_budget(MAX_MARKS)

    def drain(self) -> int | None:
        """Read every event waiting; the tick a folder listed from now on is dated with (None: no marks
        here, every folder is listed)."""
        with self._lock:
            if self._libc is None:
                return None
            if self._fd is None:
                fd = self._libc.inotify_init1(os.O_CLOEXEC | os.O_NONBLOCK)
                if fd < 0:
                    self._libc = None
                    return None
                self._fd = fd
                # the user's instances are few (128 by default): one forgotten unclosed is given back
                self._closer = weakref.finalize(self, os.close, fd)
            self._tick += 1
            self._read_all(self._fd)
            return self._tick if self._fd is not None else None

    def mark(self, folder: int) -> int | None:
        """Watch the open folder `folder` (before it is listed); its mark, or None when it cannot be
        watched (a file system another machine changes, no room for more marks)."""
        with self._lock:
            if self._fd is None or self._libc is None or self._full or len(self._live) >= self._budget:
                return None
            kind = kind_of_folder(self._libc, folder)
            if kind not in inotify_changes.LOCAL or kind == OVERLAY:
                return None
            named = f"/proc/self/fd/{folder}".encode()  # the folder the descriptor holds, whatever its path
            wd: int = self._libc.inotify_add_watch(self._fd, named, MASK | ONLYDIR)
            if wd < 0:
                if ctypes.get_errno() in {errno.ENOSPC, errno.ENOMEM}:
                    self._full = True
                return None
            self._live.add(wd)
            self._dated.setdefault(wd, 0)
            return wd

    def forget(self, marks: set[int]) -> None:
        """Remove `marks` (their folders' listings are no longer kept): each counts against the user's
        limit and sends events every drain reads. A listing kept elsewhere with one of them is listed
        afresh at its next survey (the kernel's ignored event dates it)."""
        with self._lock:
            if self._fd is None or self._libc is None:
                return
            for wd in marks & self._live:
                self._libc.inotify_rm_watch(self._fd, wd)
            self._live -= marks
            self._full = False

    def unchanged(self, mark: int | None, listed: int) -> bool:
        """Whether the folder marked `mark`, listed after the drain of tick `listed`, saw no event since."""
        return mark is not None and listed >= self._lost and self._dated.get(mark, listed + 1) <= listed

    def _read_all(self, fd: int) -> None:
        tick, dated = self._tick, self._dated
        while True:
            try:
                data = os.read(fd, 65536)
            except BlockingIOError:
                return
            except OSError:  # the instance failed: nothing is trusted to it any more
                if self._closer is not None:
                    self._closer()
                self._fd, self._libc = None, None
                return
            offset, size = 0, EVENT.size
            while offset + size <= len(data):
                wd, events, _, length = EVENT.unpack_from(data, offset)
                offset += size + length
                if events & OVERFLOW:
                    self._lost = tick
                if events & IGNORED:
                    self._live.discard(wd)  # its folder is gone; its date stays: never trusted again
                dated[wd] = tick


_SHARED: list[SurveyMarks] = []
_SHARING = threading.Lock()


def shared() -> SurveyMarks:
    """The one instance of this process, for every files adapter that keeps its surveys (the user's
    inotify instances are few, 128 by default, and every program of the user draws on them)."""
    with _SHARING:
        if not _SHARED:
            _SHARED.append(SurveyMarks())
        return _SHARED[0]
