"""The git index as the history adapter needs it: each path's staged blob and the stat data git recorded;
and the entries staging writes (the mode a path keeps, times left zero).

Index versions 2, 3 and 4 are parsed with `struct` in one pass. Whatever that reader does not know for
certain (another version or object format, a conflict stage, an unknown or lowercase extension such as a
split or sparse index's, a name too long for its length field, a bad checksum) is read by dulwich
instead, so the answer is always dulwich's own.
"""

import hashlib
import os
import stat
import struct
from collections.abc import Callable
from pathlib import Path
from typing import Final, final

from dulwich.errors import ChecksumMismatch
from dulwich.index import (
    ConflictedIndexEntry,
    Index,
    IndexEntry,
    UnsupportedIndexFormat,
    make_path_normalizer,
)
from dulwich.objects import S_ISGITLINK, Blob
from dulwich.repo import Repo

_SIGNATURE: Final = b"DIRC"
_CHECKSUM: Final = 20
_HEADER: Final = struct.Struct(">4sLL")
_ENTRY: Final = struct.Struct(">8xLL8xL8xL20sH")
"""ctime (skipped), mtime seconds and nanoseconds, dev and ino (skipped), mode, uid and gid (skipped),
size, blob id and flags: the 62 bytes every entry starts with."""
_FIXED: Final = 62
_EXTENDED: Final = 0x4000
_STAGES: Final = 0x3000
_NAME_LENGTH: Final = 0x0FFF
_FAST_VERSIONS: Final = (2, 3, 4)
_NANOS: Final = 1_000_000_000
_REGULAR: Final = 0o100644

Stat = tuple[bytes, int, int, int]
"""An unconflicted entry's path, mode, size and modification time (ns) as the index recorded them."""
_Entries = tuple[int, dict[bytes, bytes | None], list[Stat]]


class IndexUnreadable(Exception):
    """The index file is not one that dulwich (or this reader) can read."""


@final
class Staged:
    """What an index holds: `shas` maps every path to its staged blob id (hex; None when conflicted),
    `stats` lists the stat data of each unconflicted entry, `written_ns` is the modification time of the
    index file these entries were read from (what the racily-clean rule measures entries against).
    Paths are looked up as dulwich's Index does, folding case or Unicode form when the config says so."""

    __slots__ = ("_folded", "_folders", "_gitlinks", "_normalize", "shas", "stats", "written_ns")

    def __init__(
        self,
        shas: dict[bytes, bytes | None],
        stats: list[Stat],
        written_ns: int,
        normalize: Callable[[bytes], bytes] | None = None,
    ) -> None:
        self.shas, self.stats, self.written_ns = shas, stats, written_ns
        self._normalize = normalize
        self._folders: frozenset[bytes] | None = None
        self._gitlinks: frozenset[bytes] | None = None
        self._folded: dict[bytes, bytes] | None = None
        if normalize is not None:
            self._folded = {}
            for path in shas:
                self._folded.setdefault(normalize(path), path)

    def folders(self) -> frozenset[bytes]:
        """Every folder that holds an entry, at any depth (worked out once per index)."""
        if self._folders is None:
            found: set[bytes] = set()
            for entry in self.shas:
                folder, cut = entry, entry.rfind(b"/")
                while cut > 0:
                    folder = folder[:cut]
                    if folder in found:
                        break
                    found.add(folder)
                    cut = folder.rfind(b"/")
            self._folders = frozenset(found)
        return self._folders

    def gitlinks(self) -> frozenset[bytes]:
        """The paths of submodules: entries that record a commit, not a blob (worked out once per index)."""
        if self._gitlinks is None:
            self._gitlinks = frozenset(path for path, mode, _, _ in self.stats if S_ISGITLINK(mode))
        return self._gitlinks

    def key(self, path: bytes) -> bytes:
        """The path under which the index holds `path` (itself when it holds it as given, or nothing)."""
        if self._folded is None or self._normalize is None or path in self.shas:
            return path
        return self._folded.get(self._normalize(path), path)


def read_index(repo: Repo, path: Path) -> Staged:
    """The index of `repo` at `path`; raises OSError when it cannot be read and IndexUnreadable when its
    contents are not an index."""
    with path.open("rb") as file:
        written_ns = os.fstat(file.fileno()).st_mtime_ns
        data = file.read()
    normalize = make_path_normalizer(repo.get_config_stack())
    parsed = parse(data) if repo.object_format.oid_length == _CHECKSUM else None
    if parsed is None:
        return _by_dulwich(repo, written_ns, normalize)
    shas, stats = parsed
    return Staged(shas, stats, written_ns, normalize)


def parse(data: bytes) -> tuple[dict[bytes, bytes | None], list[Stat]] | None:
    """The entries of a SHA-1 index of version 2, 3 or 4, or None when this reader cannot be certain of
    them (dulwich then reads the file)."""
    if len(data) < _HEADER.size + _CHECKSUM:
        return None
    signature, version, count = _HEADER.unpack_from(data)
    if signature != _SIGNATURE or version not in _FAST_VERSIONS:
        return None
    try:
        found = _entries(data, version, count)
    except (struct.error, ValueError, IndexError):
        return None
    if found is None or len(found[1]) != count or not _extensions_and_checksum(data, found[0]):
        return None  # a path twice (no git writes that) is for dulwich to settle
    return found[1], found[2]


def _entries(data: bytes, version: int, count: int) -> _Entries | None:
    """Where the entries end, each path's blob id and the stat data, or None for an entry this reader
    leaves to dulwich: a conflict stage, an extended flag before version 3, a name of 4095 bytes or more,
    a version 4 prefix longer than one byte or than the previous name, an entry running into the
    checksum."""
    entries = _compressed(data, count) if version == 4 else _padded(data, count, extended=version == 3)  # noqa: PLR2004
    if entries is None or entries[0] > len(data) - _CHECKSUM:
        return None
    return entries


def _padded(data: bytes, count: int, *, extended: bool) -> _Entries | None:
    """Version 2 and 3 entries: the name's length is in the flags, and each entry is padded with NULs to
    a multiple of eight bytes."""
    unpack, shas, stats = _ENTRY.unpack_from, {}, []
    position = _HEADER.size
    for _ in range(count):
        seconds, nanos, mode, size, sha, flags = unpack(data, position)
        if flags & _STAGES or flags & _NAME_LENGTH == _NAME_LENGTH or (flags & _EXTENDED and not extended):
            return None
        start = position + (_FIXED + 2 if flags & _EXTENDED else _FIXED)
        end = start + (flags & _NAME_LENGTH)
        name = data[start:end]
        position += (end - position + 8) & ~7
        shas[name] = sha.hex().encode()
        stats.append((name, mode, size, seconds * _NANOS + nanos))
    return position, shas, stats


def _compressed(data: bytes, count: int) -> _Entries | None:
    """Version 4 entries: no padding, and each name is the previous one with a number of bytes taken off
    its end (a varint, here one byte) and a NUL-terminated suffix added."""
    unpack, shas, stats = _ENTRY.unpack_from, {}, []
    position, previous = _HEADER.size, b""
    for _ in range(count):
        seconds, nanos, mode, size, sha, flags = unpack(data, position)
        start = position + _FIXED + (2 if flags & _EXTENDED else 0)
        strip = data[start]
        if flags & _STAGES or strip & 0x80 or strip > len(previous):
            return None
        end = data.index(b"\0", start + 1)
        name = previous[: len(previous) - strip] + data[start + 1 : end]
        position = end + 1
        shas[name] = sha.hex().encode()
        stats.append((name, mode, size, seconds * _NANOS + nanos))
        previous = name
    return position, shas, stats


def _extensions_and_checksum(data: bytes, position: int) -> bool:
    """Whether the extensions after the entries are all ones dulwich reads through (four capital letters
    and a length that fits), ending exactly at a trailing checksum that is right or all zeros."""
    end = len(data) - _CHECKSUM
    while position < end:
        if position + 8 > end:
            return False
        signature = data[position : position + 4]
        if not all(65 <= letter <= 90 for letter in signature):  # noqa: PLR2004 - 'A' to 'Z'
            return False
        (size,) = struct.unpack_from(">L", data, position + 4)
        position += 8 + size
    if position != end:
        return False
    stored = data[end:]
    return (
        stored == bytes(_CHECKSUM)
        or hashlib.sha1(memoryview(data)[:end], usedforsecurity=False).digest() == stored
    )


def _by_dulwich(repo: Repo, written_ns: int, normalize: Callable[[bytes], bytes] | None) -> Staged:
    try:
        index = repo.open_index()
    except (ChecksumMismatch, UnsupportedIndexFormat, AssertionError, ValueError, struct.error) as exc:
        raise IndexUnreadable(type(exc).__name__) from exc
    shas: dict[bytes, bytes | None] = {}
    stats: list[Stat] = []
    for name, entry in index.items():
        if isinstance(entry, ConflictedIndexEntry):
            shas[name] = None
            continue
        shas[name] = entry.sha
        stats.append((name, entry.mode, entry.size, _nanos(entry)))
    return Staged(shas, stats, written_ns, normalize)


def _nanos(entry: IndexEntry) -> int:
    mtime = entry.mtime
    seconds, nanos = mtime if isinstance(mtime, tuple) else (int(mtime), 0)
    return seconds * _NANOS + nanos


def kept_mode(index: Index, path: bytes) -> int:
    """The file mode a staged path keeps (its executable bit), a plain file's when new."""
    entry = index[path] if path in index else None  # noqa: SIM401 - Index has no get()
    return entry.mode if isinstance(entry, IndexEntry) and stat.S_ISREG(entry.mode) else _REGULAR


def staged_entry(blob: Blob, mode: int) -> IndexEntry:
    """An index entry for bytes read through the file rules. Its times are zero, so git (and this
    adapter) hash the working file again instead of trusting a stat taken after the read."""
    return IndexEntry(
        ctime=(0, 0),
        mtime=(0, 0),
        dev=0,
        ino=0,
        mode=mode,
        uid=0,
        gid=0,
        size=len(blob.as_raw_string()),
        sha=blob.id,
        flags=0,
        extended_flags=0,
    )
