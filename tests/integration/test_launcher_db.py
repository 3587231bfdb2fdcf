"""The launcher database, read-only, in both schemas: zero-padded text positions and integer ones."""

import sqlite3
from pathlib import Path

import pytest

from adapters.launcher_db import SqliteLauncher
from adapters.local_files import LocalFiles
from examples.launcher_db import build
from tests.worlds import SAMPLE


@pytest.fixture
def documents(tmp_path: Path) -> Path:
    folder = tmp_path / "documents"
    (folder / "mod" / "LocalFix").mkdir(parents=True)
    (folder / "mod" / "LocalFix.mod").write_text('name="Local Fix"\npath="mod/LocalFix"\n', encoding="utf-8")
    (tmp_path / "steam").mkdir()
    return folder


def launcher(documents: Path) -> SqliteLauncher:
    roots = {"ROOT_USER_DOCS": documents, "ROOT_STEAM": documents.parent / "steam"}
    return SqliteLauncher(roots, LocalFiles(roots))


def sample_playset(documents: Path) -> list[tuple[str, tuple[str, tuple[str, ...]] | None]]:
    state = launcher(documents).read()
    assert state is not None
    playset = next(p for p in state.playsets if p.name == "Sample Playset")
    return [(mod.name, mod.folder) for mod in playset.mods]


EXPECTED = [
    ("Better Traits", ("ROOT_STEAM", ("2217000001",))),
    ("More Events", ("ROOT_STEAM", ("2217000002",))),
    ("Local Fix", ("ROOT_USER_DOCS", ("mod", "LocalFix"))),
]


@pytest.mark.parametrize("integer_positions", [False, True], ids=["text-positions", "integer-positions"])
def test_both_schemas_give_the_same_mods_in_the_same_order(documents: Path, integer_positions: bool):
    build(documents / "launcher-v2.sqlite", integer_positions=integer_positions)

    assert sample_playset(documents) == EXPECTED


@pytest.mark.parametrize("integer_positions", [False, True])
def test_the_schema_is_told_from_the_launchers_migrations(documents: Path, integer_positions: bool):
    build(documents / "launcher-v2.sqlite", integer_positions=integer_positions)

    state = launcher(documents).read()

    assert state is not None
    assert state.schema == ("integer-positions" if integer_positions else "text-positions")


def test_text_positions_past_nine_keep_their_numeric_order(documents: Path):
    database = documents / "launcher-v2.sqlite"
    build(database)
    with sqlite3.connect(database) as db:  # the local mod moves to position 10: after the others
        db.execute("update playsets_mods set position = '0000000010' where modId = 'm-traits'")

    assert [name for name, _ in sample_playset(documents)] == ["More Events", "Local Fix", "Better Traits"]


def test_the_database_is_never_written(documents: Path):
    database = documents / "launcher-v2.sqlite"
    build(database)
    before = database.read_bytes()

    launcher(documents).read()

    assert database.read_bytes() == before


def test_without_a_launcher_database_there_is_nothing_to_read(documents: Path):
    assert launcher(documents).read() is None


def test_the_sample_world_ships_a_launcher_database_in_the_real_schema():
    with sqlite3.connect(f"file:{SAMPLE / 'documents' / 'launcher-v2.sqlite'}?mode=ro", uri=True) as db:
        tables = {row[0] for row in db.execute("select name from sqlite_master where type = 'table'")}

    assert {"playsets", "playsets_mods", "mods", "knex_migrations"} <= tables
