"""The History port over dulwich: HEAD and baseline-to-working-tree changes, hashing only candidates.

Candidates come from the index against the baseline tree (committed and staged work), the index's stat
cache against the disk (unstaged edits and deletions) and the untracked walk; only those paths are
compared with the baseline, so a large clean repository costs a stat walk, not a hashing pass.
"""

import os
from collections.abc import Mapping
from contextlib import closing
from datetime import UTC, datetime
from pathlib import Path

from dulwich import porcelain
from dulwich.errors import NotTreeError
from dulwich.index import get_unstaged_changes
from dulwich.object_store import tree_lookup_path
from dulwich.objects import Blob, Commit, ObjectID
from dulwich.porcelain import get_untracked_paths
from dulwich.repo import Repo

from ports.errors import Unavailable
from ports.history import Change, ChangeKind, CommitInfo, History


class DulwichHistory(History):
    """History of the repositories holding the given roots (host paths stay in here)."""

    def __init__(self, roots: Mapping[str, Path]) -> None:
        self._places = {name: _place(Path(path)) for name, path in roots.items()}

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
        place = self._places.get(root)
        if place is None:
            return []
        top, prefix = place
        try:
            with closing(Repo(str(top))) as repo:
                found = _changes(repo, top, baseline.encode("ascii"))
        except (OSError, KeyError) as exc:
            raise Unavailable("the repository cannot be read") from exc
        return _under(prefix, found)

    def staged(self, root: str) -> list[Change]:
        _, prefix, repo = self._open(root)
        with closing(repo):
            head = repo[repo.head()]
            assert isinstance(head, Commit)  # noqa: S101 - HEAD of a repository is a commit
            index = repo.open_index()
            paths = {new or old for (old, new), _, _ in index.changes_from_tree(repo.object_store, head.tree)}
            found = {
                p: k for p in paths if p is not None and (k := _compare_index(repo, index, head.tree, p))
            }
        return _under(prefix, {p.decode("utf-8", "surrogateescape"): k for p, k in found.items()})

    def content_at(self, root: str, commit: str, parts: tuple[str, ...]) -> bytes | None:
        _, prefix, repo = self._open(root)
        with closing(repo):
            target = repo[ObjectID(commit.encode("ascii"))]
            if not isinstance(target, Commit):
                return None
            try:
                _, sha = tree_lookup_path(
                    repo.object_store.__getitem__, target.tree, (prefix + "/".join(parts)).encode()
                )
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
                entries.append(
                    CommitInfo(
                        commit.id.decode("ascii"), message, commit.author.decode("utf-8", "replace"), when
                    )
                )
            return entries

    def stage(self, root: str, paths: list[tuple[str, ...]]) -> None:
        top, prefix, repo = self._open(root)
        inside = [prefix + "/".join(parts) for parts in paths]
        present = [str(top / path) for path in inside if (top / path).exists()]
        removed = [path.encode() for path in inside if not (top / path).exists()]
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
        with closing(repo):
            identity = author.encode("utf-8")
            try:
                sha = porcelain.commit(
                    repo, message=message.encode("utf-8"), author=identity, committer=identity
                )
            except OSError as exc:
                raise Unavailable("the commit cannot be written") from exc
            return sha.decode("ascii")

    def _open(self, root: str) -> tuple[Path, str, Repo]:
        place = self._places.get(root)
        if place is None:
            raise Unavailable("that root lies in no git repository")
        top, prefix = place
        try:
            return top, prefix, Repo(str(top))
        except OSError as exc:
            raise Unavailable("the repository cannot be read") from exc


def _under(prefix: str, found: dict[str, ChangeKind]) -> list[Change]:
    return sorted(
        (
            Change(tuple(path[len(prefix) :].split("/")), kind)
            for path, kind in found.items()
            if path.startswith(prefix)
        ),
        key=lambda change: change.parts,
    )


def _compare_index(repo: Repo, index: object, tree_id: ObjectID, path: bytes) -> ChangeKind | None:
    try:
        _, base_sha = tree_lookup_path(repo.object_store.__getitem__, tree_id, path)
    except (KeyError, NotTreeError):
        base_sha = None
    in_index = path in index  # type: ignore[operator]
    if not in_index:
        return "delete" if base_sha is not None else None
    if base_sha is None:
        return "add"
    return "modify" if index[path].sha != base_sha else None  # type: ignore[index]


def _place(root: Path) -> tuple[Path, str] | None:
    """The repository top holding `root`, and the root's path inside it ('' or 'a/b/')."""
    resolved = root.resolve()
    for candidate in (resolved, *resolved.parents):
        if (candidate / ".git").is_dir():
            inside = resolved.relative_to(candidate).as_posix()
            return candidate, "" if inside == "." else inside + "/"
    return None


def _changes(repo: Repo, top: Path, baseline: bytes) -> dict[str, ChangeKind]:
    commit = repo[ObjectID(baseline)]
    if not isinstance(commit, Commit):
        raise KeyError("the baseline is not a commit")
    tree_id = commit.tree
    index = repo.open_index()
    candidates: set[bytes] = set()
    for (old, new), _, _ in index.changes_from_tree(repo.object_store, tree_id):
        candidates.add(new or old)  # type: ignore[arg-type]
    candidates.update(get_unstaged_changes(index, str(top)))
    untracked = get_untracked_paths(str(top), str(top), index, exclude_ignored=True, untracked_files="all")
    candidates.update(os.fsencode(path) for path in untracked)
    found: dict[str, ChangeKind] = {}
    for path in candidates:
        kind = _compare(repo, top, tree_id, path)
        if kind is not None:
            found[path.decode("utf-8", "surrogateescape")] = kind
    return found


def _compare(repo: Repo, top: Path, tree_id: ObjectID, path: bytes) -> ChangeKind | None:
    try:
        _, base_sha = tree_lookup_path(repo.object_store.__getitem__, tree_id, path)
    except (KeyError, NotTreeError):
        base_sha = None
    disk = top / os.fsdecode(path)
    if not disk.is_file() or disk.is_symlink():
        return "delete" if base_sha is not None else None
    if base_sha is None:
        return "add"
    return "modify" if Blob.from_string(disk.read_bytes()).id != base_sha else None
