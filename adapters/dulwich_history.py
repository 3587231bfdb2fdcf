"""The History port over dulwich: HEAD and baseline-to-working-tree changes, hashing only candidates.

Git answers `status` in C; to stay within a small factor of it, this adapter does what git does, once:
the index is parsed by a `struct` reader (adapters.git_index, dulwich for anything unusual) and kept
while `.git/index` is unchanged, each commit's tree is flattened once (adapters.git_trees: kept in
memory, and on disk in the state directory when one is given), committed changes come from comparing
two flat trees, working-tree changes from one lstat per tracked file against the index's stat data
(racily clean entries are hashed), and untracked files from one scandir walk that skips ignored
folders. Only the resulting candidates are hashed, each once while its stat holds (adapters.git_worktree:
the index is never written, so what git would record in it is kept in memory instead). HEAD is read
from the refs alone. A submodule is a repository of its own (where each repository stands:
adapters.git_places). `warm` does the parsing and flattening
ahead of the first call.
"""

import stat
import threading
import time
from collections.abc import Callable, Mapping
from contextlib import closing, suppress
from datetime import UTC, datetime
from pathlib import Path

import structlog
from dulwich.errors import NotGitRepository, NotTreeError
from dulwich.object_store import tree_lookup_path
from dulwich.objects import Blob, Commit, ObjectID, SubmoduleEncountered
from dulwich.refs import HEADREF, DiskRefsContainer
from dulwich.repo import Repo

from adapters.git_ignores import SafeIgnores
from adapters.git_index import IndexUnreadable, Staged, kept_mode, read_index, staged_entry
from adapters.git_places import Place, holding, root_place
from adapters.git_trees import Flat, FlatTrees
from adapters.git_worktree import Hashed, Judged, Seen, gitlink_sha, untracked
from ports.errors import Unavailable
from ports.files import SurveyRow
from ports.history import Change, ChangeKind, CommitInfo, History, Ignores, Staging

log = structlog.get_logger()

IGNORES_FRESH = 2.0
_ANSWERS_KEPT = 1024
"""Seconds a repository's parsed ignore rules are used before they are read again."""


class DulwichHistory(History):
    """History of the repositories holding the given roots or folders in them (host paths stay in here).
    With `tree_cache` (a folder of the server's state directory), flattened trees outlive the process."""

    def __init__(self, roots: Mapping[str, Path], *, tree_cache: Path | None = None) -> None:
        self._bases = {name: Path(path).resolve() for name, path in roots.items()}
        self._places = {name: root_place(base) for name, base in self._bases.items()}
        self._indexes: dict[Path, tuple[tuple[int, int, int, int], Staged]] = {}
        self._reading = threading.Lock()
        self._read: dict[Path, tuple[Hashed, Judged]] = {}
        self._differ: dict[Path, tuple[Staged, bytes, frozenset[bytes]]] = {}
        self._trees = FlatTrees(tree_cache)
        self._ignores: dict[Path, tuple[float, SafeIgnores]] = {}
        self._ignores_of: dict[tuple[str, tuple[str, ...]], tuple[float, Ignores | None]] = {}

    def repository(self, root: str, folder: tuple[str, ...] = ()) -> tuple[str, ...] | None:
        place = self._find(root, folder)
        return place.offset if place is not None else None

    def head(self, root: str, folder: tuple[str, ...] = ()) -> str | None:
        place = self._find(root, folder)
        if place is None:
            return None
        found = _head_of(place.control)
        return found.decode("ascii") if found is not None else None

    def ignores(self, root: str, folder: tuple[str, ...] = ()) -> Ignores | None:
        now = time.monotonic()
        kept = self._ignores_of.get((root, folder))
        if kept is not None and now - kept[0] < IGNORES_FRESH:  # a listing's repeated question, answered once
            return kept[1]
        found = self._ignores_now(root, folder)
        if len(self._ignores_of) >= _ANSWERS_KEPT:
            self._ignores_of.clear()
        self._ignores_of[(root, folder)] = (now, found)
        return found

    def _ignores_now(self, root: str, folder: tuple[str, ...]) -> Ignores | None:
        place = self._find(root, folder)
        if place is None:
            return None
        manager = self._ignore_rules(place)
        if manager is None:
            return None

        def ignored(parts: tuple[str, ...], *, folder: bool) -> bool:
            path = place.text(parts)
            return bool(path) and manager.ignored(path + "/" if folder else path)

        above = place.text(folder).strip("/").split("/")
        if any(manager.ignored("/".join(above[: n + 1]) + "/") for n in range(len(above)) if above[0]):
            return None  # the folder itself lies in an ignored one: it is no part of the repository's world
        return ignored

    def _ignore_rules(self, place: Place) -> SafeIgnores | None:
        """The repository's ignore rules, read again once they are IGNORES_FRESH seconds old (a listing
        right after a .gitignore edit may still see the rules of a moment before)."""
        now = time.monotonic()
        top = place.top
        kept = self._ignores.get(top)
        if kept is not None and now - kept[0] < IGNORES_FRESH:
            return kept[1]
        if not place.control.is_dir():
            return None
        manager = SafeIgnores(str(top), str(place.control))
        self._ignores[top] = (now, manager)
        return manager

    def changes_since(
        self,
        root: str,
        baseline: str,
        folder: tuple[str, ...] = (),
        seen: Mapping[str, SurveyRow] | None = None,
    ) -> list[Change]:
        place = self._find(root, folder)
        if place is None:
            raise Unavailable("that root lies in no git repository")
        return self._since(place, baseline.encode("ascii"), folder, seen, None)

    def state(
        self, root: str, folder: tuple[str, ...] = (), seen: Mapping[str, SurveyRow] | None = None
    ) -> tuple[str | None, list[Change]]:
        place = self._find(root, folder)
        if place is None:
            return None, []
        head = _head_of(place.control)
        if head is None:
            return None, []
        return head.decode("ascii"), self._since(place, head, folder, seen, head)

    def _since(
        self,
        place: Place,
        baseline: bytes,
        folder: tuple[str, ...],
        seen: Mapping[str, SurveyRow] | None,
        now: bytes | None,
    ) -> list[Change]:
        """`changes_since` in the repository at `place`; `now`: HEAD, when just read."""
        rows = None
        if seen is not None and not place.prefix and place.offset == folder:
            rows = self._judgement(place.top)[1].rows(seen)
        opened = _Opened(place.top)
        try:
            found = self._changes(opened, place, (baseline, now), rows)
        except (OSError, KeyError, IndexUnreadable, NotGitRepository) as exc:
            raise Unavailable("the repository cannot be read") from exc
        finally:
            opened.close()
        return place.changes(found)

    def committed_since(self, root: str, baseline: str, folder: tuple[str, ...] = ()) -> list[Change]:
        place = self._find(root, folder)
        if place is not None and _head_of(place.control) == baseline.encode("ascii"):
            return []  # nothing committed since: the repository itself need not be opened
        place, repo = self._open(root, folder)
        try:
            with closing(repo):
                if repo.head() == baseline.encode("ascii"):
                    return []  # nothing committed since
                _, base = self._trees.flat(repo, baseline.encode("ascii"))
                _, head = self._trees.flat(repo, repo.head())
        except (OSError, KeyError, ValueError) as exc:
            raise Unavailable("the repository cannot be read") from exc
        found: dict[str, ChangeKind] = {}
        for path in {*base, *head}:
            kind = _kind(base.get(path), head.get(path))
            if kind is not None:
                found[path.decode("utf-8", "surrogateescape")] = kind
        return place.changes(found)

    def staged(self, root: str, folder: tuple[str, ...] = ()) -> Staging:
        place, repo = self._open(root, folder)
        try:
            with closing(repo):
                found = self._staged(repo, place.top)
        except (OSError, KeyError, IndexUnreadable) as exc:
            raise Unavailable("the repository cannot be read") from exc
        inside = place.changes(found)
        return Staging(inside, elsewhere=len(inside) < len(found))

    def warm(self) -> None:
        """Parse the index and flatten HEAD's tree of every root's repository now, so that the first
        call finds them ready (a call arriving meanwhile waits for that work rather than repeating it).
        Never raises: what fails is logged and left for the call that needs it."""
        tops = {place[0] for place in self._places.values() if place is not None}
        for top in sorted(tops):
            try:
                self._warm(top)
            except Exception:  # a background chore: a failure is for the log, never for the server
                log.warning("history.warm_failed", exc_info=True)

    def _warm(self, top: Path) -> None:
        with closing(Repo(str(top))) as repo:
            with suppress(KeyError):  # no commit yet: no tree to flatten
                self._trees.flat(repo, repo.head())
            if (top / ".git" / "index").is_file():  # none until something is staged
                self._index(lambda: repo, Path(repo.controldir()), top).folders()

    def content_at(
        self, root: str, commit: str, parts: tuple[str, ...], top: tuple[str, ...] | None = None
    ) -> bytes | None:
        place = self._find(root, parts[:-1] if top is None else top)
        if place is None or (top is not None and place.offset != top):
            return None  # the repository that was there is gone, or another stands there now
        try:
            repo = Repo(str(place.top))
        except (OSError, NotGitRepository):
            return None
        with closing(repo):
            try:
                return _blob_at(repo, commit, place.inside(parts))
            except (KeyError, ValueError, NotTreeError, SubmoduleEncountered):
                return None  # no such commit or path (any more), or a submodule's: its own repository's

    def log(self, root: str, limit: int, folder: tuple[str, ...] = ()) -> list[CommitInfo]:
        _, repo = self._open(root, folder)
        with closing(repo):
            entries = []
            for entry in repo.get_walker(max_entries=limit):
                commit = entry.commit
                when = datetime.fromtimestamp(commit.commit_time, UTC).isoformat()
                message = commit.message.decode("utf-8", "replace").splitlines()[0] if commit.message else ""
                author = commit.author.decode("utf-8", "replace")
                entries.append(CommitInfo(commit.id.decode("ascii"), message, author, when))
            return entries

    def stage(
        self, root: str, files: list[tuple[tuple[str, ...], bytes | None]], folder: tuple[str, ...] = ()
    ) -> None:
        place, repo = self._open(root, folder)
        with closing(repo):
            try:
                index = repo.open_index()
                for parts, data in files:
                    path = place.inside(parts)
                    if data is None:
                        if path in index:
                            del index[path]
                        continue
                    blob = Blob.from_string(data)
                    repo.object_store.add_object(blob)
                    index[path] = staged_entry(blob, kept_mode(index, path))
                index.write()
            except OSError as exc:
                raise Unavailable("the index cannot be written") from exc

    def commit(self, root: str, message: str, author: str, folder: tuple[str, ...] = ()) -> str:
        _, repo = self._open(root, folder)
        from dulwich import porcelain  # noqa: PLC0415 - heavy (archive, patch...): only a governed commit needs it

        with closing(repo):
            identity = author.encode("utf-8")
            try:
                sha = porcelain.commit(
                    repo, message=message.encode("utf-8"), author=identity, committer=identity
                )
            except OSError as exc:
                raise Unavailable("the commit cannot be written") from exc
            return sha.decode("ascii")

    def _find(self, root: str, folder: tuple[str, ...]) -> Place | None:
        base = self._bases.get(root)
        return None if base is None else holding(base, self._places.get(root), folder)

    def _open(self, root: str, folder: tuple[str, ...]) -> tuple[Place, Repo]:
        place = self._find(root, folder)
        if place is None:
            raise Unavailable("that root lies in no git repository")
        try:
            return place, Repo(str(place.top))
        except (OSError, NotGitRepository) as exc:
            raise Unavailable("the repository cannot be read") from exc

    def _staged(self, repo: Repo, top: Path) -> dict[str, ChangeKind]:
        _, flat = self._trees.flat(repo, repo.head())
        index = self._index(lambda: repo, Path(repo.controldir()), top)
        found: dict[str, ChangeKind] = {}
        for path in _index_vs_tree(index, flat):
            kind = _kind(flat.get(path), index.shas.get(index.key(path)))
            if kind is not None:
                found[path.decode("utf-8", "surrogateescape")] = kind
        return found

    # ------------------------------------------------------------------ the changes, git's way

    def _changes(
        self, opened: Callable[[], Repo], place: Place, commits: tuple[bytes, bytes | None], seen: Seen | None
    ) -> dict[str, ChangeKind]:
        """What changed since the baseline commit, the repository opened (`opened`) only for what no cache
        holds: HEAD is read from the refs (unless given beside the baseline, just read), and trees and
        the index are kept while they stand."""
        baseline, given = commits
        top, now = place.top, given if given is not None else _head_of(place.control)
        if now is None:
            raise KeyError("no commit yet")
        base_tree, base = self._trees.flat_of(opened, baseline)
        head_tree, head = self._trees.flat_of(opened, now)
        index = self._index(opened, place.control, top)
        candidates: set[bytes] = set()
        if base_tree != head_tree:  # committed since the baseline: two cached flat trees compared
            candidates.update(path for path, sha in head.items() if base.get(path) != sha)
            candidates.update(path for path in base if path not in head)
        candidates.update(self._index_vs_head(top, index, head_tree, head))  # staged
        hashed, judged = self._judgement(top)
        suspects, clean = judged.unstaged(index, top, hashed, seen)
        candidates.update(suspects)
        candidates.update(untracked(top, index, str(place.control), seen))
        found: dict[str, ChangeKind] = {}
        gitlinks = index.gitlinks()
        for path in candidates:
            # A file whose stat data still proves it holds what the index holds is not read again.
            if path in clean:
                now = index.shas[path]
            elif path in gitlinks:
                now = gitlink_sha(top, path, index.shas[path])
            else:
                now = hashed.sha(top, path)
            kind = _kind(base.get(path), now)
            if kind is not None:
                found[path.decode("utf-8", "surrogateescape")] = kind
        return found

    def _index_vs_head(self, top: Path, index: Staged, tree: bytes, flat: Flat) -> frozenset[bytes]:
        """The paths where the index differs from HEAD's tree, worked out again only when either changed
        (the index is kept while its file stands, a tree never changes)."""
        with self._reading:
            kept = self._differ.get(top)
        if kept is not None and kept[0] is index and kept[1] == tree:
            return kept[2]
        found = frozenset(_index_vs_tree(index, flat))
        with self._reading:
            self._differ[top] = (index, tree, found)
        return found

    def _judgement(self, top: Path) -> tuple[Hashed, Judged]:
        with self._reading:
            return self._read.setdefault(top, (Hashed(), Judged()))

    def _index(self, opened: Callable[[], Repo], control: Path, top: Path) -> Staged:
        """The repository's index, parsed again only when `.git/index` is another file or was written."""
        path = control / "index"
        with self._reading:
            info = path.stat()
            key = (info.st_mtime_ns, info.st_ctime_ns, info.st_size, info.st_ino)
            kept = self._indexes.get(top)
            if kept is not None and kept[0] == key:
                return kept[1]
            index = read_index(opened(), path)
            self._indexes[top] = (key, index)
            return index


class _Opened:
    """The repository at a top, opened at the first call (and closed by `close`), if any needs it."""

    __slots__ = ("_repo", "_top")

    def __init__(self, top: Path) -> None:
        self._top = top
        self._repo: Repo | None = None

    def __call__(self) -> Repo:
        if self._repo is None:
            self._repo = Repo(str(self._top))
        return self._repo

    def close(self) -> None:
        if self._repo is not None:
            self._repo.close()


def _head_of(control: Path) -> bytes | None:
    """The commit HEAD names in the repository whose own folder is `control` (None: no commit yet), read
    from its refs alone (opening the whole repository parses its config too: a few milliseconds a
    repository, on every open of a documents folder whose every mod is one). Raises Unavailable for a
    folder that holds no repository."""
    if not (control / "objects").is_dir():
        raise Unavailable("the repository cannot be read")
    try:
        return bytes(DiskRefsContainer(str(control))[HEADREF])
    except KeyError:
        return None  # a repository without a commit yet
    except (OSError, ValueError) as exc:
        raise Unavailable("the repository cannot be read") from exc


def _blob_at(repo: Repo, commit: str, path: bytes) -> bytes | None:
    """A regular file's bytes at a commit; None for anything else (a link's target or a submodule is no
    file content). Raises KeyError or NotTreeError when the commit or the path is not there."""
    target = repo[ObjectID(commit.encode("ascii"))]
    if not isinstance(target, Commit):
        return None
    mode, sha = tree_lookup_path(repo.object_store.__getitem__, target.tree, path)
    if not stat.S_ISREG(mode):
        return None
    blob = repo[sha]
    return blob.as_raw_string() if isinstance(blob, Blob) else None


def _index_vs_tree(index: Staged, flat: Flat) -> set[bytes]:
    shas = index.shas
    differ = {path for path, sha in shas.items() if flat.get(path) != sha}
    differ.update(path for path in flat if path not in shas)
    return differ


def _kind(base: bytes | None, now: bytes | None) -> ChangeKind | None:
    if base == now:
        return None
    if base is None:
        return "add"
    return "delete" if now is None else "modify"
