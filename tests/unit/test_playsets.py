"""A playset is usable only with usable names and mod folders that are top folders of the mod places."""

import pytest

from domain.vocabulary import RootCategory
from domain.world.playsets import ModFolder, folder_address, mod_folders, problems
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


def test_each_problem_names_its_field_and_what_the_field_must_be():
    mods = (
        ModRecord("Fix", "ROOT_USER_DOCS:/mod/Fix", workshop_id="12a"),
        ModRecord("a:b", "mod:Fix:/", workshop_id="12a"),
    )

    assert problems(PlaysetRecord("Mine", mods)) == [
        ("$.mods[0].workshop_id", "must be digits"),
        ("$.mods[1].workshop_id", "is used by another mod of this playset"),
        ("$.mods[1].name", "must be a non-empty name without ':', '/' or control characters"),
        ("$.mods[1].workshop_id", "must be digits"),
        ("$.mods[1].folder", "must be a top folder of ROOT_STEAM or of ROOT_USER_DOCS:/mod/"),
    ]


@pytest.mark.parametrize("folder", ["mod/Fix", "2217000001", "mod:Fix:/", "ROOT_STEAM:/", "C:/mods/Fix"])
def test_a_mod_folder_not_written_as_a_root_address_is_a_problem(folder: str):
    assert [where for where, _ in problems(playset(folder=folder))] == ["$.mods[0].folder"]


def test_the_mod_folders_of_a_playset_are_its_enabled_mods_in_load_order():
    record = PlaysetRecord(
        "Mine",
        (
            ModRecord("Local", "ROOT_USER_DOCS:/mod/Local/", load_order=3),
            ModRecord("Off", "ROOT_STEAM:/2", enabled=False, load_order=1, workshop_id="2"),
            ModRecord("Workshop", "ROOT_STEAM:/1", load_order=2, workshop_id="1"),
            ModRecord("Stray", "ROOT_REPO:/mods/x", load_order=0),
        ),
    )

    assert mod_folders(record) == (
        ModFolder("Workshop", "1", RootCategory.ROOT_STEAM, ("1",)),
        ModFolder("Local", None, RootCategory.ROOT_USER_DOCS, ("mod", "Local")),
    )


@pytest.mark.parametrize(
    ("folder", "address"),
    [
        ("ROOT_STEAM:/1/", "ROOT_STEAM:/1"),
        ("ROOT_USER_DOCS:/mod/Local", "ROOT_USER_DOCS:/mod/Local"),
        ("ROOT_REPO:/mods/x", "ROOT_REPO:/mods/x"),
        ("not an address", "not an address"),
    ],
)
def test_a_mod_folder_is_shown_canonically_and_a_folder_that_is_none_as_written(folder: str, address: str):
    assert folder_address(ModRecord("Mod", folder)) == address
