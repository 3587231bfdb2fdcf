"""The tables of the content index's SQLite file, and the one step that brings a file to them: a new file
gets them, a file an older server wrote (another VERSION) is emptied and built again, never read as it is.
Also what a content's keyset is (the form its localisation takes there) and its digest.
"""

import hashlib
import sqlite3
from array import array
from typing import Final

from attrs import frozen

from ports.content_index import Parsed

LOCALISATION: Final = "localisation"
"""The kind of every localisation definition, and of every file holding them."""
LINE_DIGITS: Final = 8
"""Digits a keyset's line takes in its `lines`: a localisation file is read to 32 MiB, fewer lines than
10**8 (a content with a line past that keeps its rows as they are)."""
VERSION = 5
"""The index file's format; a file of any other version is emptied and built again."""
_SCHEMA = """
CREATE TABLE names(id INTEGER PRIMARY KEY, name TEXT UNIQUE NOT NULL);
INSERT INTO names VALUES (0, ''), (1, 'localisation'), (2, 'english'), (3, 'french'), (4, 'german'),
    (5, 'spanish'), (6, 'russian'), (7, 'korean'), (8, 'simp_chinese'), (9, 'polish'), (10, 'japanese'),
    (11, 'braz_por'), (12, 'turkish');
CREATE TABLE contents(id INTEGER PRIMARY KEY, digest TEXT UNIQUE NOT NULL, kind TEXT NOT NULL,
    replace INTEGER NOT NULL, findings TEXT NOT NULL, keyset INTEGER, language INTEGER NOT NULL DEFAULT 0);
CREATE INDEX contents_keyset ON contents(keyset) WHERE keyset IS NOT NULL;
CREATE TABLE def_rows(key INTEGER NOT NULL, kind INTEGER NOT NULL, content INTEGER NOT NULL,
    line INTEGER NOT NULL, language INTEGER NOT NULL, PRIMARY KEY(key, kind, content, line)) WITHOUT ROWID;
CREATE INDEX def_rows_content ON def_rows(content) WHERE language = 0;
CREATE TABLE keylists(id INTEGER PRIMARY KEY, digest BLOB UNIQUE NOT NULL);
CREATE TABLE keylist_rows(key INTEGER NOT NULL, keylist INTEGER NOT NULL, position INTEGER NOT NULL,
    PRIMARY KEY(key, keylist, position)) WITHOUT ROWID;
CREATE INDEX keylist_rows_list ON keylist_rows(keylist);
CREATE TABLE keysets(id INTEGER PRIMARY KEY, digest BLOB UNIQUE NOT NULL, keylist INTEGER NOT NULL,
    lines TEXT NOT NULL);
CREATE INDEX keysets_keylist ON keysets(keylist);
CREATE VIEW keyset_rows(key, keyset, line) AS
    SELECT r.key, s.id, CAST(substr(s.lines, r.position * LINE_DIGITS + 1, LINE_DIGITS) AS INTEGER)
        FROM keylist_rows r JOIN keysets s ON s.keylist = r.keylist;
CREATE VIEW all_rows(content, kind, key, line, language) AS
    SELECT content, kind, key, line, language FROM def_rows
    UNION ALL SELECT c.id, 1, r.key, r.line, c.language FROM keyset_rows r
        JOIN contents c ON c.keyset = r.keyset;
CREATE VIEW defs(content, kind, key, line, language) AS
    SELECT d.content, k.name, n.name, d.line, l.name FROM all_rows d JOIN names n ON n.id = d.key
    JOIN names k ON k.id = d.kind JOIN names l ON l.id = d.language;
CREATE TABLE mentions(word INTEGER NOT NULL, content INTEGER NOT NULL, line INTEGER NOT NULL,
    PRIMARY KEY(word, content)) WITHOUT ROWID;
CREATE TABLE files(source TEXT NOT NULL, path TEXT NOT NULL, size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL, digest TEXT NOT NULL, PRIMARY KEY(source, path));
CREATE INDEX files_digest ON files(digest);
CREATE TABLE builds(playset TEXT PRIMARY KEY, at TEXT NOT NULL, files INTEGER NOT NULL,
    parsed INTEGER NOT NULL, seconds REAL NOT NULL)
""".replace("LINE_DIGITS", str(LINE_DIGITS))
"""Every key, kind, language and mentioned word is stored once, in `names`, and the rows hold their ids:
`defs` is the view that spells every definition out. A localisation content of one language keeps its
(key, line) rows as a `keyset`, stored once for every content holding the same keys on the same lines:
the game ships each file in each of its languages, most of them repeating another's keys line for line
(the real game's 2.56 million entries are 2,069 keysets). A keyset is its keys in order, a `keylist`
stored once for every keyset of the same keys (a translation often keeps the keys and moves their
lines), and its lines, LINE_DIGITS digits each in the keys' order; `keyset_rows` is the view that puts
each key at its line. Any other content's definitions are `def_rows`; `all_rows` is the two as one. The
commonest names have the smallest ids (SQLite stores 0 and 1 in no bytes, and ids below 128 in one): the
empty language of every script definition, the kind of every localisation one, the game's languages.
Only definitions with no language (script and GUI files) are indexed by content in `def_rows`; a
keylist's rows are indexed by keylist, and keysets by their keylist."""


def current(db: sqlite3.Connection) -> None:
    """Bring the file at `db` to this VERSION's tables: a new file gets them, a file of another version
    (an older server's) is emptied first and built again; one of this version is left as it is."""
    if db.execute("PRAGMA user_version").fetchone()[0] == VERSION:
        return
    db.execute("BEGIN IMMEDIATE")
    try:
        if db.execute("PRAGMA user_version").fetchone()[0] != VERSION:  # not done meanwhile
            held = db.execute(
                "SELECT type, name FROM sqlite_master "
                "WHERE name NOT LIKE 'sqlite_%' AND type IN ('table', 'view')"
            ).fetchall()
            for kind, name in held:
                db.execute(f'DROP {kind} IF EXISTS "{name}"')
            for statement in _SCHEMA.split(";"):
                db.execute(statement)
            db.execute(f"PRAGMA user_version = {VERSION}")
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("VACUUM")  # an older file's pages are given back


@frozen
class Keyset:
    """The (key, line) rows of a localisation content of one language, and their digest."""

    digest: bytes
    language: str
    keys: tuple[str, ...]
    lines: tuple[int, ...]

    def keylist(self) -> bytes:
        """The digest of its keys alone, in order."""
        return hashlib.blake2b("\n".join(self.keys).encode(), digest_size=16).digest()

    def spelled_lines(self) -> str:
        """Its lines as the `keysets` table keeps them: LINE_DIGITS digits each, in the keys' order."""
        return (f"%0{LINE_DIGITS}d" * len(self.lines)) % self.lines


def keyset_of(parsed: Parsed) -> "Keyset | None":
    """The keyset of a content whose definitions are all localisation of one language and that mentions
    nothing (None: any other, whose rows are stored as they are)."""
    kinds, keys, lines, languages = parsed.defined
    if parsed.kind != LOCALISATION or not keys or parsed.mentioned[0] or kinds[0] != LOCALISATION:
        return None
    if len(set(kinds)) != 1 or len(set(languages)) != 1 or max(lines) >= 10**LINE_DIGITS:
        return None
    digest = hashlib.blake2b("\n".join(keys).encode(), digest_size=16)
    digest.update(array("q", lines).tobytes())
    return Keyset(digest.digest(), languages[0], keys, lines)
