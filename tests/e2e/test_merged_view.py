"""The file-level merged view as the game builds it (SPEC §9), on real files through the real server: a
mod's replace_path hides that folder's files of every earlier source, earlier mods included, and not those
of its subfolders (ck3-tiger src/fileset.rs); `which` says what it hid, whose it was, and which rules are
unconfirmed; `overrides` answers what a mod overrides, at any depth, a page at a time within the budget."""

import json
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client

from app.bootstrap import build
from app.config import Settings
from domain.vocabulary import Mode, RootCategory

pytestmark = pytest.mark.anyio
R = RootCategory

PATCH, OVERHAUL, LATER = "Unofficial Patch", "Events Overhaul", "Later Events"
PATCH_FOLDERS = 40
"""Folders the patch overrides files in (483 files in all, as the Unofficial Patch does)."""


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def patch_files() -> list[str]:
    """483 game-relative paths across PATCH_FOLDERS folders, some of them three levels down."""
    paths = []
    for index in range(483):
        folder = index % PATCH_FOLDERS
        nested = "/deeper/still" if folder % 3 == 0 else ""
        paths.append(f"common/folder_{folder:02}{nested}/{index:03}_fixed_by_the_patch.txt")
    return paths


def replace_world(tmp_path: Path) -> Settings:
    """Vanilla; the patch (overriding 483 files and vanilla's birth events); a mod whose descriptor says
    replace_path="events"; and a mod after it with a birth events file of its own."""
    game, steam, data = tmp_path / "game", tmp_path / "steam", tmp_path / "data"
    write(game / "events" / "birth_events.txt", "namespace = birth\n")
    write(game / "events" / "dlc" / "ep3" / "ep3_events.txt", "namespace = ep3\n")
    write(game / "events" / "dlc" / "ep3" / "ep3_story.txt", "namespace = ep3_story\n")
    write(game / "events" / "vanilla_only.txt", "namespace = v\n")
    for path in patch_files():
        write(game / path, "vanilla\n")
    mods = [(PATCH, "3001", ""), (OVERHAUL, "3002", 'replace_path="events"\n'), (LATER, "3003", "")]
    for name, ident, extra in mods:
        write(steam / ident / "descriptor.mod", f'name="{name}"\nsupported_version="1.*"\n{extra}')
    for path in [
        *patch_files(),
        "events/birth_events.txt",
        "events/dlc/ep3/ep3_events.txt",
        "common/new.txt",
    ]:
        write(steam / "3001" / path, "patched\n")
    write(steam / "3002" / "events" / "overhaul_events.txt", "namespace = o\n")
    write(steam / "3003" / "events" / "later_events.txt", "namespace = l\n")
    entries = [
        {
            "name": name,
            "workshop_id": ident,
            "folder": f"ROOT_STEAM:/{ident}",
            "enabled": True,
            "load_order": i,
        }
        for i, (name, ident, _) in enumerate(mods)
    ]
    write(data / "playsets" / "replacing.json", json.dumps({"name": "Replacing", "mods": entries}))
    roots = {R.ROOT_GAME: game, R.ROOT_STEAM: steam, R.ROOT_CK3RAVEN_DATA: data}
    return Settings("test", roots, R.ROOT_GAME, Mode.CK3LENS, "Replacing")


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return replace_world(tmp_path_factory.mktemp("merged"))


async def playset(settings: Settings, **args: Any) -> dict[str, Any]:
    async with Client(build(settings)) as client:
        result = await client.call_tool("ck3_playset", args, raise_on_error=False)
    return dict(result.structured_content)


async def test_a_replace_path_hides_the_file_of_every_earlier_source_earlier_mods_included(world: Settings):
    """ck3-tiger's Fileset::should_replace skips the folder's files of vanilla and of every earlier mod."""
    env = await playset(world, command="which", path="events/birth_events.txt")

    hidden = {row["source"]: row["hidden_by"] for row in env["data"]["sources"] if row["provides"]}
    assert hidden == {"vanilla": OVERHAUL, PATCH: OVERHAUL}
    assert env["data"]["winner"] is None


async def test_which_says_what_a_replace_path_hid_and_whose_it_was(world: Settings):
    env = await playset(world, command="which", path="events/birth_events.txt")

    assert env["data"]["replace_path"] == [
        {"mod": OVERHAUL, "folder": "events", "reaches": True, "hid": ["vanilla", PATCH]}
    ]


async def test_a_replace_path_does_not_reach_subfolders_and_which_says_the_rule_is_unconfirmed(
    world: Settings,
):
    """ck3-tiger compares a file's own folder with replace_path for equality; mods list subfolders apart."""
    env = await playset(world, command="which", path="events/dlc/ep3/ep3_events.txt")

    data = env["data"]
    assert data["winner"] == f"mod:{PATCH}:/events/dlc/ep3/ep3_events.txt"
    assert [row["hidden_by"] for row in data["sources"]] == [None, None, None, None]
    assert data["replace_path"] == [{"mod": OVERHAUL, "folder": "events", "reaches": False, "hid": []}]
    assert (data["rules"][1]["rule"], data["rules"][1]["confirmed"]) == ("replace-path-exact-folder", False)


async def test_a_vanilla_file_in_a_subfolder_of_a_replaced_folder_is_still_loaded(world: Settings):
    env = await playset(world, command="which", path="events/dlc/ep3/ep3_story.txt")

    assert env["data"]["winner"] == "ROOT_GAME:/events/dlc/ep3/ep3_story.txt"


async def test_a_mod_after_the_replacing_one_keeps_its_files(world: Settings):
    env = await playset(world, command="which", path="events")

    files = {row["name"]: row["winner"] for row in env["data"]["files"]}
    assert files == {
        "birth_events.txt": None,
        "later_events.txt": f"mod:{LATER}:/events/later_events.txt",
        "overhaul_events.txt": f"mod:{OVERHAUL}:/events/overhaul_events.txt",
        "vanilla_only.txt": None,
    }


async def test_overrides_of_a_mod_list_every_overridden_file_at_any_depth_a_page_at_a_time(world: Settings):
    """483 files across 40 folders in one answer per page, each page within the 32 KiB reply budget."""
    seen: list[str] = []
    sizes: list[int] = []
    cursor = None
    async with Client(build(world)) as client:
        while True:
            args = {"command": "overrides", "name": PATCH} | ({"cursor": cursor} if cursor else {})
            result = await client.call_tool("ck3_playset", args)
            env = result.structured_content
            sizes.append(len(json.dumps(env).encode()))
            seen += [row["path"] for row in env["data"]["files"]]
            cursor = env["data"]["next_cursor"]
            if cursor is None:
                break

    expected = sorted([*patch_files(), "events/birth_events.txt", "events/dlc/ep3/ep3_events.txt"])
    assert seen == expected
    assert env["data"]["total"] == len(expected)
    assert len(sizes) > 1
    assert max(sizes) < 32 * 1024


async def test_each_overridden_file_names_its_sources_and_the_file_the_game_loads(world: Settings):
    env = await playset(world, command="overrides", name=PATCH, path="events")

    rows = {row["path"]: row for row in env["data"]["files"]}
    assert rows["events/dlc/ep3/ep3_events.txt"]["winner"] == f"mod:{PATCH}:/events/dlc/ep3/ep3_events.txt"
    assert rows["events/birth_events.txt"]["sources"] == ["vanilla", PATCH]
    assert rows["events/birth_events.txt"]["hidden"] == [
        {"source": "vanilla", "by": OVERHAUL},
        {"source": PATCH, "by": OVERHAUL},
    ]


async def test_overrides_of_a_replacing_mod_list_the_earlier_files_it_hides_and_no_subfolder(world: Settings):
    env = await playset(world, command="overrides", name=OVERHAUL)

    assert [row["path"] for row in env["data"]["files"]] == [
        "events/birth_events.txt",
        "events/vanilla_only.txt",
    ]


async def test_overrides_of_a_mod_not_in_the_playset_is_invalid_and_names_the_mods(world: Settings):
    env = await playset(world, command="overrides", name="No Such Mod")

    assert env["code"] == "WA-RES-I-010"
    assert env["data"]["mods"] == [PATCH, OVERHAUL, LATER]
