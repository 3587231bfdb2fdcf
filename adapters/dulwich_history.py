"""The History port over dulwich: HEAD and baseline-to-working-tree changes, hashing only candidates.

Git answers `status` in C; to stay within a small factor of it, this adapter does what git does, once:
the parsed index is kept while `.git/index` is unchanged, each tree is flattened once (trees are
immutable, so that cache never goes stale), committed changes come from comparing two cached flat
trees, working-tree changes from one lstat per tracked file against the index's stat data (racy entries
are hashed), and untracked files from one scandir walk that skips ignored folders. Only the resulting
candidates are hashed.
"""

import os
from collections import OrderedDict
from collections.abc import Mapping
from contextlib import closing
from datetime import UTC, datetime
from pathlib import Path

from dulwich.errors import NotTreeError
from dulwich.ignore import IgnoreFilterManager
from dulwich.index import Index, IndexEntry
from dulwich.object_store import iter_tree_contents, tree_lookup_path
from dulwich.objects import Blob, Commit, ObjectID
from dulwich.repo import Repo

from ports.errors import Unavailable
from ports.history import Change, ChangeKind, CommitInfo, History

_TREES_KEPT = 8


class DulwichHistory(History):
    """History of the repositories holding the given roots (host paths stay in here)."""

    def __init__(self, roots: Mapping[str, Path]) -> None:
        self._places = {name: _place(Path(path)) for name, path in roots.items()}
        self._indexes: dict[Path, tuple[tuple[int, int, int], Index]] = {}
        self._trees: OrderedDict[bytes, dict[bytes, bytes]] = OrderedDict()

    def head(self, root: str) -> str | None:
        place = self._places.get(root)
        if place is None:
            return None
        top, _ = place
        try:
            with closing(Repo(str(top))) as repo:
                return repo.head().decode("ascii")
        except KeyError:
            return None  # a repository without a commit yet
        except OSError as exc:
            raise Unavailable("the repository cannot be read") from exc

    def changes_since(self, root: str, baseline: str) -> list[Change]:
        top, prefix, repo = self._open(root)
        try:
            with closing(repo):
                found = self._changes(repo, top, baseline.encode("ascii"))
        except (OSError, KeyError) as exc:
            raise Unavailable("the repository cannot be read") from exc
        return _under(prefix, found)

    def staged(self, root: str) -> list[Change]:
        top, prefix, repo = self._open(root)
        with closing(repo):
            head = _tree_of(repo, repo.head())
            index = self._index(repo, top)
            flat = self._flat(repo, head)
            found: dict[str, ChangeKind] = {}
            for path in _index_vs_tree(index, flat):
                kind = _kind(flat.get(path), _sha_in(index, path) if path in index else None)
                if kind is not None:
                    found[path.decode("utf-8", "surrogateescape")] = kind
        return _under(prefix, found)

    def content_at(self, root: str, commit: str, parts: tuple[str, ...]) -> bytes | None:
        _, prefix, repo = self._open(root)
        with closing(repo):
            target = repo[ObjectID(commit.encode("ascii"))]
            if not isinstance(target, Commit):
                return None
            try:
                path = (prefix + "/".join(parts)).encode()
                _, sha = tree_lookup_path(repo.object_store.__getitem__, target.tree, path)
            except (KeyError, NotTreeError):
                return None
            blob = repo[sha]
            return blob.as_raw_string() if isinstance(blob, Blob) else None

    def log(self, root: str, limit: int) -> list[CommitInfo]:
        _, _, repo = self._open(root)
        with closing(repo):
            entries = []
            for entry in repo.get_walker(max_entries=limit):
                commit = entry.commit
                when = datetime.fromtimestamp(commit.commit_time, UTC).isoformat()
                message = commit.message.decode("utf-8", "replace").splitlines()[0] if commit.message else ""
                author = commit.author.decode("utf-8", "replace")
                entries.append(CommitInfo(commit.id.decode("ascii"), message, author, when))
            return entries

    def stage(self, root: str, paths: list[tuple[str, ...]]) -> None:
        top, prefix, repo = self._open(root)
        inside = [prefix + "/".join(parts) for parts in paths]
        present = [str(top / path) for path in inside if (top / path).exists()]
        removed = [path.encode() for path in inside if not (top / path).exists()]
        from dulwich import porcelain  # heavy (archive, patch...): only the governed writes need it

        with closing(repo):
            try:
                if present:
                    porcelain.add(repo, paths=present)
                if removed:
                    index = repo.open_index()
                    for path in removed:
                        if path in index:
                            del index[path]
                    index.write()
            except OSError as exc:
                raise Unavailable("the index cannot be written") from exc

    def commit(self, root: str, message: str, author: str) -> str:
        _, _, repo = self._open(root)
        from dulwich import porcelain  # see stage()

        with closing(repo):
            identity = author.encode("utf-8")
            try:
                sha = porcelain.commit(
                    repo, message=message.encode("utf-8"), author=identity, committer=identity
                )
            except OSError as exc:
                raise Unavailable("the commit cannot be written") from exc
            return sha.decode("ascii")

    # ------------------------------------------------------------------ the changes, git's way

    def _changes(self, repo: Repo, top: Path, baseline: bytes) -> dict[str, ChangeKind]:
        base_tree = _tree_of(repo, baseline)
        head_tree = _tree_of(repo, repo.head())
        index = self._index(repo, top)
        candidates: set[bytes] = set()
        base, head = self._flat(repo, base_tree), self._flat(repo, head_tree)
        if base_tree != head_tree:  # committed since the baseline: two cached flat trees compared
            candidates.update(path for path, sha in head.items() if base.get(path) != sha)
            candidates.update(path for path in base if path not in head)
        candidates.update(_index_vs_tree(index, head))  # staged
        candidates.update(_unstaged(index, top))
        candidates.update(_untracked(repo, top, index))
        found: dict[str, ChangeKind] = {}
        for path in candidates:
            kind = _kind(base.get(path), _working_sha(top, path))
            if kind is not None:
                found[path.decode("utf-8", "surrogateescape")] = kind
        return found

    def _index(self, repo: Repo, top: Path) -> Index:
        info = (top / ".git" / "index").stat()
        key = (info.st_mtime_ns, info.st_size, info.st_ino)
        kept = self._indexes.get(top)
        if kept is not None and kept[0] == key:
            return kept[1]
        index = repo.open_index()
        self._indexes[top] = (key, index)
        return index

    def _flat(self, repo: Repo, tree: ObjectID) -> dict[bytes, bytes]:
        flat = self._trees.get(tree)
        if flat is None:
            flat = {
                e.path: e.sha
                for e in iter_tree_contents(repo.object_store, ObjectID(tree))
                if e.path and e.sha
            }
            self._trees[tree] = flat
            if len(self._trees) > _TREES_KEPT:
                self._trees.popitem(last=False)
        return flat

    def _open(self, root: str) -> tuple[Path, str, Repo]:
        place = self._places.get(root)
        if place is None:
            raise Unavailable("that root lies in no git repository")
        top, prefix = place
        try:
            return top, prefix, Repo(str(top))
        except OSError as exc:
            raise Unavailable("the repository cannot be read") from exc


def _tree_of(repo: Repo, commit_id: bytes) -> ObjectID:
    commit = repo[ObjectID(commit_id)]
    if not isinstance(commit, Commit):
        raise KeyError("not a commit")
    return ObjectID(commit.tree)


def _sha_in(index: Index, path: bytes) -> bytes | None:
    """The staged blob of `path` (a conflicted entry has none)."""
    entry = index[path]
    return entry.sha if isinstance(entry, IndexEntry) else None


def _index_vs_tree(index: Index, flat: dict[bytes, bytes]) -> set[bytes]:
    shas = _shas(index)
    differ = {path for path, sha in shas.items() if flat.get(path) != sha}
    differ.update(path for path in flat if path not in shas)
    return differ


def _shas(index: Index) -> dict[bytes, bytes | None]:
    return {path: entry.sha if isinstance(entry, IndexEntry) else None for path, entry in index.items()}


def _unstaged(index: Index, top: Path) -> list[bytes]:
    """Tracked files whose stat differs from the index (or that are racily clean), and deleted ones."""
    try:
        index_time = (top / ".git" / "index").stat().st_mtime_ns
    except OSError:
        index_time = 0
    base = os.fsencode(top) + b"/"
    suspects = []
    for path, entry in index.items():
        if not isinstance(entry, IndexEntry):
            suspects.append(path)  # conflicted: look at the file itself
            continue
        try:
            info = os.lstat(base + path)
        except OSError:
            suspects.append(path)
            continue
        mtime = entry.mtime
        seconds, nanos = mtime if isinstance(mtime, tuple) else (int(mtime), 0)
        entry_ns = seconds * 1_000_000_000 + nanos
        if info.st_size != entry.size or info.st_mtime_ns != entry_ns or entry_ns >= index_time:
            suspects.append(path)
    return suspects


def _untracked(repo: Repo, top: Path, index: Index) -> list[bytes]:
    """Files in no index entry, from one walk that skips .git and ignored folders without tracked files."""
    tracked = set(index.paths())
    folders = _folders(tracked)
    ignore = IgnoreFilterManager.from_repo(repo)
    found: list[bytes] = []
    pending = [b""]
    root = os.fsencode(top)
    while pending:
        here = pending.pop()
        with os.scandir(root + b"/" + here if here else root) as entries:
            for entry in entries:
                rel = here + b"/" + entry.name if here else entry.name
                if entry.is_dir(follow_symlinks=False):
                    if rel == b".git" or (rel not in folders and ignore.is_ignored(os.fsdecode(rel) + "/")):
                        continue
                    pending.append(rel)
                elif rel not in tracked and not ignore.is_ignored(os.fsdecode(rel)):
                    found.append(rel)
    return found


def _folders(tracked: set[bytes]) -> set[bytes]:
    """Every folder that holds a tracked file, at any depth."""
    folders: set[bytes] = set()
    for path in tracked:
        folder = path
        cut = folder.rfind(b"/")
        while cut > 0:
            folder = folder[:cut]
            if folder in folders:
                break
            folders.add(folder)
            cut = folder.rfind(b"/")
    return folders


def _working_sha(top: Path, path: bytes) -> bytes | None:
    disk = top / os.fsdecode(path)
    try:
        if disk.is_symlink() or not disk.is_file():
            return None
        return bytes(Blob.from_string(disk.read_bytes()).id)
    except OSError:
        return None


def _kind(base: bytes | None, now: bytes | None) -> ChangeKind | None:
    if base == now:
        return None
    if base is None:
        return "add"
    return "delete" if now is None else "modify"


def _under(prefix: str, found: dict[str, ChangeKind]) -> list[Change]:
    return sorted(
        (
            Change(tuple(path[len(prefix) :].split("/")), kind)
            for path, kind in found.items()
            if path.startswith(prefix)
        ),
        key=lambda change: change.parts,
    )


def _place(root: Path) -> tuple[Path, str] | None:
    """The repository top holding `root`, and the root's path inside it ('' or 'a/b/')."""
    resolved = root.resolve()
    for candidate in (resolved, *resolved.parents):
        if (candidate / ".git").is_dir():
            inside = resolved.relative_to(candidate).as_posix()
            return candidate, "" if inside == "." else inside + "/"
    return None
