"""Change notification on real folders (Linux inotify): a folder's generation stays the same while nothing
below it changes, and moves at any write, touch, new file, removal, rename, or file in a folder made after
the watch began; a sibling's changes leave it alone; a folder that does not exist has none."""

import os
from pathlib import Path

import pytest

from adapters import inotify_changes
from adapters.inotify_changes import InotifyChanges
from ports.files import Location


@pytest.fixture
def game(tmp_path: Path) -> Path:
    (tmp_path / "common" / "traits").mkdir(parents=True)
    (tmp_path / "common" / "traits" / "00_traits.txt").write_text("brave = {\n}\n", encoding="utf-8")
    (tmp_path / "events").mkdir()
    return tmp_path


@pytest.fixture
def changes(game: Path) -> InotifyChanges:
    return InotifyChanges({"ROOT_GAME": game})


COMMON = Location("ROOT_GAME", ("common",))


def test_a_folder_where_nothing_changes_keeps_its_generation(changes: InotifyChanges):
    first = changes.generation(COMMON)
    assert first is not None
    assert changes.generation(COMMON) == first


@pytest.mark.parametrize(
    "change",
    [
        lambda g: (g / "common/traits/00_traits.txt").write_text("brave = {\n}\n", encoding="utf-8"),
        lambda g: os.utime(g / "common/traits/00_traits.txt", (1, 1)),
        lambda g: (g / "common/traits/01_more.txt").write_text("shy = {\n}\n", encoding="utf-8"),
        lambda g: (g / "common/traits/00_traits.txt").unlink(),
        lambda g: (g / "common/traits/00_traits.txt").rename(g / "common/traits/zz_traits.txt"),
        lambda g: (g / "common/traits").rename(g / "common/renamed"),
    ],
    ids=["written", "touched", "added", "removed", "renamed", "folder renamed"],
)
def test_any_change_below_a_watched_folder_moves_its_generation(changes, game: Path, change):
    first = changes.generation(COMMON)
    change(game)
    assert changes.generation(COMMON) != first


def test_a_file_in_a_folder_made_after_the_watch_began_moves_the_generation(changes, game: Path):
    changes.generation(COMMON)
    (game / "common" / "new").mkdir()
    made = changes.generation(COMMON)
    (game / "common" / "new" / "a.txt").write_text("a = {\n}\n", encoding="utf-8")
    assert changes.generation(COMMON) != made


def test_a_sibling_folders_changes_leave_a_generation_alone(changes, game: Path):
    first = changes.generation(COMMON)
    (game / "events" / "e.txt").write_text("namespace = e\n", encoding="utf-8")
    assert changes.generation(COMMON) == first


def test_a_folder_that_does_not_exist_has_no_generation(changes):
    assert changes.generation(Location("ROOT_GAME", ("gui",))) is None
    assert changes.generation(Location("ROOT_STEAM", ("common",))) is None


def test_a_folder_on_a_file_system_not_known_to_be_local_has_no_generation(
    changes, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setattr(inotify_changes, "LOCAL", frozenset())
    assert changes.generation(COMMON) is None


def test_a_user_whose_watches_are_too_few_for_a_share_gets_no_generation(
    game: Path, monkeypatch, tmp_path: Path
):
    limit = tmp_path / "max_user_watches"
    limit.write_text(str(inotify_changes.SHARE - 1), encoding="ascii")  # a share of no watch at all
    monkeypatch.setattr(inotify_changes, "USER_LIMIT", limit)
    assert InotifyChanges({"ROOT_GAME": game}).generation(COMMON) is None
