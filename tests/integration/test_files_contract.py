"""The Files port contract, run against the in-memory and the local adapter alike."""

import copy
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from adapters.local_files import LocalFiles
from adapters.memory_files import SPECIAL, Link, MemoryFiles
from ports.errors import LinkRefused, NotADirectory, NotFound, SpecialFile, TooLarge
from ports.files import Entry, Files, Kind, Location

TREE: dict[str, object] = {
    "a": {"b": {"c": {"deep.txt": b"deep"}}, "one.txt": b"1"},
    "z.txt": b"zz",
    "empty": {},
    "link": Link("a"),
    "fifo": SPECIAL,
}


def materialize(folder: Path, tree: dict[str, object]) -> None:
    for name, node in tree.items():
        path = folder / name
        if isinstance(node, dict):
            path.mkdir()
            materialize(path, node)
        elif isinstance(node, bytes):
            path.write_bytes(node)
        elif isinstance(node, Link):
            path.symlink_to(node.target)
        else:
            os.mkfifo(path)


@pytest.fixture(params=["memory", "local", "local-segment-walk"])
def files(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Files]:
    if request.param == "memory":
        yield MemoryFiles({"ROOT_REPO": copy.deepcopy(TREE)})  # it writes into the tree it is given
        return
    materialize(tmp_path, TREE)
    local = LocalFiles({"ROOT_REPO": tmp_path}, use_openat2=request.param == "local")
    yield local
    local.close()


def at(*parts: str) -> Location:
    return Location("ROOT_REPO", parts)


def test_the_store_names_its_roots(files: Files):
    assert files.roots() == frozenset({"ROOT_REPO"})


def test_a_listing_reports_every_kind_sorted_by_name(files: Files):
    assert files.list_dir(at()) == [
        Entry("a", "dir"),
        Entry("empty", "dir"),
        Entry("fifo", "special"),
        Entry("link", "symlink"),
        Entry("z.txt", "file", 2),
    ]


@pytest.mark.parametrize(
    ("parts", "kind"),
    [((), "dir"), (("a",), "dir"), (("z.txt",), "file"), (("link",), "symlink"), (("fifo",), "special")],
)
def test_kind_reports_what_stands_there_without_following_links(files: Files, parts, kind):
    assert files.kind(at(*parts)) == kind


def test_a_missing_entry_is_not_found(files: Files):
    with pytest.raises(NotFound):
        files.kind(at("a", "missing"))


def test_descending_through_a_link_is_refused(files: Files):
    with pytest.raises(LinkRefused):
        files.list_dir(at("link"))


def test_a_path_below_a_link_is_refused(files: Files):
    with pytest.raises(LinkRefused):
        files.kind(at("link", "one.txt"))


def test_listing_a_file_is_not_a_directory(files: Files):
    with pytest.raises(NotADirectory):
        files.list_dir(at("z.txt"))


def test_reading_a_file_returns_its_bytes(files: Files):
    assert files.read(at("a", "b", "c", "deep.txt"), 100) == b"deep"


def test_reading_past_the_limit_is_refused(files: Files):
    with pytest.raises(TooLarge):
        files.read(at("z.txt"), 1)


def test_reading_a_link_is_refused(files: Files):
    with pytest.raises(LinkRefused):
        files.read(at("link"), 100)


def test_reading_a_special_file_is_refused_without_blocking(files: Files):
    with pytest.raises(SpecialFile):
        files.read(at("fifo"), 100)


def test_a_walk_is_depth_first_sorted_and_bounded_by_depth_each_folder_named_by_its_path(files: Files):
    assert list(files.walk_dirs(at(), 2, lambda _: True)) == ["a", "a/b", "empty"]


def test_a_walk_of_a_folder_names_its_folders_by_their_paths_below_it(files: Files):
    assert list(files.walk_dirs(at("a"), 9, None)) == ["b", "b/c"]


def test_a_walk_neither_yields_nor_enters_a_refused_folder(files: Files):
    asked: list[str] = []

    def keep(path: str) -> bool:
        asked.append(path)
        return path != "a/b"

    walked = list(files.walk_dirs(at(), 9, keep))

    assert walked == ["a", "empty"]
    assert asked == ["a", "a/b", "empty"]


def test_a_walk_spells_each_folder_after_what_is_above_it_and_asks_keep_with_its_path_alone(files: Files):
    asked: list[str] = []

    def keep(path: str) -> bool:
        asked.append(path)
        return path != "a/b"

    assert list(files.walk_dirs(at(), 9, keep, above="ROOT_GAME:/")) == ["ROOT_GAME:/a", "ROOT_GAME:/empty"]
    assert asked == ["a", "a/b", "empty"]
    assert list(files.walk_dirs(at("a"), 9, None, above="R:/a/")) == ["R:/a/b", "R:/a/b/c"]


def test_a_walks_sift_leaves_out_what_it_does_not_give_back_before_keep_is_asked(files: Files):
    folders: list[list[tuple[str, str]]] = []
    asked: list[tuple[str, ...]] = []

    def sift(entries: list[tuple[str, Kind]]) -> list[tuple[str, Kind]]:
        folders.append(list(entries))
        return [(name, kind) for name, kind in entries if name not in {"b", "z.txt"}]

    def keep(parts: tuple[str, ...], _: Kind) -> bool:
        asked.append(parts)
        return True

    walked = [parts for parts, _ in files.walk(at(), 9, keep, sift)]

    assert walked == asked == [("a",), ("a", "one.txt"), ("empty",), ("fifo",), ("link",)]
    assert folders[0] == [
        ("a", "dir"),
        ("empty", "dir"),
        ("fifo", "special"),
        ("link", "symlink"),
        ("z.txt", "file"),
    ]
    assert folders[1:] == [[("b", "dir"), ("one.txt", "file")], []]  # each folder entered, once, sorted


def test_a_folder_walks_sift_leaves_out_the_names_it_does_not_give_back_and_keep_none_keeps_the_rest(
    files: Files,
):
    folders: list[list[str]] = []

    def sift(names: list[str]) -> list[str]:
        folders.append(list(names))
        return [name for name in names if name != "b"]

    assert list(files.walk_dirs(at(), 9, None, sift)) == ["a", "empty"]
    assert folders == [["a", "empty"], ["b"]]  # each folder's folders, sorted, each folder that has any once
    assert list(files.walk_dirs(at(), 2, None)) == ["a", "a/b", "empty"]


def test_a_walk_never_enters_a_link(files: Files):
    assert "link" not in list(files.walk_dirs(at(), 9, lambda _: True))


def test_an_unknown_root_is_not_found(files: Files):
    with pytest.raises(NotFound):
        files.list_dir(Location("ROOT_GAME"))


def test_a_survey_reports_every_entry_at_any_depth_with_a_links_target_and_never_follows_it(files: Files):
    found = dict(files.survey(at(), lambda _parts, _kind: True))

    assert {parts: stat.kind for parts, stat in found.items()} == {
        ("a",): "dir",
        ("a", "b"): "dir",
        ("a", "b", "c"): "dir",
        ("a", "b", "c", "deep.txt"): "file",
        ("a", "one.txt"): "file",
        ("empty",): "dir",
        ("fifo",): "special",
        ("link",): "symlink",
        ("z.txt",): "file",
    }
    assert found[("link",)].link == "a"
    assert found[("z.txt",)].size == 2


def test_a_survey_does_not_enter_a_folder_it_is_told_to_skip(files: Files):
    found = [parts for parts, _ in files.survey(at(), lambda parts, _kind: parts != ("a",))]

    assert ("a",) not in found
    assert ("a", "one.txt") not in found
    assert ("z.txt",) in found


def test_a_part_of_a_file_is_a_window_of_its_bytes_with_its_size(files: Files):
    parts = [files.read_part(at("a", "b", "c", "deep.txt"), offset, 3) for offset in (0, 3, 9)]

    assert [(p.data, p.size) for p in parts] == [(b"dee", 4), (b"p", 4), (b"", 4)]


@pytest.mark.parametrize(
    ("parts", "error"), [(("link",), LinkRefused), (("fifo",), SpecialFile), (("no",), NotFound)]
)
def test_a_part_of_a_link_a_special_file_or_nothing_is_refused(
    files: Files, parts: tuple[str, ...], error: type
):
    with pytest.raises(error):
        files.read_part(at(*parts), 0, 10)
