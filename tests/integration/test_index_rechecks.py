"""The index's re-check before a question, spared by change notification (SPEC §15): a folder in which
nothing changed since its last complete re-check is not looked at again, an edit made outside the server
is found by the next re-check all the same, and a re-check that left files not indexed is made again."""

from pathlib import Path

import pytest

from adapters.inotify_changes import InotifyChanges
from adapters.local_files import LocalFiles
from adapters.sqlite_index import SqliteIndex
from domain.ck3 import content_index
from domain.ck3.rechecks import Rechecks
from domain.vocabulary import Mode, RootCategory
from domain.world.adapter import WorldAdapter, WorldView

R = RootCategory
FOLDERS = ("common", "events")


@pytest.fixture
def game(tmp_path: Path) -> Path:
    root = tmp_path / "game"
    for n in range(3):
        path = root / "common" / "traits" / f"0{n}_traits.txt"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"trait_{n} = {{\n\tindex = {n}\n}}\n", encoding="utf-8")
    (root / "events").mkdir()
    (root / "events" / "a.txt").write_text("namespace = a\na.1 = {\n}\n", encoding="utf-8")
    return root


def setup(game: Path) -> tuple[WorldAdapter, SqliteIndex, Rechecks]:
    world = WorldAdapter(
        LocalFiles({"ROOT_GAME": game}), WorldView(Mode.CK3RAVEN_DEV, frozenset({R.ROOT_GAME}), ())
    )
    index = SqliteIndex(game.parent / "index.db")
    return world, index, Rechecks(InotifyChanges({"ROOT_GAME": game}))


def test_a_folder_where_nothing_changed_is_not_looked_at_again(game: Path):
    world, index, rechecks = setup(game)
    found = content_index.sources_of(world)
    first = content_index.refresh(world, index, found, FOLDERS, rechecks=rechecks)
    again = content_index.refresh(world, index, found, FOLDERS, rechecks=rechecks)
    assert (first.seen, again.seen) == (4, 0)


def test_an_edit_outside_the_server_is_found_by_the_next_recheck_of_its_folder_alone(game: Path):
    world, index, rechecks = setup(game)
    found = content_index.sources_of(world)
    content_index.refresh(world, index, found, FOLDERS, rechecks=rechecks)
    (game / "common" / "traits" / "01_traits.txt").write_text("zealous = {\n}\n", encoding="utf-8")
    again = content_index.refresh(world, index, found, FOLDERS, rechecks=rechecks)
    assert (again.seen, again.parsed) == (3, 1)
    assert [d.key for d in index.defined(["ROOT_GAME:/"], "zealous")] == ["zealous"]
    assert index.defined(["ROOT_GAME:/"], "trait_1") == []


def test_a_recheck_that_left_files_not_indexed_is_made_again(game: Path):
    world, index, rechecks = setup(game)
    found = content_index.sources_of(world)
    partial = content_index.refresh(world, index, found, FOLDERS, budget=1, rechecks=rechecks)
    again = content_index.refresh(world, index, found, FOLDERS, rechecks=rechecks)
    assert partial.pending == 3
    assert (again.seen, again.parsed) == (4, 3)


def test_every_folder_is_looked_at_again_once_another_writer_committed_to_the_index(game: Path):
    world, index, rechecks = setup(game)
    found = content_index.sources_of(world)
    content_index.refresh(world, index, found, FOLDERS, rechecks=rechecks)
    other = SqliteIndex(game.parent / "index.db")  # another server on the state directory
    other.update("ROOT_GAME:/", [], {}, ["common/traits/00_traits.txt"])
    again = content_index.refresh(world, index, found, FOLDERS, rechecks=rechecks)
    assert (again.seen, again.parsed) == (4, 0)
    assert [d.key for d in index.defined(["ROOT_GAME:/"], "trait_0")] == ["trait_0"]


def test_a_folder_is_recorded_re_checked_only_once_every_file_of_it_is_stored(
    game: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setattr(content_index, "BATCH", 1)  # the folder's last batches still in flight at its end
    world, index, rechecks = setup(game)
    held_at_completion: list[tuple[str, int]] = []
    complete = rechecks.complete

    def recorded(top: str, folder: str, generation: int | None, version: int) -> None:
        held_at_completion.append((folder, len(index.files(top, folder))))
        complete(top, folder, generation, version)

    monkeypatch.setattr(rechecks, "complete", recorded)
    content_index.refresh(world, index, content_index.sources_of(world), FOLDERS, rechecks=rechecks)

    assert held_at_completion == [("common", 3), ("events", 1)]
