"""A playset is usable only with usable names and mod folders that are top folders of the mod places."""

import pytest

from domain.world.playsets import problems
from ports.playsets import ModRecord, PlaysetRecord


def playset(name: str = "Mine", folder: str = "ROOT_USER_DOCS:/mod/Fix") -> PlaysetRecord:
    return PlaysetRecord(name, (ModRecord("Fix", folder),))


def test_a_playset_with_usable_names_and_top_folders_has_no_problems():
    assert problems(playset()) == []


@pytest.mark.parametrize("name", ["copy of ~/x", "a:b", "", " padded", "tab\there"])
def test_a_playset_name_that_could_not_be_spelled_is_a_problem(name: str):
    assert ("$.name", "must be a non-empty name without ':', '/' or control characters") in problems(
        playset(name)
    )


@pytest.mark.parametrize(
    "folder", ["ROOT_USER_DOCS:/mod/a/b", "ROOT_STEAM:/221/sub", "ROOT_USER_DOCS:/mod", "ROOT_REPO:/mod/x"]
)
def test_a_mod_folder_below_a_top_folder_or_elsewhere_is_a_problem(folder: str):
    assert [where for where, _ in problems(playset(folder=folder))] == ["$.mods[0].folder"]
