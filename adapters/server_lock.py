"""The servers of one state directory: several may share it (each client that spawns its own server over
stdio is one), so each registers itself under `servers/`, holding an exclusive lock on `<pid>.lock`
(which records its pid, transport and server id) and serving approvals on `<pid>.sock` beside it.

The lock is an `flock` on an open descriptor, so it ends with the process however it ends: a lock file
whose lock can be taken belongs to no live server (its socket is left over too). Only an HTTP port is
exclusive, and the operating system says so when the port is bound.
"""

import contextlib
import fcntl
import json
import os
import time
from pathlib import Path
from typing import Final

SERVERS = "servers"
_PROBED: Final = 100
"""Times a starting server tries again to lock its own file while another server holds it to ask whether
its server runs (a probe holds it for a moment: 100 tries, about a second)."""


class ServerLock:
    """This server's registration, held from `acquire` until `release` (or the process's end)."""

    def __init__(self, state: Path) -> None:
        self._folder = state / SERVERS
        self._path = self._folder / f"{os.getpid()}.lock"
        self._fd: int | None = None

    @property
    def socket(self) -> Path:
        """Where this server serves the operator's approvals."""
        return self._path.with_suffix(".sock")

    def acquire(self, transport: str, server_id: str | None = None) -> None:
        """Register this server (making the folders 0700); raises OSError when the state directory cannot
        hold it (read-only, full, not a folder). Left-overs of servers that ended are removed."""
        self._folder.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        self._folder.mkdir(mode=0o700, exist_ok=True)
        for folder in (self._folder.parent, self._folder):
            with contextlib.suppress(OSError):  # a state directory made earlier keeps no looser mode
                folder.chmod(0o700)
        _sweep(self._folder)
        probed = 0
        while True:
            fd = os.open(self._path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o600)
            try:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # our pid: no live server holds it
                except BlockingIOError:
                    if probed >= _PROBED:
                        raise
                    probed += 1  # another server asks whether this file's server runs: a moment only
                    os.close(fd)
                    time.sleep(0.01)
                    continue
                if os.fstat(fd).st_ino != self._path.stat().st_ino:
                    os.close(fd)  # another server's sweep removed it before it was locked: again
                    continue
                os.ftruncate(fd, 0)
                held = {"pid": os.getpid(), "transport": transport, "server_id": server_id}
                os.pwrite(fd, json.dumps(held).encode(), 0)
            except OSError:
                os.close(fd)
                raise
            self._fd = fd
            return

    def release(self) -> None:
        if self._fd is not None:
            with contextlib.suppress(OSError):
                self._path.unlink()
            os.close(self._fd)
            self._fd = None


def running(state: Path) -> list[dict[str, object]]:
    """The live servers of `state` (pid, transport and approval socket of each), oldest pid first."""
    found = []
    for path in sorted((state / SERVERS).glob("*.lock"), key=lambda p: p.stem.zfill(12)):
        holder = _live(path)
        if holder is not None:
            found.append({**holder, "socket": str(path.with_suffix(".sock"))})
    return found


class LockedServers:
    """The servers of `state` as decisions see them (ports.servers.Servers): this one, `own`, and any
    other whose registration under `servers/` is still held. A server id that no live registration names
    belongs to a server that ended (stopped, killed or crashed: its lock ended with its process)."""

    def __init__(self, state: Path, own: str) -> None:
        self._state = state
        self._own = own

    @property
    def own(self) -> str:
        return self._own

    def running(self, server_id: str) -> bool:
        return server_id == self._own or any(
            holder.get("server_id") == server_id for holder in running(self._state)
        )


def _live(path: Path) -> dict[str, object] | None:
    try:
        fd = os.open(path, os.O_RDWR | os.O_CLOEXEC | os.O_NOFOLLOW)
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


def _sweep(folder: Path) -> None:
    """Remove the lock files and sockets of servers that ended without their cleanup (killed)."""
    for path in folder.glob("*.lock"):
        if _live(path) is None:
            for stale in (path.with_suffix(".sock"), path):
                with contextlib.suppress(OSError):
                    stale.unlink()


def _holder(fd: int) -> dict[str, object]:
    try:
        data = json.loads(os.pread(fd, 4096, 0).decode("utf-8") or "{}")
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}
