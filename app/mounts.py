"""The mounts this process sees (`/proc/self/mountinfo`), and which of them are Windows drives that WSL
mounts (drvfs, over 9p or its own driver): what lies there is served by Windows through a file server, so
many small files read slowly, and SQLite's locking and Unix sockets are not to be relied on."""

import re
from collections.abc import Iterable
from pathlib import Path

from attrs import frozen

MOUNTINFO = Path("/proc/self/mountinfo")
_ESCAPE = re.compile(r"\\([0-7]{3})")
_DRIVE = re.compile(r"[A-Za-z]:")


@frozen
class Mount:
    """One mounted filesystem: where it is mounted, its type, its source and its own options."""

    point: Path
    fstype: str
    source: str
    options: str

    @property
    def windows_drive(self) -> bool:
        """Whether this is a Windows drive as WSL mounts it."""
        if self.fstype == "drvfs" or "aname=drvfs" in self.options:
            return True
        return self.fstype in {"9p", "virtiofs"} and _DRIVE.match(self.source) is not None


def read_mountinfo() -> str:
    """This process's mount table as text; empty where there is none (not Linux)."""
    try:
        return MOUNTINFO.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def parse(text: str) -> list[Mount]:
    """The mounts of a mountinfo text (lines it cannot read are left out)."""
    mounts = []
    for line in text.splitlines():
        fields = line.split()
        if "-" not in fields:
            continue
        dash = fields.index("-")
        if dash < 5 or len(fields) < dash + 4:  # noqa: PLR2004 - mountinfo(5): five fields, then after "-" three
            continue
        point = Path(_unescaped(fields[4]))
        mounts.append(Mount(point, fields[dash + 1], _unescaped(fields[dash + 2]), fields[dash + 3]))
    return mounts


def holding(folder: Path, mounts: Iterable[Mount]) -> Mount | None:
    """The mount that holds `folder` (the deepest mount point at or above it), or None."""
    places = {folder, *folder.parents}
    found = [mount for mount in mounts if mount.point in places]
    # the last of several mounts at one point is the one in effect
    return max(reversed(found), key=lambda mount: len(mount.point.parts), default=None)


def windows_drive(folder: Path, mounts: Iterable[Mount]) -> Mount | None:
    """The Windows drive `folder` lies on, as WSL mounts it, or None."""
    mount = holding(folder, mounts)
    return mount if mount is not None and mount.windows_drive else None


def _unescaped(text: str) -> str:
    # mountinfo writes space, tab, newline and backslash as three octal digits after a backslash
    return _ESCAPE.sub(lambda match: chr(int(match[1], 8)), text)
