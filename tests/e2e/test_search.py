"""`ck3_search`: names by glob and contents by literal or regex, capped, never past what a read shows."""

from pathlib import Path
from typing import Any

import pytest
from dulwich import porcelain
from fastmcp import Client

from app.bootstrap import build
from app.config import Settings
from domain.vocabulary import Mode, RootCategory
from tests.worlds import sample_world_on_disk

pytestmark = pytest.mark.anyio


async def search(settings: Settings, **args: Any) -> dict[str, Any]:
    async with Client(build(settings)) as client:
        result = await client.call_tool("ck3_search", args, raise_on_error=False)
    return dict(result.structured_content)


@pytest.fixture
def repo(repo_settings: Settings) -> Path:
    return repo_settings.roots[RootCategory.ROOT_REPO]


def addresses(env: dict[str, Any], key: str = "matches") -> list[str]:
    return [str(item["address"]) for item in env["data"][key]]


async def test_a_name_search_finds_localisation_files_in_the_game_and_the_playset_mods(tmp_path: Path):
    settings = sample_world_on_disk(tmp_path)
    world = tmp_path / "world"
    expected = {
        f"ROOT_GAME:/{path.relative_to(world / 'game').as_posix()}"
        for path in (world / "game").rglob("*_l_english.yml")
    }

    env = await search(settings, command="names", glob="**/*_l_english.yml")

    assert expected
    assert expected <= set(addresses(env))


async def test_a_name_glob_with_a_folder_matches_paths_below_the_folder_searched(
    repo_settings: Settings, repo: Path
):
    (repo / "common" / "traits").mkdir(parents=True)
    (repo / "common" / "traits" / "t.txt").touch()
    (repo / "events").mkdir()
    (repo / "events" / "t.txt").touch()

    env = await search(repo_settings, command="names", glob="common/**/*.txt")

    assert addresses(env) == ["ROOT_REPO:/common/traits/t.txt"]


async def test_a_content_search_answers_each_line_with_its_number_column_and_text(
    repo_settings: Settings, repo: Path
):
    (repo / "a.txt").write_text("first\nsecond needle here\nthird\n", encoding="utf-8")

    env = await search(repo_settings, command="contents", pattern="needle")

    assert env["data"]["hits"] == [
        {"address": "ROOT_REPO:/a.txt", "line": 2, "column": 8, "text": "second needle here"}
    ]


async def test_a_regex_search_ignoring_case_finds_every_matching_line(repo_settings: Settings, repo: Path):
    (repo / "traits.txt").write_text("brave = {\n}\nCRAVEN = {\n}\nnot_a_trait\n", encoding="utf-8")

    env = await search(repo_settings, command="contents", pattern=r"^\w+ = \{", regex=True, ignore_case=True)

    assert [hit["line"] for hit in env["data"]["hits"]] == [1, 3]


async def test_a_bad_regex_is_invalid(repo_settings: Settings):
    env = await search(repo_settings, command="contents", pattern="(unclosed", regex=True)

    assert env["code"] == "MCP-VAL-I-001"


async def test_hidden_files_are_never_searched(repo_settings: Settings, repo: Path):
    (repo / ".env").write_text("TOKEN=needle\n", encoding="utf-8")
    (repo / "key.pem").write_text("needle\n", encoding="utf-8")

    env = await search(repo_settings, command="contents", pattern="needle", include_ignored=True)

    assert env["data"]["hits"] == []


async def test_binary_files_are_skipped_and_counted(repo_settings: Settings, repo: Path):
    (repo / "image.dds").write_bytes(b"DDS needle\x00\x01\x02")

    env = await search(repo_settings, command="contents", pattern="needle")

    assert env["data"]["hits"] == []
    assert env["data"]["skipped"]["binary"] == 1


async def test_a_search_that_reaches_its_hit_cap_says_so(repo_settings: Settings, repo: Path):
    (repo / "many.txt").write_text("needle\n" * 50, encoding="utf-8")

    env = await search(repo_settings, command="contents", pattern="needle", limit=10)

    assert (env["data"]["count"], env["data"]["truncated"], env["data"]["cap"]) == (10, True, "limit")


async def test_ignored_files_are_searched_only_when_asked(tmp_path: Path):
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / ".gitignore").write_text("*.log\n", encoding="utf-8")
    (repo / "run.log").write_text("needle\n", encoding="utf-8")
    porcelain.init(str(repo))
    settings = Settings("test", {RootCategory.ROOT_REPO: repo}, RootCategory.ROOT_REPO, Mode.CK3RAVEN_DEV)

    plain = await search(settings, command="contents", pattern="needle")
    everything = await search(settings, command="contents", pattern="needle", include_ignored=True)

    assert addresses(plain, "hits") == []
    assert addresses(everything, "hits") == ["ROOT_REPO:/run.log"]


async def test_a_search_under_an_invisible_folder_answers_as_a_missing_one(tmp_path: Path):
    settings = sample_world_on_disk(tmp_path)

    invisible = await search(settings, command="names", glob="*", path="ROOT_STEAM:/2217000099")
    missing = await search(settings, command="names", glob="*", path="ROOT_STEAM:/2217000098")

    assert invisible["code"] == missing["code"] == "WA-RES-I-001"


async def test_a_content_search_never_follows_a_link(repo_settings: Settings, repo: Path, tmp_path: Path):
    outside = tmp_path / "outside.txt"
    outside.write_text("needle outside\n", encoding="utf-8")
    (repo / "link.txt").symlink_to(outside)

    env = await search(repo_settings, command="contents", pattern="needle")

    assert env["data"]["hits"] == []


@pytest.mark.parametrize("name", ["server.pem.", "id.key ", "CON", "C:\\Users\\bob", "bad\udcff.txt"])
async def test_a_name_no_address_can_spell_is_never_listed_nor_searched(
    repo_settings: Settings, repo: Path, name: str
):
    (repo / "plain.txt").write_text("needle\n", encoding="utf-8")
    (repo / name).write_bytes(b"needle\n")  # a name that is not UTF-8 goes to disk as its raw bytes

    found = await search(repo_settings, command="contents", pattern="needle")
    named = await search(repo_settings, command="names", glob="*")
    async with Client(build(repo_settings)) as client:
        listed = (await client.call_tool("ck3_dir", {"command": "list"})).structured_content

    assert addresses(found, "hits") == ["ROOT_REPO:/plain.txt"]
    assert addresses(named) == ["ROOT_REPO:/plain.txt"]
    assert [entry["address"] for entry in listed["data"]["entries"]] == ["ROOT_REPO:/plain.txt"]


async def test_a_whole_world_search_reaches_the_mods_before_a_game_tree_larger_than_its_byte_cap(
    tmp_path: Path,
):
    settings = sample_world_on_disk(tmp_path)
    world = tmp_path / "world"
    huge = world / "game" / "localization" / "english" / "aa_huge_l_english.yml"
    huge.write_text("\ufeffl_english:\n" + ' trait_brave_filler:0 "padding"\n' * 20_000, encoding="utf-8")
    fix = world / "documents" / "mod" / "LocalFix" / "common" / "traits" / "zzz_local_fix.txt"
    fix.write_text(fix.read_text(encoding="utf-8") + "\n# trait_brave_local_marker\n", encoding="utf-8")

    env = await search(settings, command="contents", pattern="trait_brave_local_marker", max_bytes=256 * 1024)

    assert huge.stat().st_size > 256 * 1024
    assert addresses(env, "hits") == ["mod:Local Fix:/common/traits/zzz_local_fix.txt"]
    assert env["data"]["truncated"] is True
    assert "ROOT_GAME:/" in env["data"]["unreached"]
