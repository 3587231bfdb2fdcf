"""ck3_dir and ck3_playset through the real server on a copy of the sample world."""

import json
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client, Context

from app.bootstrap import build
from app.config import Settings
from tests.worlds import sample_world_on_disk

pytestmark = pytest.mark.anyio


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return sample_world_on_disk(tmp_path)


async def call(settings: Settings, era: str, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    async with Client(build(settings), mode=era) as client:
        result = await client.call_tool(tool, args, raise_on_error=False)
    return dict(result.structured_content)


async def test_list_shows_a_folders_children_as_addresses_with_kind_and_size(settings, era):
    game = next(path for root, path in settings.roots.items() if root.value == "ROOT_GAME")
    size = (game / "common" / "traits" / "00_traits.txt").stat().st_size

    env = await call(settings, era, "ck3_dir", {"command": "list", "path": "ROOT_GAME:/common/traits"})

    assert env["code"] == "WA-READ-S-001"
    assert env["data"]["entries"] == [{"name": "00_traits.txt", "kind": "file", "size": size}]


async def test_list_of_the_workshop_shows_only_the_playsets_mods(settings, era):
    env = await call(settings, era, "ck3_dir", {"command": "list", "path": "ROOT_STEAM:/"})

    assert [e["name"] for e in env["data"]["entries"]] == ["mod:Better Traits:/", "mod:More Events:/"]


async def test_tree_lists_folders_depth_first_to_the_given_depth(settings, era):
    env = await call(settings, era, "ck3_dir", {"command": "tree", "path": "mod:Better Traits:/", "depth": 2})

    assert env["data"]["directories"] == [
        "mod:Better Traits:/common",
        "mod:Better Traits:/common/traits",
        "mod:Better Traits:/localization",
        "mod:Better Traits:/localization/english",
    ]
    assert env["data"]["truncated"] is False


async def test_cd_moves_the_home_and_bare_paths_follow_it(settings, era):
    async with Client(build(settings), mode=era) as client:
        moved = await client.call_tool("ck3_mode", {"command": "cd", "root_category": "ROOT_GAME"})
        listed = await client.call_tool("ck3_dir", {"command": "list", "path": "events"})

    assert moved.structured_content["data"]["address"] == "ROOT_GAME:/"
    assert listed.structured_content["data"]["address"] == "ROOT_GAME:/events"


async def test_cd_takes_a_root_category_only(settings, era):
    env = await call(settings, era, "ck3_mode", {"command": "cd", "root_category": "ROOT_GAME:/common"})

    assert env["code"] == "WA-RES-I-016"


async def test_an_invisible_folder_and_a_missing_one_answer_alike(settings, era):
    invisible = await call(settings, era, "ck3_dir", {"command": "list", "path": "ROOT_STEAM:/2217000099"})
    missing = await call(settings, era, "ck3_dir", {"command": "list", "path": "ROOT_STEAM:/2217000098"})

    assert invisible["code"] == missing["code"] == "WA-RES-I-001"
    assert invisible["data"].keys() == missing["data"].keys()
    assert invisible["message"].replace("99", "98") == missing["message"]


async def test_the_state_folder_is_invisible(settings, era):
    (settings.roots[next(r for r in settings.roots if r.value == "ROOT_CK3RAVEN_DATA")] / "state").mkdir()

    env = await call(settings, era, "ck3_dir", {"command": "list", "path": "ROOT_CK3RAVEN_DATA:/"})

    assert "state" not in [e["name"] for e in env["data"]["entries"]]


async def test_listing_a_file_is_invalid(settings, era):
    env = await call(
        settings, era, "ck3_dir", {"command": "list", "path": "ROOT_GAME:/events/birth_events.txt"}
    )

    assert env["code"] == "WA-RES-I-014"


async def test_without_a_mode_listing_is_invalid_and_pwd_still_answers(tmp_path: Path, era):
    settings = sample_world_on_disk(tmp_path, mode=None)

    listed = await call(settings, era, "ck3_dir", {"command": "list"})
    home = await call(settings, era, "ck3_dir", {"command": "pwd"})

    assert listed["code"] == "MCP-CFG-I-001"
    assert home["code"] == "MCP-CFG-S-001"


async def test_playset_show_lists_mods_in_load_order_with_their_addresses(settings, era):
    env = await call(settings, era, "ck3_playset", {"command": "show"})

    assert env["code"] == "WA-CFG-S-002"
    assert [(m["name"], m["address"]) for m in env["data"]["mods"]] == [
        ("Better Traits", "mod:Better Traits:/"),
        ("More Events", "mod:More Events:/"),
        ("Local Fix", "mod:Local Fix:/"),
    ]


async def test_playset_list_names_the_active_playset(settings, era):
    env = await call(settings, era, "ck3_playset", {"command": "list"})

    assert env["data"]["active"] == "Sample Playset"
    assert env["data"]["playsets"][0]["valid"] is True


@pytest.mark.parametrize("one_client", [False, True])
@pytest.mark.parametrize(("folders", "told"), [(1100, [1000]), (2000, [1000, 2000])])
async def test_tree_reports_progress_when_the_client_asks_for_it_once_per_thousand_folders(
    tmp_path: Path, folders: int, told: list[int], one_client: bool
):
    settings = sample_world_on_disk(tmp_path)
    game = next(p for r, p in settings.roots.items() if r.value == "ROOT_GAME")
    for index in range(folders):
        (game / "many" / f"d{index:04}").mkdir(parents=True)
    reports: list[float] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        reports.append(progress)

    async with Client(build(settings, one_client=one_client)) as client:  # a stdio server serves one
        result = await client.call_tool(
            "ck3_dir",
            {"command": "tree", "path": "ROOT_GAME:/many", "limit": folders},
            progress_handler=on_progress,
        )

    assert result.structured_content["data"]["count"] == folders
    assert reports == told


async def test_a_tree_nobody_asked_progress_of_sends_none(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    settings = sample_world_on_disk(tmp_path)
    game = next(p for r, p in settings.roots.items() if r.value == "ROOT_GAME")
    for index in range(1100):
        (game / "many" / f"d{index:04}").mkdir(parents=True)
    told: list[float] = []

    async def report_progress(
        self: Context, progress: float, total: float | None = None, message: str | None = None
    ) -> None:
        told.append(progress)  # each report is a hop to the event loop the walk waits for

    monkeypatch.setattr(Context, "report_progress", report_progress)
    async with Client(build(settings)) as client:  # its own calls always ask for progress: the SDK's do not
        result = await client.session.call_tool(
            "ck3_dir", {"command": "tree", "path": "ROOT_GAME:/many", "limit": 1100}
        )

    assert result.structured_content is not None
    assert result.structured_content["data"]["count"] == 1100
    assert told == []


PROBES = [
    "/etc/passwd",
    "C:\\Windows",
    "\\\\server\\share",
    "~/.ssh",
    "file:///etc",
    "ROOT_REPO:/../..",
    "ROOT_STEAM:/2217000099",
    "mod:Nope:/x",
    "ROOT_ETC:/x",
    "a\x00b",
    "ROOT_GAME:/common/traits/00_traits.txt",
    "ROOT_USER_DOCS:/",
    "ROOT_CK3RAVEN_DATA:/state",
    "x" * 5000,
    "ROOT_REPO:/README.md",
    "mod:Local Fix:/",
]


@pytest.mark.parametrize("command", ["list", "tree", "cd"])
async def test_no_envelope_carries_a_host_path_whatever_the_input(settings, command):
    host_paths = {str(path) for path in settings.roots.values()}
    async with Client(build(settings)) as client:
        for probe in PROBES:
            tool = "ck3_mode" if command == "cd" else "ck3_dir"
            result = await client.call_tool(tool, {"command": command, "path": probe}, raise_on_error=False)
            text = json.dumps(result.structured_content)

            assert result.structured_content["code"] != "MCP-SYS-E-003", probe
            assert not any(path in text for path in host_paths), probe
            assert "/tmp/" not in text
