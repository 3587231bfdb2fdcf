"""The content index in its own SQLite file in the state directory (`content-index.db`), never the state
store's database: what each content (by digest) defines and mentions, and which content each file of each
source holds with its stat.

Every write is one short transaction (WAL, a busy timeout), so a governed write that updates the index
waits at most for one other short transaction. One builder at a time among the servers on the directory:
an exclusive `flock` on `content-index.lock`, taken without waiting (`builder`).
"""

import fcntl
import json
import sqlite3
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ports.content_index import Build, Defined, IndexedFile, Parsed
from ports.errors import Unavailable

_SCHEMA = """
CREATE TABLE IF NOT EXISTS contents(id INTEGER PRIMARY KEY, digest TEXT UNIQUE NOT NULL, kind TEXT NOT NULL,
    replace INTEGER NOT NULL, findings TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS defs(content INTEGER NOT NULL, kind TEXT NOT NULL, key TEXT NOT NULL,
    line INTEGER NOT NULL, language TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS defs_key ON defs(key, kind);
CREATE TABLE IF NOT EXISTS words(id INTEGER PRIMARY KEY, word TEXT UNIQUE NOT NULL);
CREATE TABLE IF NOT EXISTS mentions(word INTEGER NOT NULL, content INTEGER NOT NULL, line INTEGER NOT NULL,
    PRIMARY KEY(word, content)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS files(source TEXT NOT NULL, path TEXT NOT NULL, size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL, digest TEXT NOT NULL, PRIMARY KEY(source, path));
CREATE INDEX IF NOT EXISTS files_digest ON files(digest);
CREATE TABLE IF NOT EXISTS builds(playset TEXT PRIMARY KEY, at TEXT NOT NULL, files INTEGER NOT NULL,
    parsed INTEGER NOT NULL, seconds REAL NOT NULL);
"""
_DEFINED = """SELECT f.source, f.path, d.kind, d.key, d.line, d.language, c.replace
    FROM defs d JOIN contents c ON c.id = d.content JOIN files f ON f.digest = c.digest"""


class SqliteIndex:
    """The index at `path` (created 0600), its lock file beside it."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            path.touch(mode=0o600, exist_ok=True)
            self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None, timeout=30)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute("PRAGMA cache_size=-65536")  # 64 MiB: a build's index pages stay in memory
            self._db.executescript(_SCHEMA)
        except (sqlite3.Error, OSError) as exc:
            raise Unavailable("the content index cannot be opened") from exc
        self._lock = threading.RLock()
        self._words: dict[str, int] = {}
        self._lock_path = path.with_suffix(".lock")

    def close(self) -> None:
        self._db.close()

    def _rows(self, sql: str, args: Iterable[object] = ()) -> list[tuple[Any, ...]]:
        try:
            with self._lock:
                return list(self._db.execute(sql, tuple(args)))
        except sqlite3.Error as exc:
            raise Unavailable("the content index cannot be read") from exc

    def files(self, source: str, under: str = "") -> dict[str, IndexedFile]:
        """The indexed files of `source` (below the folder `under`), by path."""
        sql = "SELECT path, size, mtime_ns, digest FROM files WHERE source = ?"
        args: list[object] = [source]
        if under:
            sql += " AND path >= ? AND path < ?"
            args += [under + "/", under + "0"]  # "0" follows "/": every path below the folder
        return {
            str(path): IndexedFile(source, str(path), int(size), int(mtime), str(digest))
            for path, size, mtime, digest in self._rows(sql, args)
        }

    def known(self, digests: Iterable[str]) -> set[str]:
        """Those of `digests` whose content is stored."""
        wanted = list(set(digests))
        found: set[str] = set()
        for start in range(0, len(wanted), 500):
            chunk = wanted[start : start + 500]
            marks = ",".join("?" * len(chunk))
            found |= {
                str(row[0])
                for row in self._rows(f"SELECT digest FROM contents WHERE digest IN ({marks})", chunk)  # noqa: S608 - marks only
            }
        return found

    def update(
        self, source: str, files: list[IndexedFile], contents: dict[str, Parsed], gone: list[str]
    ) -> None:
        """Store contents, set file rows and drop gone ones, in one transaction."""
        try:
            with self._lock:
                self._db.execute("BEGIN IMMEDIATE")
                try:
                    self._store(contents)
                    self._db.executemany(
                        "INSERT OR REPLACE INTO files VALUES (?, ?, ?, ?, ?)",
                        [(f.source, f.path, f.size, f.mtime_ns, f.digest) for f in files],
                    )
                    self._db.executemany(
                        "DELETE FROM files WHERE source = ? AND path = ?", [(source, path) for path in gone]
                    )
                    self._db.execute("COMMIT")
                except BaseException:
                    self._db.execute("ROLLBACK")
                    self._words.clear()  # ids handed out in the rolled-back transaction are void
                    raise
        except sqlite3.Error as exc:
            raise Unavailable("the content index cannot be written") from exc

    def _store(self, contents: dict[str, Parsed]) -> None:
        """Store the contents not stored yet; their mentions in one sorted batch (the word index's pages
        are then each touched once)."""
        known = self.known(contents) if contents else set()
        definitions: list[tuple[int, str, str, int, str]] = []
        mentions: list[tuple[int, int, int]] = []
        for digest, parsed in contents.items():
            if digest in known:
                continue
            cursor = self._db.execute(
                "INSERT INTO contents(digest, kind, replace, findings) VALUES (?, ?, ?, ?)",
                (digest, parsed.kind, int(parsed.replace), json.dumps(parsed.findings)),
            )
            content = int(cursor.lastrowid or 0)
            definitions += [(content, kind, key, line, lang) for kind, key, line, lang in parsed.definitions]
            mentions += [(self._word(word), content, line) for word, line in parsed.mentions]
        self._db.executemany("INSERT INTO defs VALUES (?, ?, ?, ?, ?)", definitions)
        mentions.sort()
        self._db.executemany("INSERT OR IGNORE INTO mentions VALUES (?, ?, ?)", mentions)

    def _word(self, word: str) -> int:
        found = self._words.get(word)
        if found is None:
            row = self._db.execute("SELECT id FROM words WHERE word = ?", (word,)).fetchone()
            if row is None:
                row = (self._db.execute("INSERT INTO words(word) VALUES (?)", (word,)).lastrowid,)
            found = self._words[word] = int(row[0])
        return found

    def defined(self, sources: list[str], key: str, kind: str | None = None) -> list[Defined]:
        """Every definition of `key` (of `kind`) in files of `sources`."""
        marks = ",".join("?" * len(sources))
        sql = f"{_DEFINED} WHERE d.key = ? AND f.source IN ({marks})"
        args: list[object] = [key, *sources]
        if kind is not None:
            sql += " AND d.kind = ?"
            args.append(kind)
        return [_defined(row) for row in self._rows(sql, args)]

    def defined_in(self, source: str, path: str) -> list[Defined]:
        """Every definition in one file of one source."""
        sql = f"{_DEFINED} WHERE f.source = ? AND f.path = ?"
        return [_defined(row) for row in self._rows(sql, [source, path])]

    def definitions(self, sources: list[str], kind: str | None = None) -> Iterator[Defined]:
        """Every definition in files of `sources` (of `kind`), by kind and key."""
        marks = ",".join("?" * len(sources))
        sql = f"{_DEFINED} WHERE f.source IN ({marks})"
        args: list[object] = [*sources]
        if kind is not None:
            sql += " AND d.kind = ?"
            args.append(kind)
        yield from (_defined(row) for row in self._rows(sql + " ORDER BY d.kind, d.key", args))

    def mentions(self, sources: list[str], word: str) -> list[tuple[str, str, int]]:
        """(source, path, first line) of every file of `sources` that mentions `word`."""
        marks = ",".join("?" * len(sources))
        sql = f"""SELECT f.source, f.path, m.line FROM words w JOIN mentions m ON m.word = w.id
            JOIN contents c ON c.id = m.content JOIN files f ON f.digest = c.digest
            WHERE w.word = ? AND f.source IN ({marks}) ORDER BY f.source, f.path"""  # noqa: S608 - marks only
        return [(str(s), str(p), int(line)) for s, p, line in self._rows(sql, [word, *sources])]

    def findings(self, source: str, path: str) -> list[tuple[str, int, str]]:
        """The parser's findings in one indexed file."""
        sql = (
            "SELECT c.findings FROM files f JOIN contents c ON c.digest = f.digest "
            "WHERE source = ? AND path = ?"
        )
        rows = self._rows(sql, [source, path])
        return [(str(c), int(n), str(d)) for c, n, d in json.loads(str(rows[0][0]))] if rows else []

    def mentioned_outside(self, sources: list[str], word: str, source: str, path: str) -> bool:
        """Whether a file of `sources` other than `path` of `source` mentions `word`: the first one found."""
        marks = ",".join("?" * len(sources))
        sql = f"""SELECT 1 FROM words w JOIN mentions m ON m.word = w.id
            JOIN contents c ON c.id = m.content JOIN files f ON f.digest = c.digest
            WHERE w.word = ? AND f.source IN ({marks}) AND NOT (f.source = ? AND f.path = ?)
            LIMIT 1"""  # noqa: S608 - marks only
        return bool(self._rows(sql, [word, *sources, source, path]))

    @contextmanager
    def builder(self) -> Iterator[bool]:
        """Hold the builder's place among every server on the directory; True when this one got it."""
        with self._lock_path.open("a") as handle:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                yield False
                return
            try:
                yield True
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    def record_build(self, build: Build) -> None:
        """Keep what a finished build did."""
        row = (build.playset, build.at, build.files, build.parsed, build.seconds)
        try:
            with self._lock:
                self._db.execute("INSERT OR REPLACE INTO builds VALUES (?, ?, ?, ?, ?)", row)
        except sqlite3.Error as exc:
            raise Unavailable("the content index cannot be written") from exc

    def last_build(self, playset: str) -> Build | None:
        """The last finished build of `playset`."""
        rows = self._rows(
            "SELECT playset, at, files, parsed, seconds FROM builds WHERE playset = ?", [playset]
        )
        if not rows:
            return None
        name, at, files, parsed, seconds = rows[0]
        return Build(str(name), str(at), int(files), int(parsed), float(seconds))


def _defined(row: tuple[Any, ...]) -> Defined:
    source, path, kind, key, line, language, replace = row
    return Defined(str(source), str(path), str(kind), str(key), int(line), str(language), bool(replace))
