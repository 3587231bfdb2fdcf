"""How a folder of the local filesystem spells its entries, where the filesystem ignores case (macOS's
default APFS, a Windows drive seen from WSL, exFAT and FAT, an ext4 casefold folder).

Whether a root's filesystem ignores case is probed once, when the root is pinned: a name found in the
root (or in one of the first folders below it, or the root's own name in its parent), asked for again with
its case swapped, is found only where case is ignored. Where it is, each segment a resolution meets is
looked up in its folder's listing: one listing per segment, and none on a root whose filesystem tells case
apart.
"""

import os
import unicodedata
from collections import deque
from contextlib import suppress
from pathlib import Path

from ports.errors import Unavailable

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
PROBED_FOLDERS = 8
"""How many folders of a root the probe may list to find a name with a letter in it (the top of a workshop
holds only numbered folders)."""


def ignores_case(top: int, path: Path) -> bool:
    """Whether the filesystem of the open folder `top` (the root pinned at `path`) matches names without
    regard to case. With no name to tell by anywhere, it is taken to: the check then costs a listing per
    segment, where the other mistake would let a second spelling through."""
    answer = _probe_below(top)
    if answer is None:
        answer = _probe_above(path)
    return True if answer is None else answer


def spelled_in(folder: int, name: str) -> str | None:
    """How the open `folder` spells its entry `name`: `name` itself when listed so, else the one listed name
    equal to it without regard to case or composition, else None (gone meanwhile, or matched by a rule of
    the filesystem that is not Unicode's)."""
    wanted = _folded(name)
    alike: list[str] = []
    try:
        with os.scandir(folder) as listing:
            for entry in listing:
                if entry.name == name:
                    return name
                if _folded(entry.name) == wanted:
                    alike.append(entry.name)
    except OSError as exc:
        raise Unavailable("a folder cannot be listed") from exc
    return alike[0] if len(alike) == 1 else None


def _folded(name: str) -> str:
    return unicodedata.normalize("NFC", name).casefold()


def _probe_below(top: int) -> bool | None:
    """The answer of the first names with a letter in the root or the first folders below it (breadth
    first), None when none of them has one."""
    waiting: deque[int] = deque([os.dup(top)])
    answer = None
    try:
        for _ in range(PROBED_FOLDERS):
            if answer is not None or not waiting:
                break
            folder = waiting.popleft()
            try:
                names = _names(folder)
                answer = _probe_names(folder, names)
                if answer is None:
                    waiting.extend(_subfolders(folder, names))
            finally:
                os.close(folder)
    except OSError:
        return None
    finally:
        while waiting:
            os.close(waiting.popleft())
    return answer


def _names(folder: int) -> list[str]:
    with os.scandir(folder) as listing:
        return sorted(entry.name for entry in listing)


def _subfolders(folder: int, names: list[str]) -> list[int]:
    opened = []
    for name in names[:PROBED_FOLDERS]:
        with suppress(OSError):
            opened.append(os.open(name, _DIR_FLAGS, dir_fd=folder))
    return opened


def _probe_names(folder: int, names: list[str]) -> bool | None:
    """Whether some name of `folder` is found again with its case swapped (True), or is not (False); None
    when no name has a swappable letter whose other spelling is not itself listed."""
    listed = set(names)
    for name in names:
        swapped = name.swapcase()
        if swapped == name or swapped in listed:
            continue
        if _present(swapped, folder):
            return True
        if _present(name, folder):  # still there, so the other spelling is not the same entry
            return False
    return None


def _present(name: str, folder: int) -> bool:
    try:
        os.stat(name, dir_fd=folder, follow_symlinks=False)
    except OSError:
        return False
    return True


def _probe_above(path: Path) -> bool | None:
    """The answer of the names beside the root in its parent, or beside the nearest ancestor that has one,
    never past the root's own filesystem (a mount point's name belongs to the filesystem above it)."""
    try:
        device = path.stat().st_dev
    except OSError:
        return None
    for folder in (path, *path.parents):
        if folder.parent == folder or _outside(folder.parent, device):
            return None
        answer = _probe_in(folder.parent)
        if answer is not None:
            return answer
    return None


def _probe_in(folder: Path) -> bool | None:
    try:
        fd = os.open(folder, _DIR_FLAGS)
    except OSError:
        return None
    try:
        return _probe_names(fd, _names(fd))
    except OSError:
        return None
    finally:
        os.close(fd)


def _outside(folder: Path, device: int) -> bool:
    try:
        return folder.stat().st_dev != device
    except OSError:
        return True
