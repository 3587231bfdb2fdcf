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
from collections.abc import Callable, Collection, Iterable, Iterator
from contextlib import contextmanager
from itertools import chain, count, repeat
from pathlib import Path
from typing import Any, Final, TypeVar

from adapters import sqlite_index_playset as playset
from adapters.sqlite_index_schema import LOCALISATION, current, keyset_of
from ports.content_index import Build, Defined, IndexedFile, Parsed
from ports.errors import Unavailable

_EMPTY: Final = 0
"""The id of the empty name: the language of every definition that has none."""
_LOCALISATION: Final = 1
"""The id of the kind of every localisation definition."""
_T = TypeVar("_T")
_LOAD_ALL: Final = 50_000
"""A connection meeting an index of at most this many names reads them all, and then gives new names
their ids itself: a new index's build spells hundreds of thousands, each then written once."""
PAGE_BYTES: Final = 8192
"""A new index file's page size: a build's B-tree inserts split and rewrite fewer pages than at SQLite's
4,096 (measured: about a tenth less of the builder's time storing the game)."""
_FOLD_PAGES: Final = 1000
"""SQLite's own default: the write-ahead log is folded into the file once it holds this many pages."""
FOLD_SECONDS: Final = 0.5
"""How often the write-ahead log is folded into the file while a build runs."""
_PER_STATEMENT: Final = 250
"""Rows inserted by one statement of a bulk insert: Python binds, steps and resets once a statement, not
once a row (measured: a third of the cost of the build's millions of rows was that, row by row)."""


class SqliteIndex:
    """The index at `path` (created 0600), its lock file beside it."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            path.touch(mode=0o600, exist_ok=True)
            self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None, timeout=30)
            self._db.execute(f"PRAGMA page_size = {PAGE_BYTES}")  # a new file's pages: none once it has any
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute("PRAGMA cache_size=-65536")  # 64 MiB: a build's index pages stay in memory
            self._db.execute("PRAGMA temp_store=MEMORY")
            current(self._db)
        except (sqlite3.Error, OSError) as exc:
            raise Unavailable("the content index cannot be opened") from exc
        self._lock = threading.RLock()
        self._folding: tuple[threading.Event, threading.Thread] | None = None
        self._forget()
        self._lock_path = path.with_suffix(".lock")

    def _forget(self) -> None:
        """Know no name and no keyset (at first, and after a rollback: ids learnt in it are void)."""
        self._names: dict[str, int] = {}
        self._keysets: dict[bytes, int] = {}
        self._keylists: dict[bytes, int] = {}
        self._whole = False  # whether _names holds every name of the file up to id _high
        self._high = -1  # the empty name's id is 0

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

    def version(self) -> int:
        """SQLite's `data_version`: it moves when another connection commits."""
        return int(self._rows("PRAGMA data_version")[0][0])

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
                    self._forget()
                    raise
        except sqlite3.Error as exc:
            raise Unavailable("the content index cannot be written") from exc

    def _store(self, contents: dict[str, Parsed]) -> None:
        """Store the contents not stored yet: their new keysets and names first, then their rows. Rows are
        made by C loops (zip, map) from the contents' columns: a game's build stores millions."""
        known = self.known(contents) if contents else set()
        fresh = {digest: parsed for digest, parsed in contents.items() if digest not in known}
        if not fresh:
            return
        sets = {
            digest: keyset for digest, parsed in fresh.items() if (keyset := keyset_of(parsed)) is not None
        }
        held = self._held("keysets", self._keysets, {keyset.digest for keyset in sets.values()})
        new_sets = {keyset.digest: keyset for keyset in sets.values() if keyset.digest not in held}
        spelled = _spelled(parsed for digest, parsed in fresh.items() if digest not in sets)
        spelled.update(keyset.language for keyset in sets.values())
        for keyset in new_sets.values():
            spelled.update(keyset.keys)
        ids = self._ids(spelled)
        rows: list[Iterable[tuple[int, int, int]]] = []  # zips, read once by _insert: no row is kept
        lists = {keyset.digest: keyset.keylist() for keyset in new_sets.values()}
        held_lists = self._held("keylists", self._keylists, set(lists.values()))
        for keyset in new_sets.values():
            keylist = held_lists.get(lists[keyset.digest])
            if keylist is None:
                cursor = self._db.execute("INSERT INTO keylists(digest) VALUES (?)", (lists[keyset.digest],))
                held_lists[lists[keyset.digest]] = keylist = int(cursor.lastrowid or 0)
                rows.append(zip(map(ids.__getitem__, keyset.keys), repeat(keylist), count()))
            cursor = self._db.execute(
                "INSERT INTO keysets(digest, keylist, lines) VALUES (?, ?, ?)",
                (keyset.digest, keylist, keyset.spelled_lines()),
            )
            held[keyset.digest] = int(cursor.lastrowid or 0)
        _insert(self._db, "INSERT OR IGNORE INTO keylist_rows", 3, chain.from_iterable(rows))
        self._keysets.update(held)
        self._keylists.update(held_lists)
        definitions: list[Iterable[tuple[int, int, int, int, int]]] = []
        mentions: list[Iterable[tuple[int, int, int]]] = []
        for digest, parsed in fresh.items():
            keyset = sets.get(digest)
            cursor = self._db.execute(
                "INSERT INTO contents(digest, kind, replace, findings, keyset, language) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (
                    digest,
                    parsed.kind,
                    int(parsed.replace),
                    json.dumps(parsed.findings),
                    held[keyset.digest] if keyset else None,
                    ids[keyset.language] if keyset else _EMPTY,
                ),
            )
            if keyset is not None:
                continue
            content = int(cursor.lastrowid or 0)
            kinds, keys, lines, languages = parsed.defined
            named = map(ids.__getitem__, keys), map(ids.__getitem__, kinds)
            definitions.append(zip(*named, repeat(content), lines, map(ids.__getitem__, languages)))
            words, places = parsed.mentioned
            mentions.append(zip(map(ids.__getitem__, words), repeat(content), places))
        _insert(self._db, "INSERT OR IGNORE INTO def_rows", 5, chain.from_iterable(definitions))
        _insert(self._db, "INSERT OR IGNORE INTO mentions", 3, chain.from_iterable(mentions))

    def _held(self, table: str, known: dict[bytes, int], digests: set[bytes]) -> dict[bytes, int]:
        """The ids of those of `digests` stored already in `table` (`keysets` or `keylists`), `known`
        holding those learnt (once: a keyset or keylist never changes)."""
        held = {digest: known[digest] for digest in digests if digest in known}
        wanted = [digest for digest in digests if digest not in held]
        for start in range(0, len(wanted), 500):
            chunk = wanted[start : start + 500]
            marks = ",".join("?" * len(chunk))
            held.update(self._db.execute(f"SELECT digest, id FROM {table} WHERE digest IN ({marks})", chunk))  # noqa: S608 - a table name of ours and marks
        return held

    def _ids(self, spelled: set[str]) -> dict[str, int]:
        """The ids of `spelled` in `names` (each learnt once: a name's id never changes), the new ones
        added in sorted order (appended pages). Within the caller's transaction, which holds the file's
        write lock: when this connection knows every name of the file (it read them all while they were
        few, and then each one added since, while those are few), a new name's id is the next free one,
        given here; else the names are looked up in SQLite."""
        ids = self._names
        if not ids and self._db.execute("SELECT count(*) FROM names").fetchone()[0] <= _LOAD_ALL:
            self._whole = True
        if (
            self._whole
            and self._db.execute("SELECT max(id) FROM names").fetchone()[0] - self._high > _LOAD_ALL
        ):
            self._whole = False  # another connection (a build) added many: look them up, never read them all
        if self._whole:
            added = self._db.execute("SELECT name, id FROM names WHERE id > ?", (self._high,)).fetchall()
            ids.update(added)
            self._high = max([self._high, *(number for _, number in added)])
        new = sorted(spelled.difference(ids))  # in C, by the dict: a build spells millions of names
        if new and self._whole:
            numbers = range(self._high + 1, self._high + 1 + len(new))
            _insert(self._db, "INSERT INTO names", 2, zip(numbers, new, strict=True))
            ids.update(zip(new, numbers, strict=True))
            self._high = numbers[-1]
        elif new:
            self._db.execute("CREATE TEMP TABLE IF NOT EXISTS wanted(name TEXT PRIMARY KEY) WITHOUT ROWID")
            self._db.execute("DELETE FROM temp.wanted")
            self._db.executemany("INSERT INTO temp.wanted VALUES (?)", zip(new))
            self._db.execute("INSERT OR IGNORE INTO names(name) SELECT name FROM temp.wanted ORDER BY name")
            found = self._db.execute("SELECT n.name, n.id FROM temp.wanted w JOIN names n ON n.name = w.name")
            ids.update(found)
        return ids

    def defined(self, sources: list[str], key: str, kind: str | None = None) -> list[Defined]:
        """Every definition of `key` (of `kind`) in files of `sources`: the key's rows first, by its id."""
        marks = ",".join("?" * len(sources))
        of_kind = " AND kind = (SELECT id FROM names WHERE name = ?)" if kind is not None else ""
        loc_kind = f" AND ? = '{LOCALISATION}'" if kind is not None else ""
        # CROSS JOIN keeps this order: the key's few rows first, never every file of the sources
        sql = f"""SELECT f.source, f.path, k.name, d.line, l.name, c.replace FROM (
                SELECT content, kind, line, language FROM def_rows WHERE key = (SELECT id FROM names
                    WHERE name = ?){of_kind}
                UNION ALL SELECT c.id, {_LOCALISATION}, r.line, c.language FROM keyset_rows r
                    JOIN contents c ON c.keyset = r.keyset
                    WHERE r.key = (SELECT id FROM names WHERE name = ?){loc_kind}) d
            CROSS JOIN contents c ON c.id = d.content CROSS JOIN files f ON f.digest = c.digest
            JOIN names k ON k.id = d.kind JOIN names l ON l.id = d.language
            WHERE f.source IN ({marks})"""  # noqa: S608 - marks and constants only
        kinds = [kind] if kind is not None else []
        args: list[object] = [key, *kinds, key, *kinds, *sources]
        return [
            Defined(str(source), str(path), str(k), key, int(line), str(language), bool(replace))
            for source, path, k, line, language, replace in self._rows(sql, args)
        ]

    def defined_in(self, source: str, path: str) -> list[Defined]:
        """Every definition in one file of one source (a localisation file's by a scan of them all)."""
        rows = self._rows(
            "SELECT c.id, c.kind, c.replace FROM files f JOIN contents c ON c.digest = f.digest "
            "WHERE f.source = ? AND f.path = ?",
            [source, path],
        )
        if not rows:
            return []
        content, kind, replace = rows[0]
        plain = "" if kind == "localisation" else f" AND d.language = {_EMPTY}"
        sql = (
            "SELECT k.name, n.name, d.line, l.name FROM all_rows d JOIN names n ON n.id = d.key "  # noqa: S608 - a constant only
            "JOIN names k ON k.id = d.kind JOIN names l ON l.id = d.language "
            f"WHERE d.content = ?{plain} ORDER BY d.line"
        )
        return [
            Defined(source, path, str(k), str(key), int(line), str(lang), bool(replace))
            for k, key, line, lang in self._rows(sql, [content])
        ]

    def keys_of(self, sources: list[str], kind: str) -> list[str]:
        """Every key of `kind` defined in files of `sources`, each once, in order."""
        marks = ",".join("?" * len(sources))
        held = f"SELECT c.id FROM files f JOIN contents c ON c.digest = f.digest WHERE f.source IN ({marks})"  # noqa: S608 - marks only
        sql = f"""SELECT name FROM names WHERE id IN (
                SELECT key FROM def_rows WHERE kind = (SELECT id FROM names WHERE name = ?)
                    AND content IN ({held})
                UNION SELECT key FROM keyset_rows WHERE ? = '{LOCALISATION}' AND keyset IN (
                    SELECT keyset FROM contents WHERE id IN ({held}) AND keyset IS NOT NULL))
            ORDER BY name"""  # noqa: S608 - marks and constants only
        return [str(key) for (key,) in self._rows(sql, [kind, *sources, kind, *sources])]

    def mentions(self, sources: list[str], word: str) -> list[tuple[str, str, int]]:
        """(source, path, first line) of every file of `sources` that mentions `word`."""
        marks = ",".join("?" * len(sources))
        # CROSS JOIN keeps this order: the word's mentions first, never every file of the sources
        sql = f"""SELECT f.source, f.path, m.line FROM names w CROSS JOIN mentions m ON m.word = w.id
            CROSS JOIN contents c ON c.id = m.content CROSS JOIN files f ON f.digest = c.digest
            WHERE w.name = ? AND f.source IN ({marks}) ORDER BY f.source, f.path"""  # noqa: S608 - marks only
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
        sql = f"""SELECT 1 FROM names w CROSS JOIN mentions m ON m.word = w.id
            CROSS JOIN contents c ON c.id = m.content CROSS JOIN files f ON f.digest = c.digest
            WHERE w.name = ? AND f.source IN ({marks}) AND NOT (f.source = ? AND f.path = ?)
            LIMIT 1"""  # noqa: S608 - marks only
        return bool(self._rows(sql, [word, *sources, source, path]))

    @contextmanager
    def builder(self) -> Iterator[bool]:
        """Hold the builder's place among every server on the directory; True when this one got it. While
        it is held, this connection's commits leave the write-ahead log unfolded (a fold at each commit
        writes every page twice, and the build waits for it); a thread of its own folds what is committed
        every FOLD_SECONDS meanwhile, on a connection of its own, while the build goes on (a game's build
        writes about 200 MB to the log: folded only at its end, the build waited half a second for it);
        record_build ends that thread and folds the rest."""
        with self._lock_path.open("a") as handle:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                yield False
                return
            done = threading.Event()
            folding = threading.Thread(
                target=self._fold_until, args=(done,), name="ck3raven-index-fold", daemon=True
            )
            self._folding = done, folding
            try:
                self._fold_every(0)
                folding.start()
                yield True
            finally:
                self._end_folding()
                self._fold_every(_FOLD_PAGES)
                fcntl.flock(handle, fcntl.LOCK_UN)

    def _end_folding(self) -> None:
        """End the builder's folding thread, when one runs: only one fold runs at a time, and the last
        one, which empties the log, must not find it busy."""
        if self._folding is not None:
            done, folding = self._folding
            self._folding = None
            done.set()
            if folding.is_alive():
                folding.join()

    def _fold_until(self, done: threading.Event) -> None:
        """Fold the committed part of the write-ahead log into the file every FOLD_SECONDS until `done`
        (passively: no writer or reader waits for it); an error ends it (record_build folds the rest)."""
        try:
            folder = sqlite3.connect(self.path, isolation_level=None, timeout=30)
        except sqlite3.Error:
            return
        try:
            while not done.wait(FOLD_SECONDS):
                folder.execute("PRAGMA wal_checkpoint(PASSIVE)")
        except sqlite3.Error:
            return
        finally:
            folder.close()

    def _fold_every(self, pages: int) -> None:
        """Fold the write-ahead log into the file once it holds `pages` pages (0: only when asked)."""
        try:
            with self._lock:
                self._db.execute(f"PRAGMA wal_autocheckpoint = {int(pages)}")
        except sqlite3.Error as exc:
            raise Unavailable("the content index cannot be written") from exc

    def record_build(self, build: Build) -> None:
        """Keep what a finished build did, and fold the write-ahead log into the file (a build leaves no
        log as large as what it wrote)."""
        row = (build.playset, build.at, build.files, build.parsed, build.seconds)
        self._end_folding()
        try:
            with self._lock:
                self._db.execute("INSERT OR REPLACE INTO builds VALUES (?, ?, ?, ?, ?)", row)
                self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
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

    # ---- questions over the whole playset: grouped and counted here, never row by row in Python

    def shared_paths(self, sources: list[str], folders: Collection[str]) -> list[tuple[str, str]]:
        """(source, path) of every file of `sources` whose path another of them ships too (ASCII case
        ignored), or that lies directly in one of `folders`."""
        return self._asked(playset.shared_paths, sources, folders)

    def key_conflicts(
        self, sources: list[str], unread: Collection[tuple[str, str]], kind: str | None = None
    ) -> list[tuple[str, str, str]]:
        """(kind, language, key), sorted, of every key (of `kind`) that read files of two or more sources
        define."""
        if len(sources) < 2:  # noqa: PLR2004 - two sources at least make a conflict
            return []
        return self._asked(playset.key_conflicts, sources, unread, kind)

    def missing_keys(
        self, sources: list[str], unread: Collection[tuple[str, str]], language: str, reference: str
    ) -> list[str]:
        """The localisation keys, sorted, read files of `sources` define in `reference`, not in `language`."""
        return self._asked(playset.missing_keys, sources, unread, language, reference)

    def _asked(self, question: Callable[..., list[_T]], *args: object) -> list[_T]:
        """The answer of one question over the whole playset (adapters.sqlite_index_playset)."""
        try:
            with self._lock:
                return question(self._db, *args)
        except sqlite3.Error as exc:
            raise Unavailable("the content index cannot be read") from exc


def _insert(db: sqlite3.Connection, head: str, width: int, rows: Iterable[tuple[object, ...]]) -> None:
    """Insert `rows` (each of `width` values) by `head` (an INSERT statement up to its VALUES), in
    statements of _PER_STATEMENT rows each, the rest one by one."""
    flat = list(chain.from_iterable(rows))
    whole = len(flat) // (width * _PER_STATEMENT) * width * _PER_STATEMENT
    row = "(" + ",".join("?" * width) + ")"
    if whole:
        many = f"{head} VALUES " + ",".join([row] * _PER_STATEMENT)
        db.executemany(many, zip(*[iter(flat[:whole])] * (width * _PER_STATEMENT), strict=True))
    if whole < len(flat):
        db.executemany(f"{head} VALUES {row}", zip(*[iter(flat[whole:])] * width, strict=True))


def _spelled(contents: Iterable[Parsed]) -> set[str]:
    """Every name that `contents` spell: their definitions' kinds, keys and languages, their words."""
    spelled: set[str] = set()
    for parsed in contents:
        kinds, keys, _, languages = parsed.defined
        spelled.update(kinds, keys, languages, parsed.mentioned[0])
    return spelled
