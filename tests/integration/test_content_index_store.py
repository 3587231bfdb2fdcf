"""The content index on real files and a real SQLite file: close's semantic validator and the index agree
on what a change adds; bad input is findings, never an error; a governed write's file is re-indexed at
once; one builder at a time among the servers on a state directory; a build's write-ahead log is folded
as it goes and empty once it ends; localisation keysets share their keys and keep their own lines; a
key's question begins at the key's own rows."""

import sqlite3
import time
from pathlib import Path

import pytest
from attrs import evolve

from adapters import sqlite_index
from adapters.local_files import LocalFiles
from adapters.sqlite_index import SqliteIndex
from domain.ck3 import content_index, merged
from domain.ck3 import parse_findings as pf
from domain.compliance import symbols
from domain.vocabulary import Mode, RootCategory
from domain.world.adapter import WorldAdapter, WorldView
from domain.world.playsets import ModFolder
from ports.content_index import Build, IndexedFile, Parsed
from ports.files import Location

R = RootCategory
MOD = "ROOT_STEAM:/1"


def world_on(base: Path) -> WorldAdapter:
    (base / "game" / "common").mkdir(parents=True)
    (base / "steam" / "1").mkdir(parents=True)
    (base / "steam" / "1" / "descriptor.mod").write_text('name="Mod"\n', encoding="utf-8")
    files = LocalFiles({R.ROOT_GAME.value: base / "game", R.ROOT_STEAM.value: base / "steam"})
    view = WorldView(
        Mode.CK3LENS, frozenset({R.ROOT_GAME, R.ROOT_STEAM}), (ModFolder("Mod", "1", R.ROOT_STEAM, ("1",)),)
    )
    return WorldAdapter(files, view)


@pytest.fixture
def base(tmp_path: Path) -> Path:
    return tmp_path


def put(base: Path, path: str, data: bytes | str) -> None:
    target = base / "steam" / "1" / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data.encode() if isinstance(data, str) else data)


def reads_of(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, ...]]:
    """The files the real files adapter reads from now on, each by its parts below its root."""
    seen: list[tuple[str, ...]] = []
    read = LocalFiles.read

    def counted(files: LocalFiles, location: Location, limit: int) -> bytes:
        seen.append(location.parts)
        return read(files, location, limit)

    monkeypatch.setattr(LocalFiles, "read", counted)
    return seen


def symbol(kind: str, key: str) -> str:
    return f"namespace:{key}" if kind == "namespace" else key


CASES = [
    ("common/traits/t.txt", "brave = {\n}\n", "brave = {\n}\nzealous = { a = { b = 1 } }\n@x = 1\n"),
    ("common/script_values/v.txt", "a = 1\n", "a = 1\nb = 2\nc = { value = 3 }\n"),
    ("events/e.txt", "namespace = a\na.1 = {\n}\n", "namespace = a\nnamespace = b\na.1 = {\n}\nb.2 = {\n}\n"),
    ("localization/english/x_l_english.yml", 'l_english:\n k:0 "v"\n', 'l_english:\n k:0 "v"\n n:0 "w"\n'),
]


@pytest.mark.parametrize(("path", "before", "after"), CASES)
def test_closes_new_symbols_for_a_file_equal_the_definitions_the_index_gains_for_it(
    base: Path, path: str, before: str, after: str
):
    world, index = world_on(base), SqliteIndex(base / "state" / "content-index.db")
    found = content_index.sources_of(world)
    put(base, path, before)
    content_index.refresh(world, index, found)
    had = {symbol(d.kind, d.key) for d in index.defined_in(MOD, path)}
    put(base, path, after)
    content_index.after_write(world, index, f"{MOD}/{path}")
    gained = {symbol(d.kind, d.key) for d in index.defined_in(MOD, path)} - had

    kind = symbols.kind_of(tuple(path.split("/")))
    assert kind is not None
    added = symbols.added(f"{MOD}/{path}", kind, before, after, parts=("1", *path.split("/"))).added
    assert set(added) == gained
    assert gained


BAD = [
    ("common/traits/binary.txt", b"\x00\x01\x02brave = {}", pf.NOT_TEXT),
    ("common/traits/utf16.txt", "brave = {}".encode("utf-16"), pf.NOT_TEXT),
    ("common/traits/latin1.txt", "caf\xe9 = {\n}\n".encode("latin-1"), pf.NOT_TEXT),
    ("common/traits/deep.txt", b"deep = " + b"{ " * 50_000, pf.LIMIT),
    ("common/traits/empty.txt", b"", None),
    ("common/traits/twice.txt", b"brave = {\n}\nbrave = {\n}\n", pf.DUPLICATE),
    ("localization/english/d_l_english.yml", b'l_english:\n a:0 "x"\n a:0 "y"\n', pf.DUPLICATE),
    ("common/traits/long.txt", b"long = { " + b"a = b " * 200_000 + b"}\n", None),
]


def test_bad_input_is_indexed_with_findings_and_never_raises(base: Path):
    world, index = world_on(base), SqliteIndex(base / "state" / "content-index.db")
    for path, data, _ in BAD:
        put(base, path, data)

    done = content_index.refresh(world, index, content_index.sources_of(world))

    assert (done.seen, done.pending) == (len(BAD), 0)
    for path, _, code in BAD:
        codes = [found[0] for found in index.findings(MOD, path)]
        assert (code in codes) if code else codes == [], path
    assert [d.key for d in index.defined_in(MOD, "common/traits/long.txt")] == ["long"]


def test_a_governed_writes_file_is_re_indexed_at_once_and_a_deleted_one_dropped(base: Path):
    world, index = world_on(base), SqliteIndex(base / "state" / "content-index.db")
    put(base, "common/traits/t.txt", "brave = {\n}\n")
    content_index.after_write(world, index, f"{MOD}/common/traits/t.txt")
    first = [d.key for d in index.defined(["ROOT_STEAM:/1"], "brave")]
    (base / "steam" / "1" / "common" / "traits" / "t.txt").unlink()
    content_index.after_write(world, index, f"{MOD}/common/traits/t.txt")

    assert (first, index.defined(["ROOT_STEAM:/1"], "brave")) == (["brave"], [])


def test_a_governed_write_reads_no_mods_descriptor_and_nothing_for_a_file_the_index_does_not_read(
    base: Path, monkeypatch: pytest.MonkeyPatch
):
    world, index = world_on(base), SqliteIndex(base / "state" / "content-index.db")
    put(base, "notes/plan.txt", "todo\n")
    put(base, "common/traits/t.txt", "brave = {\n}\n")
    seen = reads_of(monkeypatch)

    elsewhere = content_index.after_write(world, index, f"{MOD}/notes/plan.txt")
    read_then = list(seen)
    indexed = content_index.after_write(world, index, f"{MOD}/common/traits/t.txt")

    assert (elsewhere, read_then) == (False, [])
    assert indexed
    assert ("1", "descriptor.mod") not in seen
    assert [d.key for d in index.defined([MOD], "brave")] == ["brave"]


def test_one_builder_at_a_time_among_servers_on_one_state_directory(base: Path):
    one, two = SqliteIndex(base / "content-index.db"), SqliteIndex(base / "content-index.db")

    with one.builder() as first, two.builder() as second:
        held = (first, second)
    with two.builder() as after:
        pass

    assert (held, after) == ((True, False), True)


def test_the_playsets_folders_are_its_sources_folders_known_without_reading_a_descriptor(
    base: Path, monkeypatch: pytest.MonkeyPatch
):
    world = world_on(base)
    seen = reads_of(monkeypatch)

    folders = merged.folders(world)
    read_then = list(seen)

    assert folders == [source.folder for source in content_index.sources_of(world)] == ["ROOT_GAME:/", MOD]
    assert read_then == []


def test_the_playsets_folders_are_the_new_playsets_after_a_switch(base: Path):
    world = world_on(base)
    before = merged.folders(world)
    (base / "steam" / "2").mkdir()
    other = ModFolder("Other", "2", R.ROOT_STEAM, ("2",))

    world.set_view(evolve(world.view, mods=(other, *world.view.mods)))

    assert before == ["ROOT_GAME:/", MOD]
    assert merged.folders(world) == ["ROOT_GAME:/", "ROOT_STEAM:/2", MOD]


OLD_FORMAT = """
CREATE TABLE contents(id INTEGER PRIMARY KEY, digest TEXT UNIQUE NOT NULL, kind TEXT NOT NULL,
    replace INTEGER NOT NULL, findings TEXT NOT NULL);
CREATE TABLE defs(content INTEGER NOT NULL, kind TEXT NOT NULL, key TEXT NOT NULL, line INTEGER NOT NULL,
    language TEXT NOT NULL);
CREATE TABLE words(id INTEGER PRIMARY KEY, word TEXT UNIQUE NOT NULL);
CREATE TABLE mentions(word INTEGER NOT NULL, content INTEGER NOT NULL, line INTEGER NOT NULL,
    PRIMARY KEY(word, content)) WITHOUT ROWID;
CREATE TABLE files(source TEXT NOT NULL, path TEXT NOT NULL, size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL,
    digest TEXT NOT NULL, PRIMARY KEY(source, path));
INSERT INTO contents VALUES (1, 'd1', 'script', 0, '[]');
INSERT INTO defs VALUES (1, 'traits', 'stale', 1, '');
INSERT INTO files VALUES ('ROOT_STEAM:/1', 'common/traits/t.txt', 10, 1, 'd1');
"""


def test_an_index_file_of_an_older_format_is_emptied_and_built_again(base: Path):
    world = world_on(base)
    put(base, "common/traits/t.txt", "brave = {\n}\n")
    old = base / "state" / "content-index.db"
    old.parent.mkdir()
    with sqlite3.connect(old) as db:
        db.executescript(OLD_FORMAT)

    index = SqliteIndex(old)
    emptied = (index.files(MOD), index.defined([MOD], "stale"))
    done = content_index.refresh(world, index, content_index.sources_of(world))

    assert emptied == ({}, [])
    assert done.parsed == 1
    assert [d.key for d in index.defined([MOD], "brave")] == ["brave"]


def test_the_defs_view_spells_out_every_definition_with_its_content_kind_key_line_and_language(base: Path):
    world, index = world_on(base), SqliteIndex(base / "state" / "content-index.db")
    put(base, "common/traits/t.txt", "brave = {\n}\n\nshy = {\n}\n")
    put(base, "localization/french/t_l_french.yml", 'l_french:\n trait_brave:0 "Brave"\n')
    content_index.refresh(world, index, content_index.sources_of(world))

    with sqlite3.connect(index.path) as db:
        rows = db.execute(
            "SELECT f.path, d.kind, d.key, d.line, d.language FROM defs d "
            "JOIN contents c ON c.id = d.content JOIN files f ON f.digest = c.digest ORDER BY d.key"
        ).fetchall()

    assert rows == [
        ("common/traits/t.txt", "traits", "brave", 1, ""),
        ("common/traits/t.txt", "traits", "shy", 4, ""),
        ("localization/french/t_l_french.yml", "localisation", "trait_brave", 2, "french"),
    ]


GAME, MOD_A, MOD_B = "ROOT_GAME:/", "ROOT_USER_DOCS:/mod/a", "ROOT_USER_DOCS:/mod/b"


def stored(
    index: SqliteIndex, source: str, path: str, digest: str, rows: list[tuple[str, str, int, str]]
) -> None:
    parsed = Parsed.of(rows[0][0] if rows else "traits", False, rows, (), ())
    index.update(source, [IndexedFile(source, path, 1, 1, digest)], {digest: parsed}, [])


def test_one_content_two_sources_ship_at_different_paths_is_a_key_conflict_and_one_source_alone_none(
    base: Path,
):
    index = SqliteIndex(base / "content-index.db")
    traits = [("traits", "brave", 1, ""), ("traits", "shy", 4, "")]
    stored(index, GAME, "common/traits/00_traits.txt", "d1", traits)
    stored(index, GAME, "common/traits/01_traits.txt", "d1", traits)  # the same content twice: one source
    stored(index, MOD_A, "common/traits/zz_copy.txt", "d1", traits)  # the game's content, a mod's path
    stored(index, MOD_B, "common/traits/other.txt", "d2", [("traits", "calm", 1, "")])
    stored(index, MOD_B, "common/traits/more.txt", "d3", [("traits", "calm", 1, "")])  # one source, twice

    found = index.key_conflicts([GAME, MOD_A, MOD_B], ())
    of_the_game_alone = index.key_conflicts([GAME, MOD_B], ())
    unread = index.key_conflicts([GAME, MOD_A, MOD_B], [(MOD_A, "common/traits/zz_copy.txt")])
    of_kind = index.key_conflicts([GAME, MOD_A], (), kind="events")

    assert found == [("traits", "", "brave"), ("traits", "", "shy")]
    assert (of_the_game_alone, unread, of_kind) == ([], [], [])


def test_missing_keys_are_the_reference_languages_keys_the_language_lacks_even_a_language_no_file_has(
    base: Path,
):
    index = SqliteIndex(base / "content-index.db")
    english = [("localisation", "a", 2, "english"), ("localisation", "b", 3, "english")]
    stored(index, GAME, "localization/english/x_l_english.yml", "e", english)
    stored(index, MOD_A, "localization/french/x_l_french.yml", "f", [("localisation", "b", 2, "french")])

    assert index.missing_keys([GAME, MOD_A], (), "french", "english") == ["a"]
    assert index.missing_keys([GAME, MOD_A], (), "german", "english") == ["a", "b"]
    assert index.missing_keys([GAME], (), "french", "english") == ["a", "b"]


def test_localisation_files_of_two_languages_with_the_same_keys_on_the_same_lines_share_one_keyset(
    base: Path,
):
    index = SqliteIndex(base / "content-index.db")
    english = [("localisation", "a", 2, "english"), ("localisation", "b", 3, "english")]
    french = [("localisation", "a", 2, "french"), ("localisation", "b", 3, "french")]
    stored(index, GAME, "localization/english/x_l_english.yml", "e", english)
    stored(index, GAME, "localization/french/x_l_french.yml", "f", french)
    stored(index, MOD_A, "localization/french/x_l_french.yml", "g", [("localisation", "b", 5, "french")])

    with sqlite3.connect(index.path) as db:
        keysets = db.execute("SELECT count(*) FROM keysets").fetchone()[0]
    found = sorted((d.source, d.language, d.line) for d in index.defined([GAME, MOD_A], "b", "localisation"))

    assert keysets == 2  # the game's two files one keyset, the mod's file (another line) its own
    assert found == [(GAME, "english", 3), (GAME, "french", 3), (MOD_A, "french", 5)]
    assert [d.key for d in index.defined_in(GAME, "localization/french/x_l_french.yml")] == ["a", "b"]
    assert index.key_conflicts([GAME, MOD_A], ()) == [("localisation", "french", "b")]
    assert index.missing_keys([GAME, MOD_A], (), "german", "french") == ["a", "b"]
    assert index.keys_of([MOD_A], "localisation") == ["b"]


def test_two_connections_adding_names_by_turns_each_find_what_the_other_stored(base: Path):
    first, second = SqliteIndex(base / "content-index.db"), SqliteIndex(base / "content-index.db")
    stored(first, GAME, "common/traits/a.txt", "d1", [("traits", "brave", 1, "")])
    stored(
        second, MOD_A, "common/traits/b.txt", "d2", [("traits", "brave", 1, ""), ("traits", "calm", 2, "")]
    )
    stored(first, MOD_B, "common/traits/c.txt", "d3", [("traits", "calm", 1, ""), ("traits", "shy", 2, "")])
    stored(second, MOD_B, "common/traits/d.txt", "d4", [("traits", "shy", 1, ""), ("traits", "bold", 2, "")])

    def where(index: SqliteIndex, key: str) -> list[str]:
        return sorted(d.path for d in index.defined([GAME, MOD_A, MOD_B], key))

    for index in (first, second):
        assert where(index, "brave") == ["common/traits/a.txt", "common/traits/b.txt"]
        assert where(index, "calm") == ["common/traits/b.txt", "common/traits/c.txt"]
        assert where(index, "shy") == ["common/traits/c.txt", "common/traits/d.txt"]
        assert where(index, "bold") == ["common/traits/d.txt"]


def test_a_connection_that_knew_every_name_looks_names_up_once_another_added_many(
    base: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setattr("adapters.sqlite_index._LOAD_ALL", 20)  # the new file's 13 names, and a few more
    server, builder = SqliteIndex(base / "content-index.db"), SqliteIndex(base / "content-index.db")
    many = [("traits", f"t{n}", n, "") for n in range(1, 30)]
    stored(server, GAME, "common/traits/a.txt", "d1", [("traits", "brave", 1, "")])
    stored(builder, MOD_A, "common/traits/b.txt", "d2", many)
    stored(server, MOD_B, "common/traits/c.txt", "d3", [("traits", "t7", 1, ""), ("traits", "calm", 2, "")])

    assert "t20" not in server._names  # what the connection holds is the point: not every name
    assert sorted(d.path for d in server.defined([GAME, MOD_A, MOD_B], "t7")) == [
        "common/traits/b.txt",
        "common/traits/c.txt",
    ]
    assert [d.path for d in builder.defined([GAME, MOD_A, MOD_B], "calm")] == ["common/traits/c.txt"]


def test_contents_of_more_rows_than_one_insert_statement_holds_keep_every_row(base: Path):
    index = SqliteIndex(base / "content-index.db")
    count = 3 * 250 + 7  # three whole statements of rows and a few more
    traits = [("traits", f"t{n}", n, "") for n in range(1, count + 1)]
    words = [(f"w{n}", n) for n in range(1, count + 1)]
    keys = [("localisation", f"k{n}", n + 1, "english") for n in range(1, count + 1)]
    script = Parsed.of("traits", False, traits, words, ())
    english = Parsed.of("localisation", False, keys, (), ())
    files = [
        IndexedFile(GAME, "common/traits/t.txt", 1, 1, "d1"),
        IndexedFile(GAME, "localization/english/t_l_english.yml", 1, 1, "d2"),
    ]
    index.update(GAME, files, {"d1": script, "d2": english}, [])

    assert [(d.key, d.line) for d in index.defined_in(GAME, "common/traits/t.txt")] == [
        (key, line) for _, key, line, _ in traits
    ]
    assert len(index.defined_in(GAME, "localization/english/t_l_english.yml")) == count
    assert index.keys_of([GAME], "localisation") == sorted(key for _, key, _, _ in keys)
    assert all(index.mentions([GAME], word) == [(GAME, "common/traits/t.txt", line)] for word, line in words)


def test_a_whole_refresh_stores_every_file_and_counts_each_content_once_however_its_batches_fall(
    base: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setattr(content_index, "BATCH", 1)  # batches in flight across the folders' ends
    monkeypatch.setattr(content_index, "AHEAD", 1)
    monkeypatch.setattr(content_index, "STORED", 2)
    world, index = world_on(base), SqliteIndex(base / "state" / "content-index.db")
    for n in range(5):
        put(base, f"common/traits/t{n}.txt", f"t{n} = {{\n}}\n")
    for n in range(4):
        put(base, f"events/e{n}.txt", f"namespace = e{n}\n")
    put(base, "events/same.txt", "t0 = {\n}\n")  # the bytes of a file of another folder: one content

    done = content_index.refresh(world, index, content_index.sources_of(world))

    assert (done.seen, done.parsed, done.removed, done.pending) == (10, 9, 0, 0)
    assert len(index.files(MOD)) == 10
    assert [d.path for d in index.defined([MOD], "e3", "namespace")] == ["events/e3.txt"]
    assert sorted(d.path for d in index.defined([MOD], "t0")) == ["common/traits/t0.txt", "events/same.txt"]


def test_a_builds_write_ahead_log_is_folded_into_the_file_while_the_build_runs(
    base: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setattr(sqlite_index, "FOLD_SECONDS", 0.02)
    index = SqliteIndex(base / "content-index.db")
    rows = [("traits", f"trait_{n}", n + 1, "") for n in range(2000)]
    parsed = Parsed.of("script", False, rows, (), ())
    empty = index.path.stat().st_size

    with index.builder() as mine:
        row = IndexedFile("ROOT_GAME:/", "common/traits/t.txt", 1, 1, "d")
        index.update("ROOT_GAME:/", [row], {"d": parsed}, [])
        deadline = time.monotonic() + 10
        while index.path.stat().st_size == empty and time.monotonic() < deadline:
            time.sleep(0.01)
        folded = index.path.stat().st_size

    assert mine
    assert folded > empty
    assert [d.key for d in index.defined(["ROOT_GAME:/"], "trait_7")] == ["trait_7"]


def test_a_finished_build_leaves_no_write_ahead_log_however_often_it_was_folded(
    base: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setattr(sqlite_index, "FOLD_SECONDS", 0)  # folding without a pause, all the build long
    index = SqliteIndex(base / "content-index.db")
    log = index.path.with_name(index.path.name + "-wal")
    left: list[int] = []

    for round_ in range(5):
        with index.builder() as mine:
            for n in range(20):
                rows = [("traits", f"trait_{round_}_{n}_{k}", k + 1, "") for k in range(300)]
                digest = f"d{round_}-{n}"
                row = IndexedFile("ROOT_GAME:/", f"common/traits/{digest}.txt", 1, 1, digest)
                index.update("ROOT_GAME:/", [row], {digest: Parsed.of("script", False, rows, (), ())}, [])
            index.record_build(Build("p", "now", 20, 20, 0.1))
            left.append(log.stat().st_size if log.exists() else 0)

    assert mine
    assert left == [0] * 5


def test_keysets_of_the_same_keys_on_other_lines_share_their_keys_and_keep_their_own_lines(base: Path):
    index = SqliteIndex(base / "content-index.db")
    english = [("localisation", "a", 2, "english"), ("localisation", "b", 3, "english")]
    french = [("localisation", "a", 4, "french"), ("localisation", "b", 12345678, "french")]
    stored(index, GAME, "localization/english/x_l_english.yml", "e", english)
    stored(index, GAME, "localization/french/x_l_french.yml", "f", french)

    with sqlite3.connect(index.path) as db:
        sets = db.execute("SELECT count(*) FROM keysets").fetchone()[0]
        lists = db.execute("SELECT count(*) FROM keylists").fetchone()[0]
        rows = db.execute("SELECT count(*) FROM keylist_rows").fetchone()[0]
    found = sorted((d.language, d.line) for d in index.defined([GAME], "b", "localisation"))

    assert (sets, lists, rows) == (2, 1, 2)
    assert found == [("english", 3), ("french", 12345678)]
    in_french = index.defined_in(GAME, "localization/french/x_l_french.yml")
    assert [(d.key, d.line) for d in in_french] == [("a", 4), ("b", 12345678)]


def test_define_reads_the_keys_own_rows_first_never_every_file_of_the_sources(base: Path):
    index = SqliteIndex(base / "content-index.db")
    stored(index, GAME, "common/traits/t.txt", "t", [("traits", "brave", 1, "")])
    stored(
        index, GAME, "localization/english/x_l_english.yml", "e", [("localisation", "brave", 2, "english")]
    )
    asked: list[str] = []
    index._db.set_trace_callback(asked.append)

    found = index.defined([GAME], "brave", "traits")
    index._db.set_trace_callback(None)
    (sql,) = [statement for statement in asked if "def_rows" in statement]
    with sqlite3.connect(index.path) as db:
        outer = [row[3] for row in db.execute("EXPLAIN QUERY PLAN " + sql) if row[1] == 0]

    assert [d.line for d in found] == [1]
    assert outer[0].startswith(("SCAN d", "CO-ROUTINE d", "MATERIALIZE d"))
    assert not any(step.startswith("SEARCH f USING INDEX sqlite_autoindex_files_1") for step in outer)


def test_a_localisation_line_past_a_keysets_digits_keeps_its_row_as_it_is(base: Path):
    index = SqliteIndex(base / "content-index.db")
    far = [("localisation", "far", 10**8, "english")]
    stored(index, GAME, "localization/english/x_l_english.yml", "e", far)

    with sqlite3.connect(index.path) as db:
        sets = db.execute("SELECT count(*) FROM keysets").fetchone()[0]

    assert sets == 0
    assert [d.line for d in index.defined([GAME], "far", "localisation")] == [10**8]
