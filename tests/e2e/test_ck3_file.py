"""ck3_file through the real server on a copy of the sample world: resolve, enforce, execute."""

import hashlib
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client

from app.bootstrap import build
from app.config import Settings
from domain.vocabulary import Mode, RootCategory
from tests.worlds import sample_world_on_disk

pytestmark = pytest.mark.anyio


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return sample_world_on_disk(tmp_path)


def root(settings: Settings, name: str) -> Path:
    return settings.roots[RootCategory(name)]


def snapshot(settings: Settings) -> dict[str, bytes]:
    return {
        str(path): path.read_bytes()
        for folder in settings.roots.values()
        for path in sorted(folder.rglob("*"))
        if path.is_file() and "logs" not in path.parts
    }


async def call(settings: Settings, args: dict[str, Any], era: str = "auto") -> dict[str, Any]:
    async with Client(build(settings), mode=era) as client:
        if args.get("command") == "read":  # reads have their own read-only tool
            args = {name: value for name, value in args.items() if name != "command"}
            result = await client.call_tool("ck3_read", args, raise_on_error=False)
        else:
            result = await client.call_tool("ck3_file", args, raise_on_error=False)
    return dict(result.structured_content)


async def test_reading_a_visible_file_returns_its_text_and_digest(settings, era):
    path = root(settings, "ROOT_GAME") / "common" / "traits" / "00_traits.txt"

    env = await call(settings, {"command": "read", "path": "ROOT_GAME:/common/traits/00_traits.txt"}, era)

    assert env["code"] == "WA-READ-S-003"
    assert env["data"]["content"] == path.read_text(encoding="utf-8")
    assert env["data"]["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()


async def test_reading_a_mod_file_by_mod_address(settings):
    env = await call(settings, {"command": "read", "path": "mod:Local Fix:/common/traits/zzz_local_fix.txt"})

    assert "craven" in env["data"]["content"]


@pytest.mark.parametrize(
    "path",
    [
        "ROOT_GAME:/common/traits/new.txt",
        "ROOT_GAME:/common/traits/00_traits.txt",
        "mod:Better Traits:/common/traits/zz_better_traits.txt",
    ],
)
async def test_writing_into_vanilla_or_a_workshop_mod_is_denied_and_changes_nothing(settings, era, path):
    before = snapshot(settings)

    env = await call(settings, {"command": "write", "path": path, "content": "x"}, era)

    assert env["reply_type"] == "D"
    assert env["code"] == "EN-WRITE-D-001"
    assert snapshot(settings) == before


async def test_writing_into_wip_succeeds_and_the_file_is_there(settings, era):
    env = await call(
        settings, {"command": "write", "path": "ROOT_CK3RAVEN_DATA:/wip/notes/a.txt", "content": "hé"}, era
    )

    assert env["code"] == "WA-WRITE-S-001"
    assert env["data"]["created"] is True
    assert (root(settings, "ROOT_CK3RAVEN_DATA") / "wip" / "notes" / "a.txt").read_text(
        encoding="utf-8"
    ) == "hé"


async def test_writing_into_a_local_mod_without_a_contract_needs_a_contract(settings, era):
    before = snapshot(settings)

    env = await call(
        settings, {"command": "write", "path": "mod:Local Fix:/common/x.txt", "content": "x"}, era
    )

    assert env["code"] == "EN-WRITE-D-002"
    assert env["data"]["required"] == "contract"
    assert snapshot(settings) == before


async def test_edit_replaces_the_single_occurrence(settings):
    wip = root(settings, "ROOT_CK3RAVEN_DATA") / "wip"
    wip.mkdir()
    (wip / "f.txt").write_text("alpha beta gamma", encoding="utf-8")

    env = await call(
        settings,
        {"command": "edit", "path": "ROOT_CK3RAVEN_DATA:/wip/f.txt", "old_string": "beta", "new_string": "B"},
    )

    assert env["code"] == "WA-WRITE-S-005"
    assert (wip / "f.txt").read_text(encoding="utf-8") == "alpha B gamma"


@pytest.mark.parametrize(("text", "count"), [("a a", 2), ("b", 0)])
async def test_edit_needs_exactly_one_match_and_changes_nothing_otherwise(settings, text, count):
    wip = root(settings, "ROOT_CK3RAVEN_DATA") / "wip"
    wip.mkdir()
    (wip / "f.txt").write_text(text, encoding="utf-8")

    env = await call(
        settings,
        {"command": "edit", "path": "ROOT_CK3RAVEN_DATA:/wip/f.txt", "old_string": "a", "new_string": "z"},
    )

    assert env["code"] == "WA-WRITE-I-002"
    assert env["data"]["count"] == count
    assert (wip / "f.txt").read_text(encoding="utf-8") == text


async def test_delete_removes_a_wip_file(settings):
    wip = root(settings, "ROOT_CK3RAVEN_DATA") / "wip"
    wip.mkdir()
    (wip / "gone.txt").write_text("x", encoding="utf-8")

    env = await call(settings, {"command": "delete", "path": "ROOT_CK3RAVEN_DATA:/wip/gone.txt"})

    assert env["code"] == "WA-WRITE-S-002"
    assert not (wip / "gone.txt").exists()


async def test_reading_binary_is_invalid(settings):
    env = await call(settings, {"command": "read", "path": "ROOT_USER_DOCS:/launcher-v2.sqlite"})

    assert env["code"] == "WA-READ-I-001"


async def test_content_over_the_limit_is_invalid_and_nothing_is_written(settings):
    env = await call(
        settings, {"command": "write", "path": "ROOT_CK3RAVEN_DATA:/wip/big.txt", "content": "x" * 3_000_000}
    )

    assert env["code"] == "WA-WRITE-I-001"
    assert not (root(settings, "ROOT_CK3RAVEN_DATA") / "wip" / "big.txt").exists()


@pytest.mark.parametrize(
    "path",
    [
        "ROOT_CK3RAVEN_DATA:/state/contracts.json",
        "ROOT_CK3RAVEN_DATA:/STATE/x",
        "ROOT_CK3RAVEN_DATA:/config/x",
    ],
)
async def test_the_agent_cannot_write_the_servers_own_state_or_config(settings, path):
    env = await call(settings, {"command": "write", "path": path, "content": "{}"})

    assert env["reply_type"] in {"I", "D"}
    assert not (root(settings, "ROOT_CK3RAVEN_DATA") / "state").exists()


async def test_writing_through_a_planted_link_is_refused(settings):
    wip = root(settings, "ROOT_CK3RAVEN_DATA") / "wip"
    wip.mkdir()
    outside = settings.roots[RootCategory.ROOT_REPO] / "README.md"
    (wip / "link.txt").symlink_to(outside)
    (wip / "dirlink").symlink_to(outside.parent)

    leaf = await call(
        settings, {"command": "write", "path": "ROOT_CK3RAVEN_DATA:/wip/link.txt", "content": "x"}
    )
    through = await call(
        settings, {"command": "write", "path": "ROOT_CK3RAVEN_DATA:/wip/dirlink/y.txt", "content": "x"}
    )

    assert leaf["code"] == through["code"] == "WA-RES-I-012"
    assert outside.read_text(encoding="utf-8") == "sample repo\n"
    assert not (outside.parent / "y.txt").exists()


async def test_a_file_containing_a_root_path_is_withheld_but_one_naming_system_paths_is_read(settings):
    wip = root(settings, "ROOT_CK3RAVEN_DATA") / "wip"
    wip.mkdir()
    (wip / "script.sh").write_text("#!/usr/bin/env bash\nls /etc\n", encoding="utf-8")
    (wip / "leak.txt").write_text(f"see {settings.roots[RootCategory.ROOT_GAME]}\n", encoding="utf-8")

    script = await call(settings, {"command": "read", "path": "ROOT_CK3RAVEN_DATA:/wip/script.sh"})
    leak = await call(settings, {"command": "read", "path": "ROOT_CK3RAVEN_DATA:/wip/leak.txt"})

    assert script["code"] == "WA-READ-S-003"
    assert leak["code"] == "MCP-SYS-E-003"


async def test_in_ck3raven_dev_mode_the_repo_needs_a_contract(tmp_path: Path):
    settings = sample_world_on_disk(tmp_path, mode=Mode.CK3RAVEN_DEV)

    env = await call(settings, {"command": "write", "path": "ROOT_REPO:/new.py", "content": "x"})

    assert env["data"]["required"] == "contract"


async def test_switching_playsets_changes_the_visible_mods_at_once(settings):
    playsets = root(settings, "ROOT_CK3RAVEN_DATA") / "playsets"
    (playsets / "small.json").write_text(
        '{"name": "Small", "mods": [{"name": "More Events", "folder": "ROOT_STEAM:/2217000002"}]}',
        encoding="utf-8",
    )
    async with Client(build(settings)) as client:
        switched = await client.call_tool("ck3_playset", {"command": "switch", "name": "Small"})
        gone = await client.call_tool(
            "ck3_dir", {"command": "list", "path": "mod:Better Traits:/"}, raise_on_error=False
        )
        listed = await client.call_tool("ck3_dir", {"command": "list", "path": "ROOT_STEAM:/"})

    assert switched.structured_content["data"] == {"name": "Small", "mods": ["More Events"]}
    assert gone.structured_content["code"] == "WA-RES-I-010"
    assert [e["address"] for e in listed.structured_content["data"]["entries"]] == ["mod:More Events:/"]


async def test_switching_to_an_invalid_playset_is_invalid_and_keeps_the_old_view(settings):
    playsets = root(settings, "ROOT_CK3RAVEN_DATA") / "playsets"
    (playsets / "bad.json").write_text(
        '{"name": "Bad", "mods": [{"name": "G", "folder": "ROOT_GAME:/common"}]}', encoding="utf-8"
    )
    async with Client(build(settings)) as client:
        switched = await client.call_tool(
            "ck3_playset", {"command": "switch", "name": "Bad"}, raise_on_error=False
        )
        still = await client.call_tool("ck3_dir", {"command": "list", "path": "mod:Better Traits:/"})

    assert switched.structured_content["code"] == "WA-PARSE-I-001"
    assert still.structured_content["code"] == "WA-READ-S-001"
