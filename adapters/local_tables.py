"""The survey of a folder as one table: each entry's path → its lstat facts (see `local_survey` for how
a folder is opened and listed), and, given a `Kept` and marks, each folder's listing kept for the next
survey of the same folder, which lists again only the folders whose mark saw something happen since
(adapters.survey_marks).

What holds: a table from kept listings equals the table a fresh walk would make, for every folder whose
mark vouches for it. A folder is listed afresh when it has no mark, its mark saw an event, or it holds a
file with a second name or a special file. A mark is on a folder, not on a name: a folder renamed, moved
or removed has an event on its own mark, but the folders below it have none, so a kept listing below a
folder listed afresh is used only while its parent's new listing names the same folder (inode) there. A
second name made since a folder was listed sends that folder no event: when a fresh listing finds a file
with a second name, the kept listings holding the same file are listed again in a second walk. A
folder's descriptor is opened only to list it or one below it, from its parent's, with O_NOFOLLOW, as a
fresh walk opens it.
"""

import os
import stat
import threading
from collections.abc import Callable

from attrs import define, field

from adapters.local_survey import KINDS, enter, entries, link
from adapters.survey_marks import SurveyMarks
from ports.errors import TooLarge, Unavailable
from ports.files import SURVEY_DEPTH, Kind, SurveyRow, WholeFolder

_DIR_ROW: SurveyRow = ("dir", 0, 0, 0, 0, None, None)
_IFMT, _IFREG = 0o170000, stat.S_IFREG
_Filters = tuple[Callable[[tuple[str, ...], Kind], bool], WholeFolder | None]


@define(slots=True, eq=False)
class _Listing:
    """One folder as it was listed: its entries' rows by name, its folders' inodes by name (as the listing
    names them), and its own inode as its parent's listing named it (0 for the surveyed folder)."""

    mark: int | None
    listed: int  # the tick of the drain it was listed after
    rows: dict[str, SurveyRow]
    folders: dict[str, int]
    inode: int
    restless: bool  # listed at every survey: a file with a second name, or a special file, is in it
    names: list[str] = field(init=False)
    keyed: tuple[str, dict[str, SurveyRow]] | None = None  # its rows under the last prefix asked

    def __attrs_post_init__(self) -> None:
        self.names = list(self.rows)

    def under(self, prefix: str) -> dict[str, SurveyRow]:
        if self.keyed is None or self.keyed[0] != prefix:
            self.keyed = (prefix, {prefix + name: row for name, row in self.rows.items()})
        return self.keyed[1]

    def holds(self, inodes: set[int]) -> bool:
        """Whether a file of it is one of `inodes`."""
        return any(row[0] == "file" and row[4] in inodes for row in self.rows.values())


@define(slots=True)
class Kept:
    """The listings of one surveyed folder (pinned by its device and inode), by their paths below it
    (`""` the folder itself, else each folder's parts joined and ended by `/`)."""

    identity: tuple[int, int]
    listings: dict[str, _Listing] = field(factory=dict)
    lock: threading.Lock = field(factory=threading.Lock)  # held by the survey that takes and keeps them

    def marks(self) -> set[int]:
        return {listing.mark for listing in self.listings.values() if listing.mark is not None}


class _Frame:
    """One folder of the walk: its descriptor (None while nothing below it needs listing), its parts and
    path, its listing, whether it was listed in this survey, and its folders left to enter."""

    __slots__ = ("fd", "fresh", "listing", "name", "parts", "path", "pending")

    def __init__(
        self, fd: int | None, parts: tuple[str, ...], path: str, listing: _Listing, *, fresh: bool
    ) -> None:
        self.fd, self.parts, self.path, self.listing, self.fresh = fd, parts, path, listing, fresh
        self.name = parts[-1] if parts else ""
        self.pending: list[str] = []


class _Walk:
    """One survey: the listings kept from the last one (`before`), those it uses (`now`), its marks, and
    the inodes of the files with a second name its fresh listings found."""

    def __init__(self, kept: Kept | None, marks: SurveyMarks | None) -> None:
        self.tick = marks.drain() if marks is not None and kept is not None else None
        self.marks = marks if self.tick is not None else None
        self.before = kept.listings if kept is not None and self.marks is not None else {}
        self.now: dict[str, _Listing] = {}
        self.kept: set[_Listing] = set()  # the listings of `before` this survey took as they were
        self.second: set[int] = set()

    def vouched(self, old: _Listing | None) -> _Listing | None:
        """`old`, where its mark saw nothing since it was listed and it is listed afresh by no rule."""
        if (
            old is None
            or old.restless
            or self.marks is None
            or not self.marks.unchanged(old.mark, old.listed)
        ):
            return None
        return old

    def listed(self, fd: int, path: str, inode: int) -> _Listing:
        """The open folder `fd` listed now, its mark taken first (what happens after the listing is seen
        by the next drain)."""
        mark = self.marks.mark(fd) if self.marks is not None else None
        rows, folders, second, special = _listed(fd)
        self.second |= second
        listing = _Listing(mark, self.tick or 0, rows, folders, inode, bool(second) or special)
        self.now[path] = listing
        return listing

    def top(self, fd: int, here: tuple[str, ...]) -> _Frame:
        kept = self.vouched(self.before.get(""))
        if kept is None:
            return _Frame(fd, here, "", self.listed(fd, "", 0), fresh=True)
        self.now[""] = kept
        self.kept.add(kept)
        return _Frame(fd, here, "", kept, fresh=False)

    def child(self, frames: list[_Frame], name: str) -> _Frame | None:
        """The frame of the folder `name` of the last frame's folder: its kept listing where it is vouched
        for and, when its parent was listed afresh, is still the folder of that name (a folder renamed or
        exchanged above it has an event on its own mark, not on the folders below it), else listed afresh
        (None: it became a link or went since its parent was listed: skipped, never followed)."""
        parent = frames[-1]
        path, inode = parent.path + name + "/", parent.listing.folders.get(name, 0)
        kept = self.vouched(self.before.get(path))
        if kept is not None and (not parent.fresh or kept.inode == inode):
            self.now[path] = kept
            self.kept.add(kept)
            return _Frame(None, (*parent.parts, name), path, kept, fresh=False)
        above = _descriptor(frames)
        fd = None if above is None else enter(above, name, depth=len(frames))
        if fd is None:
            return None
        try:
            return _Frame(fd, (*parent.parts, name), path, self.listed(fd, path, inode), fresh=True)
        except Unavailable:
            os.close(fd)
            raise

    def unsure(self) -> set[str]:
        """The kept listings that hold a file a fresh listing found with a second name: one made since they
        were listed sent them no event (the kernel tells only the folder of the new name)."""
        if not self.second:
            return set()
        return {
            path for path, listing in self.now.items() if listing in self.kept and listing.holds(self.second)
        }


def table(  # noqa: PLR0913, PLR0917 - the survey's own arguments, and what is kept between surveys
    fd: int,
    here: tuple[str, ...],
    keep: Callable[[tuple[str, ...], Kind], bool],
    above: str = "",
    whole: WholeFolder | None = None,
    kept: Kept | None = None,
    marks: SurveyMarks | None = None,
) -> dict[str, SurveyRow]:
    """Each entry's path below `fd` (its parts joined by `/`, after `above`) → (kind, size, mtime_ns,
    ctime_ns, inode, a link's target, None); a folder's row holds its kind alone. `keep` is asked of each
    entry of a folder `whole` does not answer for at once. With `kept` and `marks`, the listings this
    survey used replace `kept`'s when it ends well (the marks of those it dropped are removed). Raises
    TooLarge, Unavailable."""
    for _ in range(2):  # a second time only when kept listings turned out to hold a second-named file
        walk = _Walk(kept, marks)
        rows = _rows(walk, fd, here, above, (keep, whole))
        unsure = walk.unsure()
        if kept is not None and walk.marks is not None:
            dropped = kept.marks() - {listing.mark for listing in walk.now.values()}
            kept.listings = {path: listing for path, listing in walk.now.items() if path not in unsure}
            walk.marks.forget(dropped)
        if not unsure:
            break
    return rows


def _rows(walk: _Walk, fd: int, here: tuple[str, ...], above: str, filters: _Filters) -> dict[str, SurveyRow]:
    rows: dict[str, SurveyRow] = {}
    frames = [walk.top(fd, here)]
    frames[0].pending = _kept(frames[0].listing, here, above, filters, rows)
    try:
        _walked(walk, frames, above, filters, rows)
    finally:
        for frame in frames[1:]:
            if frame.fd is not None:
                os.close(frame.fd)
    return rows


def _walked(
    walk: _Walk, frames: list[_Frame], above: str, filters: _Filters, rows: dict[str, SurveyRow]
) -> None:
    """Depth first from the first frame, one descriptor held per level that has one; each folder's kept
    entries put in `rows`."""
    while frames:
        frame = frames[-1]
        if not frame.pending:
            frames.pop()
            if frames and frame.fd is not None:  # the first folder is the caller's to close
                os.close(frame.fd)
            continue
        if len(frames) >= SURVEY_DEPTH:
            raise TooLarge("folders nest deeper than a survey goes")
        child = walk.child(frames, frame.pending.pop())
        if child is not None:
            frames.append(child)
            child.pending = _kept(child.listing, child.parts, above + child.path, filters, rows)


def _descriptor(frames: list[_Frame]) -> int | None:
    """The descriptor of the last frame's folder, opened (with those above it that lack one) from the
    nearest one open; None when a folder on the way became a link or went meanwhile (what is below it is
    skipped, as a walk skips such a folder)."""
    start = max(index for index, frame in enumerate(frames) if frame.fd is not None)
    fd = frames[start].fd
    for index in range(start + 1, len(frames)):
        opened = enter(fd, frames[index].name, depth=index) if fd is not None else None
        if opened is None:
            return None
        frames[index].fd = fd = opened
    return fd


def _kept(
    listing: _Listing, parts: tuple[str, ...], prefix: str, filters: _Filters, rows: dict[str, SurveyRow]
) -> list[str]:
    """One folder's kept entries put in `rows`; the names of its kept folders, to enter next."""
    keep, whole = filters
    if whole is not None and whole(parts, listing.names):
        rows.update(listing.under(prefix))
        return list(listing.folders)
    folders: list[str] = []
    for name, row in listing.rows.items():
        kind = row[0]
        if keep((*parts, name), kind):  # type: ignore[arg-type]
            rows[prefix + name] = row
            if kind == "dir":
                folders.append(name)
    return folders


def _listed(fd: int) -> tuple[dict[str, SurveyRow], dict[str, int], set[int], bool]:
    """Every entry of the open folder `fd` with its row; its folders' inodes; the inodes of its files with
    a second name; whether it holds a special file (whose times move with no event: a FIFO written). An
    entry gone between the listing and its stat is left out."""
    rows: dict[str, SurveyRow] = {}
    folders: dict[str, int] = {}
    second: set[int] = set()
    special = False
    for entry in entries(fd):
        name = entry.name
        try:
            if entry.is_dir(follow_symlinks=False):
                rows[name] = _DIR_ROW
                folders[name] = entry.inode()
                continue
            info = entry.stat(follow_symlinks=False)
        except FileNotFoundError:
            continue
        except OSError as exc:
            raise Unavailable("an entry cannot be examined") from exc
        mode = info.st_mode
        if mode & _IFMT == _IFREG:  # the common case first: a regular file
            rows[name] = ("file", info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino, None, None)
            if info.st_nlink > 1:
                second.add(info.st_ino)
            continue
        kind: Kind = KINDS.get(stat.S_IFMT(mode), "special")
        target = link(name, fd) if kind == "symlink" else None
        size = info.st_size if kind != "special" else 0
        special = special or kind == "special"
        rows[name] = (kind, size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino, target, None)
    return rows, folders, second, special
