"""`ck3_dir list` in pages with a glob filter and a total; list and tree leave out what git ignores."""

from pathlib import Path
from typing import Any

import pytest
from dulwich import porcelain
from fastmcp import Client

from app.bootstrap import build
from app.config import Settings
from domain.vocabulary import Mode, RootCategory

pytestmark = pytest.mark.anyio


async def call(settings: Settings, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    async with Client(build(settings)) as client:
        result = await client.call_tool(tool, args, raise_on_error=False)
    return dict(result.structured_content)


@pytest.fixture
def ignoring_repo(tmp_path: Path) -> Settings:
    """A git repository whose .gitignore leaves out `build/` and `*.log`."""
    repo = tmp_path / "repo"
    (repo / "build").mkdir(parents=True)
    (repo / "src").mkdir()
    (repo / "build" / "out.txt").write_text("built\n", encoding="utf-8")
    (repo / "src" / "a.py").write_text("a = 1\n", encoding="utf-8")
    (repo / "run.log").write_text("log\n", encoding="utf-8")
    (repo / ".gitignore").write_text("build/\n*.log\n", encoding="utf-8")
    porcelain.init(str(repo))
    return Settings("test", {RootCategory.ROOT_REPO: repo}, RootCategory.ROOT_REPO, Mode.CK3RAVEN_DEV)


def names(env: dict[str, Any], key: str = "entries") -> set[str]:
    """The addresses a listing's rows (named below data.address) or a tree's folders stand for."""
    folder = str(env["data"]["address"]).rstrip("/")
    return {
        f"{folder}/{entry['name']}" if isinstance(entry, dict) else str(entry) for entry in env["data"][key]
    }


async def test_a_ten_thousand_entry_folder_is_read_in_pages_following_the_cursor(repo_settings: Settings):
    wide = repo_settings.roots[RootCategory.ROOT_REPO] / "wide"
    wide.mkdir()
    for n in range(10_000):
        (wide / f"e{n:05}.dds").touch()
    seen: list[str] = []
    cursor: str | None = None
    async with Client(build(repo_settings)) as client:
        while True:
            args = {"command": "list", "path": "wide", "limit": 3_000} | (
                {"cursor": cursor} if cursor else {}
            )
            env = (await client.call_tool("ck3_dir", args)).structured_content
            assert env["data"]["total"] == 10_000
            seen += [f"{env['data']['address']}/{entry['name']}" for entry in env["data"]["entries"]]
            cursor = env["data"]["next_cursor"]
            if cursor is None:
                break

    assert seen == [f"ROOT_REPO:/wide/e{n:05}.dds" for n in range(10_000)]


async def test_a_listing_that_asks_for_a_thousand_gets_them_past_the_budget_and_says_more_follow(
    repo_settings: Settings,
):
    wide = repo_settings.roots[RootCategory.ROOT_REPO] / "wide"
    wide.mkdir()
    for n in range(1_500):
        (wide / f"e{n:05}.txt").touch()

    env = await call(repo_settings, "ck3_dir", {"command": "list", "path": "wide", "limit": 1_000})

    assert (env["data"]["count"], env["data"]["truncated"]) == (1_000, True)
    assert env["data"]["next_cursor"] == "e00999.txt"


async def test_a_glob_keeps_the_matching_names_and_the_total_counts_them(repo_settings: Settings):
    folder = repo_settings.roots[RootCategory.ROOT_REPO]
    for name in ("a_l_english.yml", "a_l_french.yml", "b_l_english.yml", "notes.txt"):
        (folder / name).touch()

    env = await call(repo_settings, "ck3_dir", {"command": "list", "glob": "*_l_english.yml"})

    assert names(env) == {"ROOT_REPO:/a_l_english.yml", "ROOT_REPO:/b_l_english.yml"}
    assert env["data"]["total"] == 2


async def test_an_empty_glob_is_invalid(repo_settings: Settings):
    env = await call(repo_settings, "ck3_dir", {"command": "list", "glob": ""})

    assert env["code"] == "MCP-VAL-I-001"


async def test_a_listing_leaves_out_what_the_repository_ignores_and_git_itself(ignoring_repo: Settings):
    env = await call(ignoring_repo, "ck3_dir", {"command": "list"})

    assert names(env) == {"ROOT_REPO:/.gitignore", "ROOT_REPO:/src"}


async def test_a_listing_that_includes_ignored_entries_shows_them_and_git(ignoring_repo: Settings):
    env = await call(ignoring_repo, "ck3_dir", {"command": "list", "include_ignored": True})

    assert {"ROOT_REPO:/build", "ROOT_REPO:/run.log", "ROOT_REPO:/.git"} <= names(env)


async def test_a_tree_leaves_out_ignored_folders_and_git_unless_asked(ignoring_repo: Settings):
    plain = await call(ignoring_repo, "ck3_dir", {"command": "tree"})
    everything = await call(ignoring_repo, "ck3_dir", {"command": "tree", "include_ignored": True})

    assert names(plain, "directories") == {"ROOT_REPO:/src"}
    assert {"ROOT_REPO:/build", "ROOT_REPO:/.git"} <= names(everything, "directories")
