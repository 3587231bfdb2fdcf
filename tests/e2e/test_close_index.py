"""Close decides on the playset's index complete (SPEC §15): a key copied from a file the new one replaces at
the same path is an override needing no NST, however the file came; close completes the index within its
call, or answers Invalid with a retry hint, never S and never a refusal on a partial count; the evidence
records the index state it decided on."""

import json
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client

from app.bootstrap import build, build_core
from app.config import Settings
from domain.compliance import key_changes
from domain.vocabulary import RootCategory
from tests.worlds import sample_world_on_disk

pytestmark = pytest.mark.anyio
R = RootCategory
BOM = "\ufeff"
BIRTH = "mod:Local Fix:/events/birth_events.txt"


def _open(path: str, kind: str = "add") -> dict[str, Any]:
    return {
        "command": "open",
        "root_category": "ROOT_USER_DOCS",
        "intent": "Override the birth events",
        "work_declaration": "The local mod's copy of the game's birth events",
        "operations": ["WRITE"],
        "targets": [{"path": path, "edit_kind": kind}],
    }


async def call(client: Client, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    return dict((await client.call_tool(tool, args, raise_on_error=False)).structured_content)


def _evidence(settings: Settings, contract_id: str, kind: str = "close") -> dict[str, Any]:
    core = build_core(settings)
    return dict(json.loads(core.services.evidence.document(kind, contract_id) or "{}"))


async def test_a_game_event_file_overridden_into_the_local_mod_closes_asking_no_nst(tmp_path: Path):
    settings = sample_world_on_disk(tmp_path)
    async with Client(build(settings)) as client:
        opened = await call(client, "ck3_contract", _open(BIRTH))
        override = {"command": "override", "path": "ROOT_GAME:/events/birth_events.txt", "name": "Local Fix"}
        copied = await call(client, "ck3_file", override)
        closed = await call(client, "ck3_contract", {"command": "close"})

    assert copied["reply_type"] == "S", copied
    assert closed["code"] == "CT-GATE-S-002", closed
    compliance = _evidence(settings, opened["data"]["contract_id"])["compliance"]
    keys = compliance["keys"]
    assert compliance["index"]["state"] == "complete"
    assert sorted((row["symbol"], row["address"]) for row in keys["overrides"]) == [
        ("birth.0001", BIRTH),
        ("namespace:birth", BIRTH),
    ]
    assert (keys["adds"], keys["removes"]) == ([], [])


async def test_an_event_added_to_the_overriding_copy_is_the_only_symbol_that_asks_an_nst(tmp_path: Path):
    settings = sample_world_on_disk(tmp_path)
    game = (settings.roots[R.ROOT_GAME] / "events/birth_events.txt").read_text(encoding="utf-8")
    async with Client(build(settings)) as client:
        await call(client, "ck3_contract", _open(BIRTH))
        override = {"command": "override", "path": "ROOT_GAME:/events/birth_events.txt", "name": "Local Fix"}
        await call(client, "ck3_file", override)
        added = game + "\nbirth.0002 = {\n\ttype = character_event\n}\n"
        await call(client, "ck3_file", {"command": "write", "path": BIRTH, "content": added})
        refused = await call(client, "ck3_contract", {"command": "close"})

    assert refused["code"] == "CT-GATE-I-009", refused
    assert refused["data"]["uncovered"] == [{"name": "birth.0002", "address": BIRTH}]


async def test_a_game_file_written_at_its_own_path_in_the_local_mod_overrides_its_keys_without_an_nst(
    tmp_path: Path,
):
    settings = sample_world_on_disk(tmp_path)
    game = (settings.roots[R.ROOT_GAME] / "events/birth_events.txt").read_text(encoding="utf-8")
    async with Client(build(settings)) as client:
        await call(client, "ck3_playset", {"command": "define", "key": "birth.0001"})
        await call(client, "ck3_contract", _open(BIRTH))
        await call(client, "ck3_file", {"command": "write", "path": BIRTH, "content": game})
        closed = await call(client, "ck3_contract", {"command": "close"})

    assert closed["code"] == "CT-GATE-S-002", closed


FIX_ONLY = "mod:Local Fix:/common/traits/zz_fix_only.txt"


def _mentioned_far_away(tmp_path: Path, filler: int) -> Settings:
    """The sample world where Local Fix alone defines `fix_only`, mentioned only in Local Fix's events
    (the last source the index reaches), after `filler` event files of the game none has indexed yet."""
    settings = sample_world_on_disk(tmp_path)
    game, docs = settings.roots[R.ROOT_GAME], settings.roots[R.ROOT_USER_DOCS]
    for n in range(filler):
        (game / f"events/filler_{n:04}.txt").write_text(f"{BOM}namespace = filler{n}\n", encoding="utf-8")
    fix = docs / "mod/LocalFix"
    (fix / "common/traits/zz_fix_only.txt").write_text(f"{BOM}fix_only = {{\n}}\n", encoding="utf-8")
    (fix / "events").mkdir()
    mention = f"{BOM}namespace = fix\nfix.1 = {{\n\ttrigger = {{ has_trait = fix_only }}\n}}\n"
    (fix / "events/fix_events.txt").write_text(mention, encoding="utf-8")
    return settings


async def _remove_fix_only(client: Client) -> dict[str, Any]:
    opened = await call(client, "ck3_contract", _open(FIX_ONLY, "modify"))
    await call(client, "ck3_file", {"command": "write", "path": FIX_ONLY, "content": f"{BOM}# gone\n"})
    return opened


async def test_close_finds_the_only_mention_of_a_removed_key_in_a_file_the_index_had_not_reached(
    tmp_path: Path,
):
    settings = _mentioned_far_away(tmp_path, 250)
    async with Client(build(settings)) as client:
        opened = await _remove_fix_only(client)
        refused = await call(client, "ck3_contract", {"command": "close"})

    assert refused["code"] == "CT-GATE-I-012", refused
    assert refused["data"]["removed"][0]["mentions"] == [
        {"source": "Local Fix", "path": "events/fix_events.txt", "line": 3}
    ]
    index = _evidence(settings, opened["data"]["contract_id"], "close-refused")["compliance"]["index"]
    assert (index["state"], index["pending"]) == ("complete", 0)
    assert index["indexed_by_close"] > 250


async def test_close_with_more_of_the_index_missing_than_it_builds_in_a_call_asks_to_be_called_again(
    tmp_path: Path,
):
    settings = _mentioned_far_away(tmp_path, key_changes.CLOSE + 50)
    async with Client(build(settings)) as client:
        opened = await _remove_fix_only(client)
        retry = await call(client, "ck3_contract", {"command": "close"})
        index = _evidence(settings, opened["data"]["contract_id"], "close-refused")["compliance"]["index"]
        again = await call(client, retry["data"]["request"]["tool"], retry["data"]["request"]["arguments"])

    assert retry["code"] == "CT-GATE-I-014", retry
    assert (retry["data"]["state"], retry["data"]["pending"]) == ("incomplete", index["pending"])
    assert index["pending"] > 0
    assert again["code"] == "CT-GATE-I-012", again
    assert again["data"]["removed"][0]["mentions"][0]["path"] == "events/fix_events.txt"
