"""The working tree of a git repository against its index, as git status sees it: which tracked files may
have changed (one lstat each against the index's stat data; racily clean entries suspected; a submodule's
gitlink always looked at), which files no index entry holds (one scandir walk that skips .git, nested
repositories and ignored folders), the blob id of what stands at a path now (a link is its target text,
never followed), and the commit a submodule's checkout stands at; the ids of files read before are kept
while their stat holds (`Hashed`), and what a survey's rows showed of the tracked files while the rows,
the index and those ids stand (`Judged`)."""

import os
import stat
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Final

from dulwich.errors import NotGitRepository
from dulwich.objects import Blob
from dulwich.repo import Repo

from adapters.git_ignores import SafeIgnores
from adapters.git_index import Staged

_SECOND: Final = 1_000_000_000
_TYPE: Final = 0o170000
_GITLINK: Final = 0o160000
"""The file-type bits of an index entry's mode, and the type of a gitlink (a submodule's commit)."""

StatKey = tuple[str, int, int, int, int]
"""What a kept id is read under: the entry's kind, size, mtime_ns, ctime_ns and inode."""
SeenRow = tuple[str, int, int, int, int, str | None, str | None]
Seen = dict[bytes, SeenRow]
"""A survey's rows of a repository's entries, by repository path (ports.files.SurveyRow)."""
_KINDS: Final = {stat.S_IFREG: "file", stat.S_IFDIR: "dir", stat.S_IFLNK: "symlink"}


def stat_key(info: os.stat_result) -> StatKey:
    return row_key(_row(info))


def row_key(row: SeenRow) -> StatKey:
    return (row[0], row[1], row[2], row[3], row[4])


class Hashed:
    """The blob ids this process worked out for a repository's files whose stat data did not prove them
    (the index's stat data stale: files touched since, or racily clean), each with the stat it was read
    under. A file whose lstat still matches is not read again, under git's own racy-clean rule: an id is
    kept only for a file last modified (and changed) before the second in which it was read, so an edit
    in that second, keeping size and time, can never be taken for the kept content."""

    __slots__ = ("_known", "learnt")

    def __init__(self) -> None:
        self._known: dict[bytes, tuple[StatKey, bytes]] = {}
        self.learnt = 0
        """How many times an id was kept or let go: an answer worked out from the ids stands while it
        has not moved."""

    def proves(self, path: bytes, key: StatKey, sha: bytes | None) -> bool:
        """Whether the id read before under this very stat (`key`: `stat_key` or `row_key`) is `sha` (the
        file holds what the index holds)."""
        kept = self._known.get(path)
        return kept is not None and sha is not None and kept[1] == sha and kept[0] == key

    def sha(self, top: Path, path: bytes) -> bytes | None:
        """What `working_sha` answers for `path`, read again only when its stat moved or proves nothing."""
        started = time.time_ns()
        try:
            info = os.lstat(os.fsencode(top) + b"/" + path)
        except OSError:
            self._forget(path)
            return None
        key = stat_key(info)
        kept = self._known.get(path)
        if kept is not None and kept[0] == key:
            return kept[1]
        found = working_sha(top, path)
        second = started - started % _SECOND
        if found is not None and info.st_mtime_ns < second and info.st_ctime_ns < second:
            self._known[path] = (key, found)
            self.learnt += 1
        else:
            self._forget(path)
        return found

    def _forget(self, path: bytes) -> None:
        if self._known.pop(path, None) is not None:
            self.learnt += 1


class Judged:
    """A repository's working tree as last judged from a survey's rows: those rows by repository path,
    and what `unstaged` answered of them. Both stand while the survey gives the same rows, the index is
    the same parsed one and `Hashed` has learnt nothing since (a survey of a tree nobody touched gives
    equal rows, and its files then need no second look). An answer for which a file had to be stat-ed
    on its own (a tracked file the survey did not see) is never kept: that stat may move unseen."""

    __slots__ = ("_answer", "_seen")

    def __init__(self) -> None:
        self._seen: tuple[dict[str, SeenRow], Seen] | None = None
        self._answer: tuple[Staged, Seen, int, tuple[list[bytes], set[bytes]]] | None = None

    def rows(self, seen: Mapping[str, SeenRow]) -> Seen:
        """`seen` by repository path: the same object as last time while the rows are the same."""
        kept = self._seen
        if kept is not None and kept[0] == seen:
            return kept[1]
        rows = {path.encode("utf-8", "surrogateescape"): row for path, row in seen.items()}
        self._seen = (dict(seen), rows)
        return rows

    def unstaged(
        self, index: Staged, top: Path, hashed: Hashed, rows: Seen | None
    ) -> tuple[list[bytes], set[bytes]]:
        """What `unstaged` answers, worked out again only when rows, index or ids moved."""
        learnt, kept = hashed.learnt, self._answer
        if kept is not None and kept[0] is index and kept[1] is rows and kept[2] == learnt:
            return kept[3]
        answer = unstaged(index, top, hashed, rows)
        if rows is not None and index.shas.keys() <= rows.keys():
            self._answer = (index, rows, learnt, answer)
        return answer


def unstaged(
    index: Staged, top: Path, hashed: Hashed | None = None, seen: Seen | None = None
) -> tuple[list[bytes], set[bytes]]:
    """The suspects: tracked files whose stat differs from the index, or that are racily clean, deleted
    ones and conflicted ones. And the clean: regular files, in the index and on disk, whose stat data
    match and are not racy, so they hold what the index holds.

    Racily clean, as git has it: recorded in the second the index was written, or later. An edit in that
    second may keep both size and time (a coarse clock, or the edit landing between the stat and the
    index write), so such an entry's stat data prove nothing and the file is hashed, unless `hashed`
    read it under the very stat it has now and found what the index holds. A gitlink (a
    submodule) is a suspect too: what it stands for is the commit its checkout names, never a stat.
    `seen`: a survey's rows of the repository's entries, taken just before; a file with a row is judged by
    it, without a stat of its own (one without is stat-ed)."""
    written = index.written_ns - index.written_ns % _SECOND
    base = os.fsencode(top) + b"/"
    lstat, regular, shas = os.lstat, stat.S_ISREG, index.shas
    rows = seen if seen is not None else {}
    suspects = [path for path, sha in shas.items() if sha is None]  # conflicted: look at the file
    clean: set[bytes] = set()
    for path, mode, size, recorded in index.stats:
        if mode & _TYPE == _GITLINK:
            suspects.append(path)
            continue
        row = rows.get(path)
        if row is None:
            try:
                row = _row(lstat(base + path))
            except OSError:
                suspects.append(path)
                continue
        stale = row[1] != size or row[2] != recorded or recorded >= written
        if stale and (hashed is None or not hashed.proves(path, row_key(row), shas[path])):
            suspects.append(path)
        elif regular(mode) and row[0] == "file":
            clean.add(path)
    return suspects, clean


def _row(info: os.stat_result) -> SeenRow:
    kind = _KINDS.get(stat.S_IFMT(info.st_mode), "special")
    return (kind, info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino, None, None)


def untracked(top: Path, index: Staged, control: str | None = None, seen: Seen | None = None) -> list[bytes]:
    """Files in no index entry, from one walk that skips .git and ignored folders without tracked files
    (`control`: the repository's own folder, where it is not `.git` at the top: a submodule's), or, given
    `seen` (a survey's rows of the repository's own entries, none below a nested repository), from those
    rows without a walk."""
    ignore = SafeIgnores(str(top), control)
    if seen is not None:
        return _untracked_seen(seen, index.shas, index.folders(), ignore)
    return _untracked_walked(top, index, ignore)


def _untracked_walked(top: Path, index: Staged, ignore: SafeIgnores) -> list[bytes]:
    tracked, folders = index.shas, index.folders()
    found: list[bytes] = []
    pending = [b""]
    root = os.fsencode(top)
    while pending:
        here = pending.pop()
        with os.scandir(root + b"/" + here if here else root) as entries:
            for entry in entries:
                if entry.name == b".git":
                    continue  # git's own data (a folder, or a submodule's pointer to it), never work
                rel = here + b"/" + entry.name if here else entry.name
                if entry.is_dir(follow_symlinks=False):
                    if _nested_repository(entry.path):
                        continue  # another repository (or a submodule): git does not look inside
                    if rel not in folders and ignore.ignored(os.fsdecode(rel) + "/"):
                        continue
                    pending.append(rel)
                elif rel not in tracked and not ignore.ignored(os.fsdecode(rel)):
                    found.append(rel)
    return found


def _untracked_seen(
    seen: Seen, tracked: dict[bytes, bytes | None], folders: frozenset[bytes], ignore: SafeIgnores
) -> list[bytes]:
    """The walk's answer from a survey's rows: each entry but a folder in no index entry, unless it is
    ignored or lies in a folder that is ignored and holds no tracked file (each folder judged once)."""
    out: dict[bytes, bool] = {b"": False}

    def left_out(folder: bytes) -> bool:
        known = out.get(folder)
        if known is None:
            parent = folder.rpartition(b"/")[0]
            known = left_out(parent) or (folder not in folders and ignore.ignored(os.fsdecode(folder) + "/"))
            out[folder] = known
        return known

    # the entries in no index entry, by one set operation: most of a repository's entries are tracked
    return [
        path
        for path in sorted(seen.keys() - tracked.keys())
        if seen[path][0] != "dir"
        and not left_out(path.rpartition(b"/")[0])
        and not ignore.ignored(os.fsdecode(path))
    ]


def _nested_repository(path: bytes) -> bool:
    return os.path.lexists(path + b"/.git")


def working_sha(top: Path, path: bytes) -> bytes | None:
    """The blob id of what stands at `path` as git stores it: a file's content, a link's target text (a
    link is what it points at, never followed), None for anything else or nothing."""
    disk = top / os.fsdecode(path)
    try:
        if disk.is_symlink():
            return bytes(Blob.from_string(os.fsencode(disk.readlink())).id)
        if not disk.is_file():
            return None
        return bytes(Blob.from_string(disk.read_bytes()).id)
    except OSError:
        return None


UNREADABLE: Final = b"unreadable"
"""What a submodule whose checkout cannot be read stands for: no commit id, so never its recorded one."""


def gitlink_sha(top: Path, path: bytes, recorded: bytes | None) -> bytes | None:
    """What a submodule's gitlink stands for now, as git status judges it: the commit its checkout's HEAD
    names (its own working-tree changes are its own repository's business); the recorded commit for a
    folder never checked out (git counts that unchanged); the blob id of whatever else stands there;
    None for nothing."""
    disk = top / os.fsdecode(path)
    try:
        info = os.lstat(disk)
    except OSError:
        return None
    if not stat.S_ISDIR(info.st_mode):
        return working_sha(top, path)
    if not os.path.lexists(disk / ".git"):
        return recorded
    try:
        with Repo(str(disk)) as checkout:
            return bytes(checkout.head())
    except (OSError, ValueError, KeyError, NotGitRepository):
        return UNREADABLE
