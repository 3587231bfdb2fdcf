"""The content index's questions over a whole playset, asked of its SQLite file: grouped and counted in
SQL by integer ids, never row by row in Python. Each runs in one read transaction in which
`temp.read_files` holds (content, source: its place in the playset) of every file the game reads.

A definition is a row of `def_rows` or of a localisation keyset (adapters.sqlite_index_schema): each
question asks both, the keyset's rows reached by their key or by the contents holding the keyset.
"""

import json
import sqlite3
from collections.abc import Collection, Iterator
from contextlib import contextmanager
from typing import Final

_LOCALISATION: Final = 1
"""The id of the kind of every localisation definition (and of every keyset row)."""

_CANDIDATES = """INSERT OR IGNORE INTO temp.candidates
    SELECT key, kind, language FROM def_rows
        WHERE content IN (SELECT content FROM temp.read_files WHERE source > 0){of_kind}
    UNION ALL SELECT r.key, 1, c.language FROM contents c JOIN keyset_rows r ON r.keyset = c.keyset
        WHERE c.id IN (SELECT content FROM temp.read_files WHERE source > 0){of_localisation}"""
"""Every key defined in a read file of a source after the first: the only ones that can conflict."""
_GROUPED = """SELECT k.name, l.name, n.name FROM (SELECT key, kind, language FROM (
        SELECT c.key, c.kind, c.language, r.source FROM temp.candidates c
            JOIN def_rows d ON d.key = c.key AND d.kind = c.kind
            JOIN temp.read_files r ON r.content = d.content WHERE d.language = c.language
        UNION ALL SELECT c.key, c.kind, c.language, r.source FROM temp.candidates c
            JOIN keyset_rows s ON s.key = c.key JOIN contents t ON t.keyset = s.keyset
            JOIN temp.read_files r ON r.content = t.id WHERE c.kind = 1 AND t.language = c.language)
        GROUP BY key, kind, language HAVING count(DISTINCT source) >= 2) g
    JOIN names n ON n.id = g.key JOIN names k ON k.id = g.kind JOIN names l ON l.id = g.language
    ORDER BY k.name, l.name, n.name"""
"""Each candidate's rows in every read file, found by its key: those that two sources or more define."""
_LACKING = """SELECT n.name FROM (SELECT key FROM (
        SELECT key, language FROM def_rows WHERE kind = 1 AND language IN (:reference, :language)
            AND content IN (SELECT content FROM temp.read_files)
        UNION ALL SELECT r.key, s.language FROM (SELECT DISTINCT keyset, language FROM contents
                WHERE id IN (SELECT content FROM temp.read_files) AND keyset IS NOT NULL
                AND language IN (:reference, :language)) s
            JOIN keyset_rows r ON r.keyset = s.keyset)
        GROUP BY key HAVING max(language = :language) IS NOT 1) m
    JOIN names n ON n.id = m.key ORDER BY n.name"""
"""The keys of the reference language that the language lacks; a keyset shared by many read files is
read once."""


def key_conflicts(
    db: sqlite3.Connection, sources: list[str], unread: Collection[tuple[str, str]], kind: str | None
) -> list[tuple[str, str, str]]:
    """(kind, language, key), sorted, of every key (of `kind`) that read files of two or more of
    `sources` define."""
    of_kind = " AND kind = (SELECT id FROM names WHERE name = :kind)" if kind is not None else ""
    of_localisation = (
        f" AND {_LOCALISATION} = (SELECT id FROM names WHERE name = :kind)"  # noqa: S608 - a constant only
        if kind is not None
        else ""
    )
    with reading(db, sources, unread):
        db.execute(
            "CREATE TEMP TABLE IF NOT EXISTS candidates(key INTEGER NOT NULL, kind INTEGER NOT NULL, "
            "language INTEGER NOT NULL, PRIMARY KEY(key, kind, language)) WITHOUT ROWID"
        )
        db.execute("DELETE FROM temp.candidates")
        db.execute(_CANDIDATES.format(of_kind=of_kind, of_localisation=of_localisation), {"kind": kind})
        found = db.execute(_GROUPED).fetchall()
        db.execute("DELETE FROM temp.candidates")
    return [(str(k), str(language), str(key)) for k, language, key in found]


def missing_keys(
    db: sqlite3.Connection,
    sources: list[str],
    unread: Collection[tuple[str, str]],
    language: str,
    reference: str,
) -> list[str]:
    """The localisation keys, sorted, read files of `sources` define in `reference`, not in `language`."""
    ids = dict(db.execute("SELECT name, id FROM names WHERE name IN (?, ?)", (language, reference)))
    if reference not in ids:
        return []
    args = {"reference": ids[reference], "language": ids.get(language, -1)}
    with reading(db, sources, unread):
        found = db.execute(_LACKING, args).fetchall()
    return [str(key) for (key,) in found]


def shared_paths(
    db: sqlite3.Connection, sources: list[str], folders: Collection[str]
) -> list[tuple[str, str]]:
    """(source, path) of every file of `sources` whose path another of them ships too (ASCII case
    ignored), or that lies directly in one of `folders`."""
    marks = ",".join("?" * len(sources))
    sql = f"""SELECT f.source, f.path FROM files f WHERE f.source IN ({marks}) AND (lower(f.path) IN (
            SELECT lower(path) FROM files WHERE source IN ({marks})
            GROUP BY lower(path) HAVING count(*) > 1)
        OR EXISTS (SELECT 1 FROM json_each(?) j
            WHERE substr(f.path, 1, length(j.value) + 1) = j.value || '/'
            AND instr(substr(f.path, length(j.value) + 2), '/') = 0))"""  # noqa: S608 - marks only
    args = [*sources, *sources, json.dumps(sorted(folders))]
    return [(str(source), str(path)) for source, path in db.execute(sql, args)]


@contextmanager
def reading(
    db: sqlite3.Connection, sources: list[str], unread: Collection[tuple[str, str]]
) -> Iterator[None]:
    """One read transaction in which `temp.read_files` holds (content, source: its place in `sources`)
    of every file of `sources` the game reads: all but those in `unread`."""
    fill = """INSERT OR IGNORE INTO temp.read_files SELECT c.id, s.key
        FROM json_each(?) s JOIN files f ON f.source = s.value JOIN contents c ON c.digest = f.digest
        WHERE NOT EXISTS (SELECT 1 FROM temp.unread u WHERE u.source = f.source AND u.path = f.path)"""
    db.execute(
        "CREATE TEMP TABLE IF NOT EXISTS unread(source TEXT NOT NULL, path TEXT NOT NULL, "
        "PRIMARY KEY(source, path)) WITHOUT ROWID"
    )
    db.execute(
        "CREATE TEMP TABLE IF NOT EXISTS read_files(content INTEGER NOT NULL, source INTEGER NOT NULL, "
        "PRIMARY KEY(content, source)) WITHOUT ROWID"
    )
    db.execute("BEGIN")
    try:
        db.execute("DELETE FROM temp.unread")
        db.execute("DELETE FROM temp.read_files")
        db.executemany("INSERT OR IGNORE INTO temp.unread VALUES (?, ?)", unread)
        db.execute(fill, [json.dumps(sources)])
        yield
    finally:
        db.execute("DELETE FROM temp.read_files")
        db.execute("COMMIT")
