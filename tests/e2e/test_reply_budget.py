"""Replies fit the operator's budget (SPEC §16): reads, lists, trees and searches that do not ask for more
answer a window of at most `[replies] budget_kib` on one copy of the envelope, cut at a line or a row, and
say how to get the rest; a call that asks for more gets it, up to the hard cap."""

from pathlib import Path
from typing import Any

import pytest
from attrs import evolve
from fastmcp import Client

from app.bootstrap import build, build_core
from app.config import Settings
from domain.vocabulary import RootCategory

pytestmark = pytest.mark.anyio


def _root(settings: Settings) -> Path:
    return settings.roots[RootCategory.ROOT_REPO]


async def _calls(
    settings: Settings, calls: list[tuple[str, dict[str, Any]]]
) -> list[tuple[int, dict[str, Any]]]:
    """Each call's envelope and the bytes of its text copy."""
    answered = []
    async with Client(build(settings)) as client:
        for tool, args in calls:
            result = await client.call_tool(tool, args, raise_on_error=False)
            answered.append((len(result.content[0].text.encode("utf-8")), dict(result.structured_content)))
    return answered


@pytest.fixture
def big(repo_settings: Settings) -> Settings:
    root = _root(repo_settings)
    (root / "long.txt").write_text(
        "".join(f"line {n:05} of a long file\n" for n in range(5000)), encoding="utf-8"
    )
    (root / "many").mkdir()
    for n in range(1500):
        (root / "many" / f"file_{n:04}.txt").write_text(f"needle {n}\n", encoding="utf-8")
    for n in range(1500):
        (root / "tree" / f"folder_{n:04}").mkdir(parents=True)
    return repo_settings


async def test_a_read_that_names_no_window_fits_the_budget_and_says_where_to_go_on(big: Settings):
    (size, first), (_, second) = await _calls(
        big, [("ck3_read", {"path": "long.txt"}), ("ck3_read", {"path": "long.txt", "offset": 0})]
    )
    second_call = [("ck3_read", {"path": "long.txt", "offset": first["data"]["next_offset"]})]
    [(_, following)] = await _calls(big, second_call)

    assert size <= 32 * 1024
    assert first["data"]["content"].endswith("\n")
    assert following["data"]["first_line"] == first["data"]["last_line"] + 1
    assert second["reply_type"] == "I"  # offset is 1-based


async def test_a_read_that_asks_for_more_lines_gets_them_past_the_budget(big: Settings):
    [(size, env)] = await _calls(big, [("ck3_read", {"path": "long.txt", "offset": 1, "limit": 5000})])

    assert size > 32 * 1024
    assert (env["data"]["last_line"], env["data"]["next_offset"]) == (5000, None)


async def test_a_listing_pages_within_the_budget_and_its_last_page_says_nothing_follows(big: Settings):
    seen: list[str] = []
    cursor = None
    sizes = []
    async with Client(build(big)) as client:
        while True:
            args = {"command": "list", "path": "many"} | ({"cursor": cursor} if cursor else {})
            result = await client.call_tool("ck3_dir", args, raise_on_error=False)
            env = result.structured_content
            sizes.append(len(result.content[0].text.encode("utf-8")))
            seen += [entry["name"] for entry in env["data"]["entries"]]
            cursor = env["data"]["next_cursor"]
            if cursor is None:
                break

    assert max(sizes) <= 32 * 1024
    assert len(sizes) > 1
    assert len(seen) == len(set(seen)) == 1500
    assert "more follow" not in env["message"]


async def test_searches_and_trees_that_do_not_ask_fit_the_budget(big: Settings):
    answered = await _calls(
        big,
        [
            ("ck3_search", {"command": "names", "glob": "*.txt"}),
            ("ck3_search", {"command": "contents", "pattern": "needle"}),
            ("ck3_dir", {"command": "tree", "path": "tree"}),
        ],
    )

    assert [size <= 32 * 1024 for size, _ in answered] == [True, True, True]
    assert [env["data"]["truncated"] for _, env in answered] == [True, True, True]


async def test_the_operators_budget_is_the_one_kept(big: Settings):
    small = evolve(big, budget_kib=10)

    answered = await _calls(
        small,
        [
            ("ck3_read", {"path": "long.txt"}),
            ("ck3_dir", {"command": "list", "path": "many"}),
            ("ck3_search", {"command": "names", "glob": "*.txt"}),
        ],
    )

    assert [size <= 10 * 1024 for size, _ in answered] == [True, True, True]


async def test_an_invalid_a_denied_and_an_error_reply_carry_the_whole_envelope_in_their_text(
    repo_settings: Settings,
):
    import json

    from tests.fakes import pwd_answered_by, raising

    async with Client(build(repo_settings)) as client:
        invalid = await client.call_tool("ck3_read", {"path": "/etc/passwd"}, raise_on_error=False)
        denied = await client.call_tool(
            "ck3_file", {"command": "write", "path": "x.txt", "content": "x"}, raise_on_error=False
        )
    async with Client(
        build(repo_settings, core=pwd_answered_by(raising, build_core(repo_settings)))
    ) as client:
        error = await client.call_tool("ck3_dir", {}, raise_on_error=False)

    results = [invalid, denied, error]
    assert [r.structured_content["reply_type"] for r in results] == ["I", "D", "E"]
    assert all(json.loads(r.content[0].text) == r.structured_content for r in results)


async def test_a_tree_that_asks_for_more_folders_gets_them_past_the_budget(big: Settings):
    [(size, env)] = await _calls(big, [("ck3_dir", {"command": "tree", "path": "tree", "limit": 20_000})])

    assert size > 32 * 1024
    assert (env["data"]["count"], env["data"]["truncated"]) == (1500, False)


async def _pages(client: Client, tool: str, args: dict[str, Any], rows: str) -> tuple[list[Any], list[int]]:
    """Every row of a search or tree, window after window by next_cursor, and each window's bytes."""
    seen: list[Any] = []
    sizes: list[int] = []
    cursor = None
    while True:
        result = await client.call_tool(
            tool, args | ({"cursor": cursor} if cursor else {}), raise_on_error=False
        )
        env = result.structured_content
        assert env["reply_type"] == "S", env
        sizes.append(len(result.content[0].text.encode("utf-8")))
        seen += env["data"][rows]
        cursor = env["data"]["next_cursor"]
        if cursor is None:
            return seen, sizes


async def test_searches_and_trees_cut_by_the_budget_go_on_by_cursor_to_the_last_row(big: Settings):
    async with Client(build(big)) as client:
        names, name_sizes = await _pages(
            client, "ck3_search", {"command": "names", "glob": "many/*.txt"}, "matches"
        )
        hits, hit_sizes = await _pages(
            client, "ck3_search", {"command": "contents", "pattern": "needle", "glob": "many/*.txt"}, "hits"
        )
        folders, tree_sizes = await _pages(
            client, "ck3_dir", {"command": "tree", "path": "tree", "depth": 1}, "directories"
        )

    assert max(name_sizes + hit_sizes + tree_sizes) <= 32 * 1024
    assert min(len(name_sizes), len(hit_sizes), len(tree_sizes)) > 1
    assert len({m["address"] for m in names}) == len(names) == 1500
    assert len({(h["address"], h["line"]) for h in hits}) == len(hits) == 1500
    assert len(set(folders)) == len(folders) == 1500


async def test_a_cursor_that_no_window_gave_is_invalid(big: Settings):
    answered = await _calls(
        big,
        [
            ("ck3_search", {"command": "names", "glob": "*.txt", "cursor": "/etc/passwd"}),
            ("ck3_dir", {"command": "tree", "cursor": "-1"}),
        ],
    )

    assert [env["reply_type"] for _, env in answered] == ["I", "I"]
