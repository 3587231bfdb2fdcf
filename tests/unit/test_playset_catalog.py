"""What `ck3_playset list` and `show` answer (seed 003): every playset file with its validity, activity and
mod count, names that cannot be shown counted rather than shown; one playset's mods in load order, each with
its folder's canonical address and, in ck3lens, the mod address an agent uses."""

from typing import Any

import pytest

from domain.replies.builder import Reply
from domain.replies.frozen import thaw
from domain.replies.refusal import Refused
from domain.vocabulary import Mode
from domain.world.catalog import Catalog, list_playsets, show_playset
from ports.playsets import ModRecord, PlaysetFile, PlaysetRecord

LOCAL = ModRecord("Local Fix", "ROOT_USER_DOCS:/mod/LocalFix/", load_order=2)
WORKSHOP = ModRecord("Better Traits", "ROOT_STEAM:/2217000001", load_order=1, workshop_id="2217000001")
OFF = ModRecord("Old Mod", "ROOT_STEAM:/2217000009", enabled=False, load_order=0, workshop_id="2217000009")
MINE = PlaysetFile("mine.json", PlaysetRecord("Mine", (LOCAL, WORKSHOP, OFF)))
OTHER = PlaysetFile("other.json", PlaysetRecord("Other", (WORKSHOP,)))
BROKEN = PlaysetFile("broken.json", None, (("$", "is not JSON"),))
CLASHING = PlaysetFile("clash.json", PlaysetRecord("Clash", (WORKSHOP, WORKSHOP)))
STRAY = PlaysetFile("stray.json", PlaysetRecord("Stray", (ModRecord("Stray", "ROOT_REPO:/mods/x"),)))


def data(reply: Reply) -> Any:
    return thaw(reply.data)


def test_the_list_shows_every_file_with_its_name_validity_activity_and_mod_count():
    reply = list_playsets(Catalog((MINE, BROKEN, CLASHING, STRAY, OTHER), "Mine"))

    assert reply.code == "WA-CFG-S-001"
    assert data(reply) == {
        "active": "Mine",
        "playsets": [
            {"file": "mine.json", "name": "Mine", "valid": True, "active": True, "mods": 3},
            {"file": "broken.json", "name": None, "valid": False, "active": False, "mods": 0},
            {"file": "clash.json", "name": "Clash", "valid": False, "active": False, "mods": 2},
            {"file": "stray.json", "name": "Stray", "valid": False, "active": False, "mods": 1},
            {"file": "other.json", "name": "Other", "valid": True, "active": False, "mods": 1},
        ],
        "count": 5,
        "unshown": 0,
    }


def test_a_structured_file_with_problems_of_its_own_is_listed_as_invalid():
    flawed = PlaysetFile("flawed.json", PlaysetRecord("Flawed"), (("$.mods", "is missing"),))

    (row,) = list_playsets(Catalog((flawed,), None)).data["playsets"]

    assert row == {"file": "flawed.json", "name": "Flawed", "valid": False, "active": False, "mods": 0}


def test_without_an_active_playset_the_list_names_none_and_marks_none_active():
    broken_unnamed = PlaysetFile("none.json", None)

    reply = list_playsets(Catalog((MINE, broken_unnamed), None))

    assert reply.data["active"] is None
    assert [row["active"] for row in reply.data["playsets"]] == [False, False]


def test_a_file_or_playset_name_that_cannot_be_shown_is_counted_not_listed():
    hidden = {"secret.json", "Leaky"}
    leaky = PlaysetFile("leaky.json", PlaysetRecord("Leaky", (WORKSHOP,)))
    secret = PlaysetFile("secret.json", None)

    reply = list_playsets(Catalog((MINE, leaky, secret, OTHER), "Mine"), lambda text: text not in hidden)

    assert [row["file"] for row in reply.data["playsets"]] == ["mine.json", "other.json"]
    assert reply.data["count"] == 2
    assert reply.data["unshown"] == 2
    assert reply.data["active"] == "Mine"


def test_an_active_playset_whose_name_cannot_be_shown_is_not_named():
    reply = list_playsets(Catalog((MINE,), "Mine"), lambda text: text != "Mine")

    assert reply.data["active"] is None
    assert data(reply)["playsets"] == []
    assert reply.data["unshown"] == 1


def test_show_lists_the_mods_in_load_order_with_their_folders_and_mod_addresses_in_ck3lens():
    reply = show_playset(Catalog((OTHER, MINE), "Mine"), "Mine", Mode.CK3LENS)

    assert reply.code == "WA-CFG-S-002"
    assert data(reply) == {
        "name": "Mine",
        "active": True,
        "count": 3,
        "mods": [
            {
                "name": "Old Mod",
                "workshop_id": "2217000009",
                "folder": "ROOT_STEAM:/2217000009",
                "address": "ROOT_STEAM:/2217000009",
                "enabled": False,
                "load_order": 0,
                "descriptor": None,
            },
            {
                "name": "Better Traits",
                "workshop_id": "2217000001",
                "folder": "ROOT_STEAM:/2217000001",
                "address": "mod:Better Traits:/",
                "enabled": True,
                "load_order": 1,
                "descriptor": None,
            },
            {
                "name": "Local Fix",
                "workshop_id": None,
                "folder": "ROOT_USER_DOCS:/mod/LocalFix",
                "address": "mod:Local Fix:/",
                "enabled": True,
                "load_order": 2,
                "descriptor": None,
            },
        ],
    }


def test_outside_ck3lens_every_mod_is_addressed_by_its_folder():
    mods = show_playset(Catalog((MINE,), "Mine"), "Mine", Mode.CK3RAVEN_DEV).data["mods"]

    assert [mod["address"] for mod in mods] == [mod["folder"] for mod in mods]
    assert mods[2]["address"] == "ROOT_USER_DOCS:/mod/LocalFix"


def test_show_describes_each_enabled_mod_from_its_folder_and_no_disabled_one():
    asked: list[str] = []

    def describe(folder: str) -> dict[str, object]:
        asked.append(folder)
        return {"from": folder}

    mods = show_playset(Catalog((MINE,), None), "Mine", Mode.CK3LENS, describe).data["mods"]

    assert [mod["descriptor"] for mod in mods] == [
        None,
        {"from": "ROOT_STEAM:/2217000001"},
        {"from": "ROOT_USER_DOCS:/mod/LocalFix"},
    ]
    assert asked == ["ROOT_STEAM:/2217000001", "ROOT_USER_DOCS:/mod/LocalFix"]


def test_show_without_a_name_shows_the_active_playset():
    reply = show_playset(Catalog((MINE, OTHER), "Other"), None, Mode.CK3LENS)

    assert reply.data["name"] == "Other"
    assert reply.data["active"] is True


def test_a_playset_shown_by_name_that_is_not_active_says_so():
    reply = show_playset(Catalog((MINE, OTHER), "Mine"), "Other", Mode.CK3LENS)

    assert reply.data["name"] == "Other"
    assert reply.data["active"] is False
    assert reply.data["count"] == 1


def test_show_without_a_name_or_an_active_playset_is_invalid_and_names_none():
    reply = show_playset(Catalog((MINE,), None), None, Mode.CK3LENS)

    assert reply.code == "WA-CFG-I-001"
    assert data(reply) == {"playsets": []}


def test_an_unknown_playset_is_invalid_and_names_the_playsets_there_are():
    with pytest.raises(Refused) as refused:
        show_playset(Catalog((OTHER, BROKEN, MINE), "Mine"), "Nope", Mode.CK3LENS)
    reply = refused.value.reply

    assert reply.code == "WA-CFG-I-001"
    assert data(reply) == {"playsets": ["Mine", "Other"]}


def test_an_invalid_playset_is_refused_with_every_problem_by_field():
    with pytest.raises(Refused) as refused:
        show_playset(Catalog((STRAY, CLASHING), None), "Clash", Mode.CK3LENS)
    reply = refused.value.reply

    assert reply.code == "WA-PARSE-I-001"
    assert data(reply) == {
        "file": "clash.json",
        "errors": [
            {"field": "$.mods[1].name", "problem": "is used by another mod of this playset"},
            {"field": "$.mods[1].workshop_id", "problem": "is used by another mod of this playset"},
        ],
    }


def test_a_file_with_problems_of_its_own_is_refused_with_those_problems():
    flawed = PlaysetFile("flawed.json", PlaysetRecord("Flawed"), (("$.mods", "is missing"),))

    with pytest.raises(Refused) as refused:
        Catalog((flawed,), "Flawed").usable("Flawed")

    assert data(refused.value.reply) == {
        "file": "flawed.json",
        "errors": [{"field": "$.mods", "problem": "is missing"}],
    }


def test_the_first_file_of_a_name_is_the_one_used():
    second = PlaysetFile("z.json", PlaysetRecord("Mine", ()))

    assert Catalog((BROKEN, MINE, second), None).find("Mine") is MINE
    assert Catalog((BROKEN, MINE, second), None).usable("Mine") == MINE.record
