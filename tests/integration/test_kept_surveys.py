"""Surveys that keep their listings (inotify marks, real folders): after any change a marked survey's table
equals a fresh walk's; a folder where nothing happened is not listed again; where marks cannot vouch (a
file with a second name, a special file, a file system another machine or a layer beneath changes, lost
events) folders are listed afresh; an adapter closed removes its marks."""

import os
import random
from pathlib import Path

import pytest

from adapters import inotify_changes, local_tables, survey_marks
from adapters.local_files import LocalFiles
from ports.files import Location

TOP = Location("ROOT_USER_DOCS")


def _keep(parts: tuple[str, ...], _kind: str) -> bool:
    return parts[-1] != ".git"


def _whole(_parts: tuple[str, ...], names: list[str]) -> bool:
    return ".git" not in names


def _table(files: LocalFiles) -> dict:
    return files.survey_table(TOP, _keep, "", _whole)


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    docs = tmp_path / "docs"
    for mod in ("a", "b"):
        for folder in ("common/traits", "events", "localization/english"):
            (docs / "mod" / mod / folder).mkdir(parents=True)
            (docs / "mod" / mod / folder / "00.txt").write_text(f"{mod} {folder}\n", encoding="utf-8")
    return docs


@pytest.fixture
def marked(docs: Path):
    files = LocalFiles({TOP.root: docs}, marked=True)
    yield files
    files.close()


@pytest.fixture
def listings(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The folders each survey lists (by their descriptors' count), counted as they are listed."""
    count: list[int] = []
    real = local_tables._listed

    def counted(fd: int):
        count.append(fd)
        return real(fd)

    monkeypatch.setattr(local_tables, "_listed", counted)
    return count


def _fresh(docs: Path) -> dict:
    files = LocalFiles({TOP.root: docs})
    try:
        return _table(files)
    finally:
        files.close()


def _atomic_save(path: Path, text: str) -> None:
    spare = path.with_name(path.name + ".tmp")
    spare.write_text(text, encoding="utf-8")
    spare.replace(path)


def _moved_out_and_back(docs: Path) -> None:
    outside = docs.parent / "away"
    (docs / "mod/a/events").rename(outside)
    (outside / "00.txt").write_text("changed outside\n", encoding="utf-8")
    outside.rename(docs / "mod/a/events")


def _folder_swapped(docs: Path) -> None:
    (docs / "mod/a/events").rename(docs / "mod/a/old_events")
    (docs / "mod/a/events").mkdir()
    (docs / "mod/a/events/00.txt").write_text("a events\n", encoding="utf-8")  # same text, another folder


def _link_for_folder(docs: Path) -> None:
    (docs / "mod/b/events/00.txt").unlink()
    (docs / "mod/b/events").rmdir()
    (docs / "mod/b/events").symlink_to(docs / "mod/a/events")


def _ancestor_replaced(docs: Path) -> None:
    (docs / "mod/a").rename(docs.parent / "a-elsewhere")  # its folders below get no event of their own
    (docs / "mod/a/events").mkdir(parents=True)


def _siblings_swapped_then_written(docs: Path) -> None:
    (docs / "mod/a").rename(docs / "mod/swap")
    (docs / "mod/b").rename(docs / "mod/a")
    (docs / "mod/swap").rename(docs / "mod/b")
    (docs / "mod/b/events/00.txt").write_text("written after the swap\n", encoding="utf-8")


def _second_name_made_then_written(docs: Path) -> None:
    os.link(docs / "mod/a/events/00.txt", docs / "mod/b/events/link.txt")  # no event for mod/a/events
    with (docs / "mod/b/events/link.txt").open("a", encoding="utf-8") as other:
        other.write("appended through the other name\n")


CHANGES = {
    "same size written": lambda d: (d / "mod/a/events/00.txt").write_text("A EVENTS\n", encoding="utf-8"),
    "touched": lambda d: os.utime(d / "mod/a/events/00.txt", ns=(1, 1)),
    "mode changed": lambda d: (d / "mod/a/events/00.txt").chmod(0o600),
    "atomic save": lambda d: _atomic_save(d / "mod/b/common/traits/00.txt", "b traits\n"),
    "added": lambda d: (d / "mod/b/events/01.txt").write_text("new\n", encoding="utf-8"),
    "removed": lambda d: (d / "mod/b/events/00.txt").unlink(),
    "renamed": lambda d: (d / "mod/b/events/00.txt").rename(d / "mod/b/events/zz.txt"),
    "folder renamed": lambda d: (d / "mod/a/localization").rename(d / "mod/a/loc"),
    "folder made, file in it": lambda d: (
        (d / "mod/a/new/deeper").mkdir(parents=True),
        (d / "mod/a/new/deeper/x.txt").write_text("x\n", encoding="utf-8"),
    ),
    "folder moved out, changed, moved back": _moved_out_and_back,
    "folder swapped for another of the same name": _folder_swapped,
    "folder swapped for a link": _link_for_folder,
    "link made": lambda d: (d / "mod/a/events/l.txt").symlink_to("00.txt"),
    "a folder above renamed away, its name made again": _ancestor_replaced,
    "two folders swapped, then a file below one written": _siblings_swapped_then_written,
    "a second name made in another folder, then written through": _second_name_made_then_written,
}


@pytest.mark.parametrize("change", CHANGES.values(), ids=CHANGES.keys())
def test_after_any_change_a_kept_survey_equals_a_fresh_walk(marked: LocalFiles, docs: Path, change):
    before = _table(marked)
    _table(marked)  # the listings kept
    change(docs)
    after = _table(marked)
    assert after == _fresh(docs)
    assert after != before


def test_a_survey_of_an_unchanged_folder_lists_nothing_again(marked: LocalFiles, listings: list[int]):
    first = _table(marked)
    listed = len(listings)
    assert _table(marked) == first
    assert len(listings) == listed  # nothing listed again


def test_only_the_folder_where_a_file_changed_is_listed_again(marked, docs: Path, listings: list[int]):
    _table(marked)
    listed = len(listings)
    (docs / "mod/a/events/00.txt").write_text("A EVENTS\n", encoding="utf-8")
    after = _table(marked)
    assert len(listings) == listed + 1
    assert after == _fresh(docs)


def test_a_folder_holding_a_file_with_a_second_name_is_listed_every_time(marked, docs: Path, listings):
    os.link(docs / "mod/a/events/00.txt", docs.parent / "second-name.txt")
    _table(marked)
    listed = len(listings)
    (docs.parent / "second-name.txt").write_text("written through the other name\n", encoding="utf-8")
    after = _table(marked)
    assert len(listings) == listed + 1
    assert after == _fresh(docs)


def test_a_folder_holding_a_special_file_is_listed_every_time(marked, docs: Path, listings: list[int]):
    os.mkfifo(docs / "mod/a/events/pipe")  # its times move when it is written, with no event
    _table(marked)
    listed = len(listings)
    _table(marked)
    assert len(listings) == listed + 1


def test_closing_the_files_adapter_removes_its_marks(docs: Path):
    files = LocalFiles({TOP.root: docs}, marked=True)
    live = survey_marks.shared()._live  # the process's marks: other tests' adapters may hold some too
    _table(files)
    mine = set().union(*(kept.marks() for kept in files._kept.values()))
    assert mine
    assert mine <= live
    files.close()
    assert not mine & live


def test_past_its_share_of_the_users_watches_a_survey_lists_the_folders_it_could_not_mark(
    docs: Path, listings: list[int], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
):
    limit = tmp_path / "max_user_watches"
    limit.write_text(str(3 * inotify_changes.SHARE), encoding="ascii")  # room for three marks
    monkeypatch.setattr(inotify_changes, "USER_LIMIT", limit)
    monkeypatch.setattr(survey_marks, "_SHARED", [])  # the process's instance made afresh, with that room
    files = LocalFiles({TOP.root: docs}, marked=True)
    try:
        first = _table(files)
        listed = len(listings)
        assert _table(files) == first
        assert len(listings) == listed + (listed - 3)
    finally:
        files.close()


def test_on_a_file_system_another_machine_changes_every_folder_is_listed(marked, listings, monkeypatch):
    monkeypatch.setattr(inotify_changes, "LOCAL", frozenset())
    first = _table(marked)
    listed = len(listings)
    assert _table(marked) == first
    assert len(listings) == 2 * listed


def test_on_overlayfs_whose_layers_change_beneath_it_every_folder_is_listed(
    marked, docs: Path, listings, monkeypatch
):
    lib = inotify_changes.libc()
    assert lib is not None
    fd = os.open(docs, os.O_RDONLY | os.O_DIRECTORY)
    try:
        here = inotify_changes.kind_of_folder(lib, fd)
    finally:
        os.close(fd)
    monkeypatch.setattr(survey_marks, "OVERLAY", here)  # the test's own file system taken for overlayfs
    first = _table(marked)
    listed = len(listings)
    assert _table(marked) == first
    assert len(listings) == 2 * listed


def test_when_events_were_lost_every_folder_is_listed_afresh(marked, docs: Path, listings: list[int]):
    _table(marked)
    listed = len(listings)
    pair = (docs / "mod/a/events/00.txt", docs / "mod/b/events/00.txt")
    limit = int(Path("/proc/sys/fs/inotify/max_queued_events").read_text(encoding="ascii"))
    for tick in range(limit + 10):  # more events than the kernel queues (two files: none merged)
        os.utime(pair[tick % 2], ns=(tick, tick))
    after = _table(marked)
    assert len(listings) == 2 * listed
    assert after == _fresh(docs)


def test_a_kept_survey_matches_a_fresh_walk_through_a_long_run_of_random_changes(marked, docs: Path):
    chooser = random.Random(20261129)  # noqa: S311 - a repeatable run of changes, no secret
    for step in range(60):
        _random_change(chooser, docs, step)
        assert _table(marked) == _fresh(docs), f"step {step}"


def _random_change(chooser: random.Random, docs: Path, step: int) -> None:
    folders = sorted(p for p in docs.rglob("*") if p.is_dir() and not p.is_symlink())
    files = sorted(p for p in docs.rglob("*") if p.is_file() and not p.is_symlink())
    folder = chooser.choice(folders)
    kind = chooser.randrange(6)
    if kind == 0 or not files:
        (folder / f"n{step}.txt").write_text(str(step), encoding="utf-8")
    elif kind == 1:
        chooser.choice(files).write_text(f"{step:>4}", encoding="utf-8")
    elif kind == 2:
        chooser.choice(files).unlink()
    elif kind == 3:
        (folder / f"d{step}").mkdir()
    elif kind == 4 and folder != docs:
        folder.rename(folder.with_name(f"r{step}"))
    else:
        os.utime(chooser.choice(files), ns=(step, step))
