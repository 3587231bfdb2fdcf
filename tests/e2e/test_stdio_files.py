"""Governed file operations over stdio, in both protocol eras (the issue's acceptance, end to end)."""

from pathlib import Path

import pytest

from app.config import Settings
from domain.vocabulary import RootCategory
from tests.e2e.stdio import envelope, stdio_client, write_config
from tests.worlds import sample_world_on_disk

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]


@pytest.fixture
def world(tmp_path: Path) -> tuple[Settings, Path]:
    settings = sample_world_on_disk(tmp_path)
    roots = {root.value: path for root, path in settings.roots.items()}
    return settings, write_config(tmp_path, mode="ck3lens", roots=roots, playset="Sample Playset")


async def file_call(config: Path, era: str, args: dict[str, str]) -> dict[str, object]:
    async with stdio_client(config, era) as client:
        result = await client.call_tool("ck3_file", args)
    return envelope(result)


async def test_writing_into_vanilla_is_denied_over_stdio(world, era):
    settings, config = world

    env = await file_call(
        config, era, {"command": "write", "path": "ROOT_GAME:/common/x.txt", "content": "x"}
    )

    assert (env["reply_type"], env["code"]) == ("D", "EN-WRITE-D-001")
    assert not (settings.roots[RootCategory.ROOT_GAME] / "common" / "x.txt").exists()


async def test_writing_into_wip_succeeds_over_stdio(world, era):
    settings, config = world

    env = await file_call(
        config, era, {"command": "write", "path": "ROOT_CK3RAVEN_DATA:/wip/a.txt", "content": "ok"}
    )

    assert env["code"] == "WA-WRITE-S-001"
    assert (settings.roots[RootCategory.ROOT_CK3RAVEN_DATA] / "wip" / "a.txt").read_text(
        encoding="utf-8"
    ) == "ok"


async def test_writing_into_a_local_mod_needs_a_contract_over_stdio(world, era):
    _, config = world

    env = await file_call(config, era, {"command": "write", "path": "mod:Local Fix:/x.txt", "content": "x"})

    assert env["data"]["required"] == "contract"


async def test_reading_a_visible_file_works_over_stdio(world, era):
    _, config = world

    async with stdio_client(config, era) as client:
        result = await client.call_tool("ck3_read", {"path": "mod:More Events:/events/more_events.txt"})
    env = envelope(result)

    assert env["code"] == "WA-READ-S-003"
    assert "more_events.0001" in str(env["data"]["content"])
