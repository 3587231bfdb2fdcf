"""Flattened git trees: every non-tree entry's path and id under a commit's tree, built once and kept.

The most recently used flat trees stay in memory, keyed by tree id (trees never change): eight always,
and up to one per repository of a folder of many (each mod its own), within a bound on their entries.
With a folder (the server's state directory, never inside a root), the raw tree objects a commit needs
are also kept on disk, one file per commit id, so a new process flattens a known commit without the
object store. Such a file is
never trusted: every tree taken from it must hash to the id its parent (or the commit) names, so a
corrupt, stale or foreign file can only be ignored, never change the answer. Files are written
atomically, and only the STORED most recently used are kept.
"""

import hashlib
import os
import stat
import struct
import tempfile
import threading
import time
import zlib
from collections import OrderedDict
from collections.abc import Callable
from contextlib import suppress
from pathlib import Path
from typing import Final

import structlog
from dulwich.object_store import iter_tree_contents
from dulwich.objects import Commit, ObjectID, parse_tree
from dulwich.repo import Repo

log = structlog.get_logger()

KEPT: Final = 8
"""Flat trees always kept in memory (the most recently used)."""
MOST: Final = 64
"""Flat trees kept in memory at most: one per repository of a documents folder whose every mod is one."""
ENTRIES: Final = 250_000
"""Entries of the flat trees kept beyond the KEPT most recent, at most."""
COMMITS: Final = 4096
"""Commits whose tree ids are kept in memory."""
STORED: Final = 16
"""Commits whose trees are kept on disk."""
LARGEST: Final = 64 * 1024 * 1024
"""Bytes of raw trees a commit may need to be kept on disk (and read back)."""
_MAGIC: Final = b"ck3raven trees 1\n"
_LENGTH: Final = struct.Struct(">L")
_TREE: Final = 2
_FOLDER: Final = 0o40000
_KIND: Final = 0o170000
_SUFFIX: Final = ".trees"
_ABANDONED: Final = 3600.0
"""Seconds after which a temporary file in the folder is taken for a crashed write's."""

Flat = dict[bytes, bytes]
"""Repository path -> hex id, for every blob, link and submodule under a tree."""


class NotATree(Exception):
    """A tree entry names an object that is not a tree, or a tree holds a name git never writes."""


class FlatTrees:
    """Flat trees of commits; `folder`, when given, keeps the raw trees of recent commits on disk."""

    def __init__(self, folder: Path | None = None) -> None:
        self._folder = folder
        self._flat: OrderedDict[bytes, Flat] = OrderedDict()
        self._trees_of: dict[bytes, ObjectID] = {}
        self._lock = threading.Lock()

    def flat(self, repo: Repo, commit_id: bytes) -> tuple[ObjectID, Flat]:
        """The commit's tree id and its flat tree (KeyError when the commit or a tree is missing)."""
        return self.flat_of(lambda: repo, commit_id)

    def flat_of(self, opened: Callable[[], Repo], commit_id: bytes) -> tuple[ObjectID, Flat]:
        """As `flat`, with the repository opened (`opened`) only for what is not known yet: a commit's tree
        id is kept once read (a commit never changes), so a known commit's kept tree needs no repository."""
        tree = self._trees_of.get(commit_id)
        if tree is None:
            commit = opened()[ObjectID(commit_id)]
            if not isinstance(commit, Commit):
                raise KeyError("not a commit")
            tree = ObjectID(commit.tree)
            with self._lock:
                if len(self._trees_of) >= COMMITS:
                    self._trees_of.clear()
                self._trees_of[commit_id] = tree
        with self._lock:
            found = self._flat.get(tree)
            if found is None:
                found = self._build(opened(), commit_id, tree)
                self._flat[tree] = found
                self._trim()
            else:
                self._flat.move_to_end(tree)
        return tree, found

    def _trim(self) -> None:
        """Forget the least recently used flat trees beyond KEPT while they are more than MOST or hold
        more than ENTRIES entries in all."""
        held = sum(len(flat) for flat in self._flat.values())
        while len(self._flat) > KEPT and (len(self._flat) > MOST or held > ENTRIES):
            _, dropped = self._flat.popitem(last=False)
            held -= len(dropped)

    def _build(self, repo: Repo, commit_id: bytes, tree: ObjectID) -> Flat:
        kept = self._kept(commit_id)
        if kept is not None:
            try:
                flat = walk(tree, kept.__getitem__)[0]
            except (NotATree, KeyError, ValueError):
                log.info("history.tree_cache_ignored", commit=commit_id.decode("ascii"))
            else:
                self._used(commit_id)
                return flat
        try:
            flat, raws = walk(tree, _reader(repo))
        except (NotATree, ValueError):
            # Something odd in the object store: dulwich's own walk gives its own answer or error.
            return {e.path: e.sha for e in iter_tree_contents(repo.object_store, tree) if e.path and e.sha}
        self._keep(commit_id, raws)
        return flat

    # ------------------------------------------------------------------ the disk copy

    def _path(self, commit_id: bytes) -> Path | None:
        if self._folder is None:
            return None
        return self._folder / (commit_id.decode("ascii") + _SUFFIX)

    def _kept(self, commit_id: bytes) -> dict[bytes, bytes] | None:
        """The raw trees kept for a commit, by the id each one hashes to (so none can pass for another)."""
        path = self._path(commit_id)
        if path is None:
            return None
        try:
            with path.open("rb") as file:
                if not stat.S_ISREG(os.fstat(file.fileno()).st_mode):
                    return None
                data = file.read(LARGEST + 1)
        except OSError:
            return None
        return raw_trees(data)

    def _used(self, commit_id: bytes) -> None:
        """Mark a kept file as just used: the newest STORED used or written are the ones kept."""
        path = self._path(commit_id)
        if path is not None:
            with suppress(OSError):
                os.utime(path)

    def _keep(self, commit_id: bytes, raws: list[bytes]) -> None:
        path = self._path(commit_id)
        if path is None or sum(len(raw) for raw in raws) > LARGEST or not path.parent.parent.is_dir():
            return  # nothing to keep in, or too much: the state directory itself is never created here
        try:
            path.parent.mkdir(mode=0o700, exist_ok=True)
            _write_atomically(path, _MAGIC + b"".join(_LENGTH.pack(len(raw)) + raw for raw in raws))
            _prune(path.parent)
        except OSError as exc:
            log.warning("history.tree_cache_unwritable", problem=type(exc).__name__)


def walk(tree: ObjectID, raw_of: Callable[[bytes], bytes]) -> tuple[Flat, list[bytes]]:
    """The flat tree under `tree` and every raw tree object read on the way. A tree no git writes (a
    name twice, empty or holding a '/', a folder mode other than 40000) raises NotATree: dulwich's own
    walk is the judge of such trees."""
    flat: Flat = {}
    raws: list[bytes] = []
    todo: list[tuple[bytes, bytes]] = [(b"", tree)]
    while todo:
        path, sha = todo.pop()
        raw = raw_of(sha)
        raws.append(raw)
        prefix = path + b"/" if path else b""
        entries = list(parse_tree(raw, 20))
        names = [entry[0] for entry in entries]
        if len(set(names)) != len(names) or b"" in names or b"/" in b"\0".join(names):
            raise NotATree(sha.decode("ascii"))
        for name, mode, child in entries:
            if mode == _FOLDER:
                todo.append((prefix + name, child))
            elif mode & _KIND == _FOLDER:
                raise NotATree(sha.decode("ascii"))
            else:
                flat[prefix + name] = child
    return flat, raws


def raw_trees(data: bytes) -> dict[bytes, bytes] | None:
    """The raw trees of a kept file, by the hex id each hashes to; None when it is not such a file."""
    if not data.startswith(_MAGIC) or len(data) > LARGEST:
        return None
    found: dict[bytes, bytes] = {}
    position = len(_MAGIC)
    while position < len(data):
        if position + _LENGTH.size > len(data):
            return None
        (size,) = _LENGTH.unpack_from(data, position)
        raw = data[position + _LENGTH.size : position + _LENGTH.size + size]
        if len(raw) != size:
            return None
        found[tree_id(raw)] = raw
        position += _LENGTH.size + size
    return found


def tree_id(raw: bytes) -> bytes:
    """The hex id git gives a tree object with this content."""
    return hashlib.sha1(b"tree %d\0" % len(raw) + raw, usedforsecurity=False).hexdigest().encode()


def _reader(repo: Repo) -> Callable[[bytes], bytes]:
    """Raw trees from the repository: a loose object is read directly (one open, one inflate); anything
    else (packed, in an alternate, unreadable) through dulwich's object store."""
    store = repo.object_store
    loose = os.fsencode(getattr(store, "path", "")) or None

    def raw_of(sha: bytes) -> bytes:
        if loose is not None:
            raw = _loose_tree(loose, sha)
            if raw is not None:
                return raw
        kind, raw = store.get_raw(ObjectID(sha))
        if kind != _TREE:
            raise NotATree(sha.decode("ascii"))
        return raw

    return raw_of


def _loose_tree(objects: bytes, sha: bytes) -> bytes | None:
    """A loose tree object's content, or None when there is no such loose object or it is not a tree
    that hashes to its id (dulwich then looks, and judges)."""
    try:
        with open(objects + b"/" + sha[:2] + b"/" + sha[2:], "rb") as file:  # noqa: PTH123 - bytes path
            data = zlib.decompress(file.read())
    except (OSError, zlib.error):
        return None
    header, _, raw = data.partition(b"\0")
    return raw if header == b"tree %d" % len(raw) and tree_id(raw) == sha else None


def _write_atomically(path: Path, data: bytes) -> None:
    handle, temporary = tempfile.mkstemp(prefix=".", suffix=".tmp", dir=path.parent)  # 0600
    try:
        with os.fdopen(handle, "wb") as file:
            file.write(data)
        Path(temporary).replace(path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _prune(folder: Path) -> None:
    """Keep the STORED newest files; the rest go, and so do temporary files a crash left behind."""
    files = [entry for entry in os.scandir(folder) if entry.is_file(follow_symlinks=False)]
    kept = sorted(
        (entry for entry in files if entry.name.endswith(_SUFFIX)),
        key=lambda entry: entry.stat(follow_symlinks=False).st_mtime_ns,
        reverse=True,
    )
    stale = time.time() - _ABANDONED
    left = [e for e in files if e.name.endswith(".tmp") and e.stat(follow_symlinks=False).st_mtime < stale]
    for entry in (*kept[STORED:], *left):
        Path(entry.path).unlink(missing_ok=True)
