"""A whole build's files are read and parsed by worker processes (app.parse_workers) through a world of
their own: the same roots seen the same way as the builder's, so a worker reads no file the builder could
not, and the index they fill is the one the builder alone would fill."""

from pathlib import Path

import pytest

from adapters.local_files import LocalFiles
from adapters.sqlite_index import SqliteIndex
from adapters.system_clock import SystemClock
from app.parse_workers import Workers
from domain.ck3 import content_index
from domain.use_cases.content_queries import build_into
from domain.vocabulary import Mode, RootCategory
from domain.world.adapter import WorldAdapter
from domain.world.view import WorldView

VIEW = WorldView(Mode.CK3RAVEN_DEV, frozenset({RootCategory.ROOT_GAME}), ())


@pytest.fixture
def game(tmp_path: Path) -> Path:
    root = tmp_path / "game"
    (root / "common" / "traits").mkdir(parents=True)
    (root / "common" / "traits" / "00_traits.txt").write_text("brave = { index = 1 }\ncraven = { }\n")
    (root / "events").mkdir()
    event = "namespace = birth\nbirth.0001 = { trigger = { brave = yes } }\n"
    (root / "events" / "birth.txt").write_text(event)
    (root / "localization" / "english").mkdir(parents=True)
    (root / "localization" / "english" / "t_l_english.yml").write_text('l_english:\n brave:0 "Brave"\n')
    outside = tmp_path / "outside.txt"
    outside.write_text("outside_trait = { }\n")
    (root / "common" / "traits" / "01_linked.txt").symlink_to(outside)
    return root


def _built(game: Path, db: Path, *, workers: bool) -> SqliteIndex:
    roots = {RootCategory.ROOT_GAME.value: game}
    world = WorldAdapter(LocalFiles(roots), VIEW)
    index = SqliteIndex(db)
    if workers:
        with Workers(2, roots, VIEW) as parsing:
            assert build_into(index, SystemClock(), world, "p", parsing) is not None
    else:
        assert build_into(index, SystemClock(), world, "p") is not None
    return index


def test_workers_fill_the_index_the_builder_alone_would_and_read_no_file_linked_from_outside(
    game: Path, tmp_path: Path
):
    by_workers = _built(game, tmp_path / "workers.db", workers=True)
    alone = _built(game, tmp_path / "alone.db", workers=False)
    top = content_index.sources_of(WorldAdapter(LocalFiles({"ROOT_GAME": game}), VIEW))[0].folder

    assert by_workers.keys_of([top], "traits") == ["brave", "craven"]
    assert set(by_workers.files(top)) == set(alone.files(top))
    for kind in ("traits", "event", "namespace", "localisation"):
        assert by_workers.keys_of([top], kind) == alone.keys_of([top], kind)
    assert [m[1:] for m in by_workers.mentions([top], "brave")] == [("events/birth.txt", 2)]


def test_a_worker_asked_for_a_file_linked_from_outside_reads_nothing_of_it(game: Path):
    roots = {RootCategory.ROOT_GAME.value: game}
    top = content_index.sources_of(WorldAdapter(LocalFiles(roots), VIEW))[0].folder

    with Workers(1, roots, VIEW) as parsing:
        linked, plain = parsing.read(top, ["common/traits/01_linked.txt", "common/traits/00_traits.txt"])()

    assert linked is None
    assert plain is not None
    assert plain[1] is not None
    assert plain[1].defined[1] == ("brave", "craven")
