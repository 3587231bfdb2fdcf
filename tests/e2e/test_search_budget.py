"""A content search that no pattern can stall: agents' regular expressions run on RE2, whose matching takes
time linear in the text, and a search stops at its time budget (max_seconds, default 2) and says so. Times
are never asserted: a test checks what the reply says, never how long it took."""

from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client

from app.bootstrap import build, build_core
from app.config import Settings
from domain.use_cases import search as search_use_case
from tests.fakes import FakeClock

pytestmark = pytest.mark.anyio

CATASTROPHIC = "^(a+)+$"
"""Nested repetition: a backtracking engine takes time exponential in a line of a's that fails to match."""


async def search(settings: Settings, **args: Any) -> dict[str, Any]:
    async with Client(build(settings)) as client:
        result = await client.call_tool("ck3_search", {"command": "contents", **args}, raise_on_error=False)
    return dict(result.structured_content)


@pytest.fixture
def repo(repo_settings: Settings) -> Path:
    return repo_settings.roots[next(iter(repo_settings.roots))]


async def test_a_catastrophic_pattern_over_a_long_line_answers_with_the_lines_it_matches(
    repo_settings: Settings, repo: Path
):
    (repo / "a.txt").write_text("a" * 100_000 + "\n" + "a" * 34 + "!\n" + "a" * 28 + "!\n", encoding="utf-8")

    env = await search(repo_settings, pattern=CATASTROPHIC, regex=True)

    data = env["data"]
    assert env["code"] == "WA-READ-S-008"
    assert [hit["line"] for hit in data["hits"]] == [1]
    assert (data["truncated"], data["cap"]) == (False, None)
    assert data["syntax"].startswith("RE2")


async def test_a_pattern_re2_cannot_run_is_refused_and_the_reply_names_the_syntax(repo_settings: Settings):
    env = await search(repo_settings, pattern=r"(a+)\1", regex=True)

    assert env["code"] == "MCP-VAL-I-001"
    assert "RE2" in env["data"]["errors"][0]["problem"]


async def test_a_literal_search_says_its_pattern_is_taken_literally(repo_settings: Settings, repo: Path):
    (repo / "a.txt").write_text("x (a+)+ y\n", encoding="utf-8")

    env = await search(repo_settings, pattern="(a+)+")

    assert (env["data"]["syntax"], env["data"]["count"]) == ("literal", 1)


class TickingClock(FakeClock):
    """A clock that moves one second on each reading: the search's time runs out as it goes."""

    def now(self):
        current = super().now()
        self.advance(seconds=1)
        return current


async def test_a_search_that_runs_out_of_time_stops_and_says_how_to_go_on(
    repo_settings: Settings, repo: Path
):
    for index in range(5):
        (repo / f"{index}.txt").write_text("needle\n", encoding="utf-8")
    core = build_core(repo_settings, clock=TickingClock())

    async with Client(build(repo_settings, core=core)) as client:
        result = await client.call_tool("ck3_search", {"command": "contents", "pattern": "needle"})

    data = result.structured_content["data"]
    assert (data["truncated"], data["cap"]) == (True, "max_seconds")
    assert 0 < data["files_read"] < 5
    assert "max_seconds" in data["hint"]


async def test_a_time_budget_past_the_hard_cap_is_invalid(repo_settings: Settings):
    async with Client(build(repo_settings)) as client:
        result = await client.call_tool(
            "ck3_search",
            {"command": "contents", "pattern": "x", "max_seconds": search_use_case.MAX_SECONDS + 1},
            raise_on_error=False,
        )

    assert result.structured_content["code"] == "MCP-VAL-I-001"
