"""Conflicts as SPEC §15 defines them, on the sample world through the real server: a path two mods ship
is a file conflict (the earlier mod's file lost); a key that files the game reads, at different paths,
from two sources define is a key conflict with its winner; a definition in a file a later source's
same-path file replaces is shadowed, shown by `define` and never counted. The game with no playset answers
every question as a playset of no mods; bad input stays Invalid."""

from pathlib import Path
from typing import Any

import pytest
from attrs import evolve
from fastmcp import Client

from app.bootstrap import build
from app.config import Settings
from domain.vocabulary import Mode
from tests.worlds import sample_world_on_disk

pytestmark = pytest.mark.anyio
TRAITS = "common/traits/00_traits.txt"


@pytest.fixture
def sample(tmp_path: Path) -> Settings:
    return evolve(sample_world_on_disk(tmp_path, Mode.CK3LENS), state_dir=tmp_path / "state")


async def ask(client: Client, args: dict[str, Any]) -> dict[str, Any]:
    reply = await client.call_tool("ck3_playset", args, raise_on_error=False)
    return dict(reply.structured_content)


async def test_two_mods_shipping_one_path_is_a_file_conflict_and_the_earlier_mods_file_is_lost(sample):
    async with Client(build(sample)) as client:
        found = await ask(client, {"command": "conflicts"})

    files = [row for row in found["data"]["conflicts"] if row["conflict"] == "file"]
    assert files == [
        {
            "conflict": "file",
            "path": TRAITS,
            "sources": ["Better Traits", "Local Fix"],
            "winner": {"source": "Local Fix", "path": TRAITS},
            "lost": [{"source": "Better Traits", "path": TRAITS}],
            "rule": "same-path",
            "confirmed": True,
        }
    ]
    assert found["data"]["file_conflicts"] == 1


async def test_a_key_two_read_files_of_two_sources_define_is_a_key_conflict_naming_its_winner(sample):
    async with Client(build(sample)) as client:
        found = await ask(client, {"command": "conflicts", "kind": "traits"})

    keys = [row for row in found["data"]["conflicts"] if row["conflict"] == "key"]
    assert [(row["key"], row["sources"]) for row in keys] == [("brave", ["Better Traits", "Local Fix"])]
    assert keys[0]["winner"] == {
        "source": "Better Traits",
        "path": "common/traits/zz_better_traits.txt",
        "line": 1,
    }
    assert keys[0]["lost"] == [{"source": "Local Fix", "path": TRAITS, "line": 1}]
    assert (found["data"]["key_conflicts"], found["data"]["total"]) == (1, 2)


async def test_the_games_own_definition_in_a_replaced_file_is_shown_shadowed_and_never_counted(sample):
    async with Client(build(sample)) as client:
        brave = await ask(client, {"command": "define", "key": "brave", "kind": "traits"})
        found = await ask(client, {"command": "conflicts"})

    rows = brave["data"]["kinds"][0]["definitions"]
    shadowed = [row for row in rows if "not_read" in row]
    assert [(row["source"], row["path"], row["not_read"]) for row in shadowed] == [
        ("vanilla", TRAITS, "replaced by Better Traits's file"),
        ("Better Traits", TRAITS, "replaced by Local Fix's file"),
    ]
    assert "vanilla" not in str(found["data"]["conflicts"])
    assert "craven" not in str(found["data"]["conflicts"])  # the game's craven is shadowed: one read file


async def test_the_game_with_no_playset_answers_every_question_as_a_playset_of_no_mods(sample):
    alone = evolve(sample, active_playset=None)
    async with Client(build(alone)) as client:
        conflicts = await ask(client, {"command": "conflicts"})
        missing = await ask(client, {"command": "missing", "language": "french"})
        brave = await ask(client, {"command": "define", "key": "brave"})
        mentions = await ask(client, {"command": "mentions", "key": "brave"})

    assert (conflicts["code"], conflicts["data"]["total"]) == ("WA-READ-S-013", 0)
    assert (missing["code"], missing["data"]["total"]) == ("WA-READ-S-015", 2)
    assert [row["source"] for row in brave["data"]["kinds"][0]["definitions"]] == ["vanilla"]
    assert mentions["code"] == "WA-READ-S-014"
    assert {row["source"] for row in mentions["data"]["files"]} == {"vanilla"}


@pytest.mark.parametrize(
    "args",
    [
        {"command": "conflicts", "cursor": "9" * 5000},
        {"command": "conflicts", "cursor": "1" * 10},
        {"command": "conflicts", "cursor": "\u0663"},
        {"command": "conflicts", "cursor": "\u00b2"},
        {"command": "missing", "language": "french", "cursor": "9" * 5000},
        {"command": "mentions", "key": "brave", "cursor": "9" * 5000},
        {"command": "which", "path": "common/traits", "cursor": "9" * 5000},
        {"command": "conflicts", "kind": "../../etc"},
        {"command": "conflicts", "kind": "traits\n"},
        {"command": "define", "key": "brave", "kind": "traits/../../x"},
        {"command": "define", "key": "bra\x00ve"},
        {"command": "define", "key": "brave\x1b[31m"},
        {"command": "define", "key": "brave\u202e"},
        {"command": "mentions", "key": "brave \n"},
        {"command": "define", "key": "k" * 257},
        {"command": "missing", "language": "french\r\n"},
        {"command": "missing", "language": "../french"},
        {"command": "missing", "language": "FRENCH"},
    ],
)
async def test_bad_input_to_the_index_questions_is_invalid(sample, args: dict[str, Any]):
    async with Client(build(sample)) as client:
        reply = await ask(client, args)

    assert (reply["reply_type"], reply["code"]) == ("I", "MCP-VAL-I-001")


async def test_files_a_later_mods_replace_path_hides_make_no_conflict(sample, tmp_path: Path):
    descriptor = tmp_path / "world/documents/mod/LocalFix/descriptor.mod"
    descriptor.write_text(descriptor.read_text(encoding="utf-8") + 'replace_path="common/traits"\n', "utf-8")
    async with Client(build(sample)) as client:
        found = await ask(client, {"command": "conflicts"})
        brave = await ask(client, {"command": "define", "key": "brave", "kind": "traits"})

    assert found["data"]["conflicts"] == []
    hidden = [row["source"] for row in brave["data"]["kinds"][0]["definitions"] if "not_read" in row]
    assert hidden == ["vanilla", "Better Traits", "Better Traits"]
