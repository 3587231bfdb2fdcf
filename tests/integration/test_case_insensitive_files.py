"""On a filesystem that ignores case, the Files port holds every entry to the one spelling its folder lists:
run on a real folder of such a filesystem (mounted for the test; skipped, saying why, where that cannot be
done) and on the in-memory adapter's case-insensitive mode alike."""

import copy
from collections.abc import Iterator
from pathlib import Path

import pytest

from adapters.local_files import LocalFiles
from adapters.memory_files import MemoryFiles
from ports.errors import Misspelled, NotFound
from ports.files import Entry, Files, Location
from tests.integration.test_files_contract import materialize

TREE: dict[str, object] = {"README.md": b"read me", "Docs": {"Guide.txt": b"guide", "Old": {}}}


@pytest.fixture(params=["memory", "local", "local-segment-walk"])
def files(request: pytest.FixtureRequest) -> Iterator[Files]:
    if request.param == "memory":
        yield MemoryFiles({"ROOT_REPO": copy.deepcopy(TREE)}, ignores_case=True)  # it writes into the tree
        return
    folder = request.getfixturevalue("folding")
    materialize(folder, TREE)
    local = LocalFiles({"ROOT_REPO": folder}, use_openat2=request.param == "local")
    yield local
    local.close()


def at(*parts: str) -> Location:
    return Location("ROOT_REPO", parts)


def misspelled(files: Files, location: Location) -> tuple[str, ...] | None:
    with pytest.raises(Misspelled) as caught:
        files.kind(location)
    return caught.value.spelled


def test_the_store_tells_that_its_root_ignores_case(files: Files):
    assert files.ignores_case("ROOT_REPO")


def test_a_root_on_a_filesystem_that_tells_case_apart_is_probed_as_such(tmp_path: Path):
    materialize(tmp_path, TREE)
    local = LocalFiles({"ROOT_REPO": tmp_path})

    assert not local.ignores_case("ROOT_REPO")
    with pytest.raises(NotFound):
        local.kind(at("readme.md"))
    local.close()


def test_the_spelling_the_folder_lists_answers(files: Files):
    assert files.kind(at("Docs", "Guide.txt")) == "file"
    assert files.kind(at("Docs", "Old")) == "dir"


def test_another_spelling_of_a_file_is_refused_with_the_listed_one(files: Files):
    assert misspelled(files, at("readme.MD")) == ("README.md",)


def test_another_spelling_of_a_folder_on_the_way_is_refused_with_the_listed_one(files: Files):
    assert misspelled(files, at("DOCS", "guide.TXT")) == ("Docs", "Guide.txt")


def test_a_missing_entry_below_a_folder_spelled_otherwise_is_refused_with_the_folder_as_listed(files: Files):
    assert misspelled(files, at("docs", "old", "new", "file.txt")) == ("Docs", "Old", "new", "file.txt")


def test_a_missing_entry_below_folders_spelled_as_listed_is_not_found(files: Files):
    with pytest.raises(NotFound):
        files.kind(at("Docs", "new.txt"))


def test_a_write_under_another_spelling_is_refused_and_changes_nothing(files: Files):
    with pytest.raises(Misspelled):
        files.write(at("docs", "GUIDE.txt"), b"overwritten")

    assert files.read(at("Docs", "Guide.txt"), 100) == b"guide"
    assert [entry.name for entry in files.list_dir(at("Docs"))] == ["Guide.txt", "Old"]


def test_an_exclusive_write_below_a_folder_spelled_otherwise_is_refused(files: Files):
    with pytest.raises(Misspelled):
        files.write(at("DOCS", "new.txt"), b"new", exclusive=True)

    assert [entry.name for entry in files.list_dir(at("Docs"))] == ["Guide.txt", "Old"]


def test_a_write_spelled_as_listed_replaces_the_file(files: Files):
    files.write(at("Docs", "Guide.txt"), b"rewritten")

    assert files.read(at("Docs", "Guide.txt"), 100) == b"rewritten"


def test_a_delete_under_another_spelling_is_refused_and_the_file_stays(files: Files):
    with pytest.raises(Misspelled):
        files.delete(at("Readme.md"))

    assert files.kind(at("README.md")) == "file"


def test_a_listing_names_entries_as_the_folder_has_them(files: Files):
    assert files.list_dir(at()) == [Entry("Docs", "dir"), Entry("README.md", "file", 7)]
