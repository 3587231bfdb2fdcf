"""Where a git repository stands for a root or a folder in it (host paths, read by lstat and one small
read of a submodule's `.git` file; dulwich is not asked): the repository whose top is the root itself, or
the deepest one on the way down to a folder, never through a link. A submodule (a `.git` file naming a
folder in the `.git/modules` of the repository above it) is a repository of its own; any other `.git`
file (a linked worktree, or anything else standing there) is a repository not served: below it nothing
is, rather than the one around it.
"""

import os
import stat
from pathlib import Path
from typing import Final

from ports.history import Change, ChangeKind


class Place:
    """Where a repository stands for a root: its top, the root's path inside it ('' or 'a/b/') and the
    segments from the root down to the top (a repository inside the root, such as a mod folder's)."""

    __slots__ = ("control", "offset", "prefix", "top")

    def __init__(self, top: Path, prefix: str, offset: tuple[str, ...], control: Path | None = None) -> None:
        self.top, self.prefix, self.offset = top, prefix, offset
        self.control = control or top / ".git"
        """The repository's own folder: `.git` at its top, or, for a submodule, the one its `.git` names."""

    def inside(self, parts: tuple[str, ...]) -> bytes:
        """The repository path of root-relative `parts`."""
        return self.text(parts).encode()

    def text(self, parts: tuple[str, ...]) -> str:
        """The repository path of root-relative `parts`, as text (a name that is not UTF-8 kept as found)."""
        return self.prefix + "/".join(parts[len(self.offset) :])

    def changes(self, found: dict[str, ChangeKind]) -> list[Change]:
        """Root-relative changes from repository paths, leaving out those outside the root."""
        return sorted(
            (
                Change((*self.offset, *path[len(self.prefix) :].split("/")), kind)
                for path, kind in found.items()
                if path.startswith(self.prefix)
            ),
            key=lambda change: change.parts,
        )


def holding(base: Path, kept: tuple[Path, str] | None, folder: tuple[str, ...]) -> Place | None:
    """The deepest repository whose top lies on the way from the root at `base` (its resolved path) down
    to `folder` (never through a link), else the one holding the root (`kept`: its `root_place`). A
    submodule is a repository of its own; below any other `.git` file nothing is served, rather than the
    repository around it."""
    deepest: Place | None = None
    here = base
    for depth in range(len(folder) + 1):
        if depth:
            here = here / folder[depth - 1]
            if not _is_plain_dir(here):
                break
        marker = _git_marker(here)
        if marker is None:
            continue
        above = deepest.control if deepest is not None else None
        control = here / ".git" if marker == "dir" else _submodule_control(here, above)
        if control is None:
            return None
        deepest = Place(here, "", folder[:depth], control)
    if deepest is not None and deepest.offset:
        return deepest
    return Place(kept[0], kept[1], ()) if kept is not None else None


def _git_marker(folder: Path) -> str | None:
    """What `.git` in `folder` is: "dir" (a repository's top), "file" (a worktree or submodule pointer,
    or anything else standing there), or None."""
    try:
        mode = os.lstat(folder / ".git").st_mode
    except OSError:
        return None
    return "dir" if stat.S_ISDIR(mode) else "file"


_POINTER_LIMIT: Final = 4096
_POINTER_FLAGS: Final = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC


def _submodule_control(folder: Path, above: Path | None) -> Path | None:
    """The repository folder a submodule's `.git` file names, when it lies in the `modules` folder of the
    repository above (`above`: that repository's own folder), as `git submodule` makes it; None for any
    other `.git` file (a linked worktree's, or one naming a repository elsewhere on the host)."""
    if above is None:
        return None
    try:
        fd = os.open(folder / ".git", _POINTER_FLAGS)
    except OSError:
        return None
    try:
        data = os.read(fd, _POINTER_LIMIT) if stat.S_ISREG(os.fstat(fd).st_mode) else b""
    except OSError:
        return None
    finally:
        os.close(fd)
    if not data.startswith(b"gitdir: "):
        return None
    named = Path(os.path.realpath(folder / os.fsdecode(data[len(b"gitdir: ") :].strip())))
    modules = Path(os.path.realpath(above / "modules"))
    return named if named.is_relative_to(modules) and (named / "HEAD").is_file() else None


def _is_plain_dir(path: Path) -> bool:
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False


def root_place(resolved: Path) -> tuple[Path, str] | None:
    """The repository whose top is the (resolved) root itself, and the root's path inside it (''). A
    repository whose top lies above a root is never that root's (SPEC §7): its history is the operator's
    checkout, not the root's, and committing there would commit into it."""
    return (resolved, "") if _git_marker(resolved) == "dir" else None
