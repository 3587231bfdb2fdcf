"""The survey of a folder of the local filesystem: every entry below it with its lstat facts.

One `scandir` per folder from a descriptor opened with O_NOFOLLOW (a folder swapped for a link between
the listing and the open is skipped, never followed), one lstat per entry (the directory entry's own stat,
which never follows a link), and a link's target text read relative to its folder's descriptor.
"""

import os
import stat
from collections.abc import Callable, Iterator

from ports.errors import TooLarge, Unavailable
from ports.files import SURVEY_DEPTH, Kind, Stat, SurveyRow, WholeFolder

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def survey(
    fd: int, here: tuple[str, ...], keep: Callable[[tuple[str, ...], Kind], bool]
) -> Iterator[tuple[tuple[str, ...], Stat]]:
    """The entries below the open folder `fd` (whose parts are `here`), sorted, depth-first, walked with a
    stack of its own (one descriptor per level, never the interpreter's recursion). Raises TooLarge for
    folders nested deeper than SURVEY_DEPTH below `fd`. (Each folder's entries are taken in one loop, the
    next folder entered where the loop left off: a survey of a documents folder looks at every entry.)"""
    frames: list[tuple[int, tuple[str, ...], Iterator[tuple[str, os.stat_result]]]] = [
        (fd, here, iter(_listed(fd)))
    ]
    try:
        while frames:
            folder, above, entries = frames[-1]
            entered = None
            for name, info in entries:
                kind: Kind = _KINDS.get(stat.S_IFMT(info.st_mode), "special")
                parts = (*above, name)
                if not keep(parts, kind):
                    continue
                yield parts, _found(kind, info, name, folder)
                if kind != "dir":
                    continue
                entered = _enter(folder, name, depth=len(frames))
                if entered is not None:
                    frames.append((entered, parts, iter(_listing_of(entered))))
                    break  # depth first: this folder's entries before the rest of its parent's
            if entered is None:
                frames.pop()
                if frames:  # the first folder is the caller's to close
                    os.close(folder)
    finally:
        _close(frames[1:])


def _close(frames: list[tuple[int, tuple[str, ...], Iterator[tuple[str, os.stat_result]]]]) -> None:
    """Close the descriptors of the folders a survey left open (it stopped early, or failed)."""
    for folder, _, _ in frames:
        os.close(folder)


def _found(kind: Kind, info: os.stat_result, name: str, folder: int) -> Stat:
    """What the survey reports of one entry: a link with its target text, a folder or a special file
    without a size."""
    link = _link(name, folder) if kind == "symlink" else None
    size = info.st_size if kind in {"file", "symlink"} else 0
    return Stat(kind, size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino, link)


_KINDS: dict[int, Kind] = {stat.S_IFREG: "file", stat.S_IFDIR: "dir", stat.S_IFLNK: "symlink"}


def _enter(folder: int, name: str, *, depth: int) -> int | None:
    """The descriptor of the folder `name` to survey next (None for one swapped for a link since the
    listing: skipped, never followed)."""
    if depth >= SURVEY_DEPTH:
        raise TooLarge("folders nest deeper than a survey goes")
    try:
        return os.open(name, _DIR_FLAGS, dir_fd=folder)
    except OSError:
        return None


def _listing_of(fd: int) -> list[tuple[str, os.stat_result]]:
    try:
        return _listed(fd)
    except Unavailable:
        os.close(fd)
        raise


def _listed(fd: int) -> list[tuple[str, os.stat_result]]:
    """A folder's entries sorted by name, each with its lstat; an entry gone between the listing and its
    stat is left out."""
    try:
        with os.scandir(fd) as it:
            entries = sorted(it, key=_name)
            stated = [(item.name, _stat(item)) for item in entries]
            return [(name, info) for name, info in stated if info is not None]
    except OSError as exc:
        raise Unavailable("a folder cannot be listed") from exc


def _name(item: os.DirEntry[str]) -> str:
    return item.name


def _stat(item: os.DirEntry[str]) -> os.stat_result | None:
    try:
        return item.stat(follow_symlinks=False)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise Unavailable("an entry cannot be examined") from exc


def _link(name: str, fd: int) -> str | None:
    try:
        return os.readlink(name, dir_fd=fd)
    except OSError:
        return None


def table(
    fd: int,
    here: tuple[str, ...],
    keep: Callable[[tuple[str, ...], Kind], bool],
    above: str = "",
    whole: WholeFolder | None = None,
) -> dict[str, SurveyRow]:
    """What `survey` yields, as one table built in one loop per folder: each entry's path (its parts below
    `fd` joined by `/`, after `above`) → (kind, size, mtime_ns, ctime_ns, inode, a link's target, None).
    A folder's row holds its kind alone: it is known from the directory entry without a stat (folders are
    no work; what is in them is). `keep` is asked of each entry of a folder `whole` does not answer for
    at once. One descriptor is held per level, as `survey` holds them. Raises TooLarge, Unavailable."""
    rows: dict[str, SurveyRow] = {}
    frames: list[tuple[int, tuple[str, ...], str, Iterator[str]]] = []
    try:
        filters = (keep, whole)
        below = _tabled(fd, here, above, filters, rows)
        frames.append((fd, here, above, iter(below)))
        while frames:
            folder, parts, prefix, pending = frames[-1]
            name = next(pending, None)
            if name is None:
                frames.pop()
                if frames:  # the first folder is the caller's to close
                    os.close(folder)
                continue
            entered = _enter(folder, name, depth=len(frames))
            if entered is None:
                continue
            child, path = (*parts, name), prefix + name + "/"
            try:
                inner = _tabled(entered, child, path, filters, rows)
            except Unavailable:
                os.close(entered)
                raise
            frames.append((entered, child, path, iter(inner)))
    finally:
        for folder, _, _, _ in frames[1:]:
            os.close(folder)
    return rows


_DIR_ROW: SurveyRow = ("dir", 0, 0, 0, 0, None, None)
_Filters = tuple[Callable[[tuple[str, ...], Kind], bool], WholeFolder | None]


def _tabled(
    fd: int, here: tuple[str, ...], prefix: str, filters: _Filters, rows: dict[str, SurveyRow]
) -> list[str]:
    """One folder's kept entries put in `rows`; the names of its kept folders, to enter next."""
    keep, whole = filters
    entries = _entries(fd)
    if whole is not None and whole(here, [entry.name for entry in entries]):
        return _all_tabled(fd, entries, prefix, rows)
    folders: list[str] = []
    kinds, ifmt = _KINDS, stat.S_IFMT
    for entry in entries:
        name = entry.name
        try:
            if entry.is_dir(follow_symlinks=False):
                if keep((*here, name), "dir"):
                    rows[prefix + name] = _DIR_ROW
                    folders.append(name)
                continue
            info = entry.stat(follow_symlinks=False)
        except FileNotFoundError:
            continue  # gone between the listing and its stat
        except OSError as exc:
            raise Unavailable("an entry cannot be examined") from exc
        kind: Kind = kinds.get(ifmt(info.st_mode), "special")
        if not keep((*here, name), kind):
            continue
        link = _link(name, fd) if kind == "symlink" else None
        size = info.st_size if kind != "special" else 0
        rows[prefix + name] = (kind, size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino, link, None)
    return folders


def _entries(fd: int) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(fd) as listing:
            return list(listing)
    except OSError as exc:
        raise Unavailable("a folder cannot be listed") from exc


def _all_tabled(
    fd: int, entries: list[os.DirEntry[str]], prefix: str, rows: dict[str, SurveyRow]
) -> list[str]:
    """`_tabled` for a folder whose every entry is kept: no filter asked, the fewest steps per entry (a
    documents folder is mostly such folders, and this loop is most of a survey's own time)."""
    folders: list[str] = []
    for entry in entries:
        try:
            if entry.is_dir(follow_symlinks=False):
                rows[prefix + entry.name] = _DIR_ROW
                folders.append(entry.name)
                continue
            info = entry.stat(follow_symlinks=False)
        except FileNotFoundError:
            continue  # gone between the listing and its stat
        except OSError as exc:
            raise Unavailable("an entry cannot be examined") from exc
        mode = info.st_mode
        if mode & _IFMT == _IFREG:  # the common case first: a regular file
            rows[prefix + entry.name] = (
                "file",
                info.st_size,
                info.st_mtime_ns,
                info.st_ctime_ns,
                info.st_ino,
                None,
                None,
            )
            continue
        kind: Kind = _KINDS.get(stat.S_IFMT(mode), "special")
        link = _link(entry.name, fd) if kind == "symlink" else None
        size = info.st_size if kind != "special" else 0
        rows[prefix + entry.name] = (kind, size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino, link, None)
    return folders


_IFMT, _IFREG = 0o170000, stat.S_IFREG
