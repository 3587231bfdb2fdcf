"""One server per state directory: an exclusive lock on `server.lock`, holding who serves.

The lock is an `flock` on an open descriptor, so it ends with the process however it ends (no stale lock
after a crash). The file records the holder's pid and transport, for the message a second server prints.
"""

import contextlib
import fcntl
import json
import os
from pathlib import Path


class AlreadyServing(Exception):
    """Another live server holds the state directory."""

    def __init__(self, pid: object, transport: object) -> None:
        super().__init__(f"another ck3raven server (pid {pid}, {transport}) serves this state directory")
        self.pid, self.transport = pid, transport


class ServerLock:
    """Held from `acquire` until `release` (or the process's end)."""

    def __init__(self, state: Path) -> None:
        self._path = state / "server.lock"
        self._fd: int | None = None

    def acquire(self, transport: str) -> None:
        """Take the lock and record this server; raises AlreadyServing when another holds it."""
        self._path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        with contextlib.suppress(OSError):  # a state directory made earlier keeps no looser mode
            self._path.parent.chmod(0o700)
        fd = os.open(self._path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _holder(fd)
            os.close(fd)
            raise AlreadyServing(holder.get("pid", "?"), holder.get("transport", "?")) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, json.dumps({"pid": os.getpid(), "transport": transport}).encode(), 0)
        self._fd = fd

    def release(self) -> None:
        if self._fd is not None:
            with contextlib.suppress(OSError):
                os.ftruncate(self._fd, 0)
            os.close(self._fd)
            self._fd = None


def running(state: Path) -> dict[str, object] | None:
    """The live server holding `state` (its pid and transport), or None when no server holds it."""
    try:
        fd = os.open(state / "server.lock", os.O_RDWR | os.O_CLOEXEC | os.O_NOFOLLOW)
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return _holder(fd)
    else:
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)


def _holder(fd: int) -> dict[str, object]:
    try:
        data = json.loads(os.pread(fd, 4096, 0).decode("utf-8") or "{}")
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}
