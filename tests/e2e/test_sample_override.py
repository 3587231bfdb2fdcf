"""The sample world's vanilla is what the game ships (a byte-order mark where the game has one), so the
shipped rules find nothing in it: a game file copied into the local mod closes clean. A copy that lacks the
mark its kind needs is refused CK3-BOM with the write that adds it, beside the LXE that would excuse it."""

from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client

from app.bootstrap import build
from domain.ck3 import encodings
from tests.worlds import SAMPLE, sample_world_on_disk

pytestmark = pytest.mark.anyio
BOM = b"\xef\xbb\xbf"


def _open(copy: str) -> dict[str, Any]:
    return {
        "command": "open",
        "root_category": "ROOT_USER_DOCS",
        "intent": "Override a file in the local mod",
        "work_declaration": "Copy it into Local Fix",
        "operations": ["WRITE"],
        "targets": [{"path": copy, "edit_kind": "add"}],
    }


async def _override_and_close(tmp_path: Path, source: str, copy: str) -> dict[str, Any]:
    async with Client(build(sample_world_on_disk(tmp_path))) as client:
        await client.call_tool("ck3_contract", _open(copy))
        args = {"command": "override", "path": source, "name": "Local Fix"}
        await client.call_tool("ck3_file", args)
        # the copy's keys override the copied file's own: close asks no NST for them
        closed = await client.call_tool("ck3_contract", {"command": "close"}, raise_on_error=False)
    return closed.structured_content


def test_every_script_and_localisation_file_of_the_sample_vanilla_has_the_mark_its_kind_needs():
    game = SAMPLE / "game"
    lacking = [
        str(path.relative_to(game))
        for path in game.rglob("*")
        if path.is_file()
        and any(
            kind.bom == encodings.REQUIRED and kind.covers(path.relative_to(game).parts)
            for kind in encodings.TABLE
        )
        and not path.read_bytes().startswith(BOM)
    ]

    assert lacking == []


async def test_a_sample_game_file_copied_into_the_local_mod_closes_clean(tmp_path: Path):
    copy = "mod:Local Fix:/common/scripted_effects/00_sample_effects.txt"

    closed = await _override_and_close(
        tmp_path, "ROOT_GAME:/common/scripted_effects/00_sample_effects.txt", copy
    )

    assert closed["code"] == "CT-GATE-S-002", closed


async def test_a_bom_refusal_names_the_write_that_adds_the_mark_beside_the_lxe(tmp_path: Path):
    copy = "mod:Local Fix:/events/more_events.txt"  # the workshop mod's file has no mark

    closed = await _override_and_close(tmp_path, "mod:More Events:/events/more_events.txt", copy)

    assert closed["code"] == "CT-GATE-I-010", closed
    fixes = closed["data"]["fixes"]
    assert [(fix["rule"], fix["path"]) for fix in fixes] == [("CK3-BOM", copy)]
    assert fixes[0]["request"]["tool"] == "ck3_file"
    assert fixes[0]["request"]["arguments"]["command"] == "write"
    assert closed["data"]["lxe"]["tool"] == "ck3_token"
