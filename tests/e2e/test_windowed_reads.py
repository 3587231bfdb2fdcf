"""Windowed reads: a file of any size up to 64 MiB is read by lines (offset and limit, head, tail), each
reply carrying at most 2 MiB of text, the line count and where to go on; the digest is the whole file's."""

import hashlib
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client

from app.bootstrap import build
from app.config import Settings
from domain.use_cases.file_contents import READ_LIMIT
from domain.vocabulary import Mode, RootCategory

pytestmark = pytest.mark.anyio
BIG = "ROOT_REPO:/big.txt"


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    repo = tmp_path / "repo"
    repo.mkdir()
    lines = [f"line {number:07d} " + "x" * 60 + "\n" for number in range(1, 150_001)]  # about 11 MB
    (repo / "big.txt").write_text("".join(lines), encoding="utf-8")
    (repo / "small.txt").write_text("one\ntwo\r\nthree", encoding="utf-8")
    return Settings("test", {RootCategory.ROOT_REPO: repo}, RootCategory.ROOT_REPO, Mode.CK3RAVEN_DEV)


async def read(settings: Settings, **window: Any) -> dict[str, Any]:
    async with Client(build(settings)) as client:
        result = await client.call_tool("ck3_read", window, raise_on_error=False)
    return dict(result.structured_content)


async def test_a_window_of_lines_comes_with_the_count_and_the_next_offset(settings: Settings):
    env = await read(settings, path=BIG, offset=100_000, limit=3)

    data = env["data"]
    assert data["content"].splitlines() == [f"line {n:07d} " + "x" * 60 for n in (100_000, 100_001, 100_002)]
    assert (data["first_line"], data["last_line"], data["total_lines"]) == (100_000, 100_002, 150_000)
    assert (data["truncated"], data["next_offset"]) == (True, 100_003)


async def test_the_digest_is_the_whole_files_whatever_the_window(settings: Settings):
    env = await read(settings, path=BIG, head=1)

    whole = (settings.roots[RootCategory.ROOT_REPO] / "big.txt").read_bytes()
    assert env["data"]["sha256"] == hashlib.sha256(whole).hexdigest()
    assert env["data"]["size"] == len(whole)


async def test_a_whole_read_of_a_large_file_stops_at_a_line_end_within_the_reply_limit(settings: Settings):
    env = await read(settings, path=BIG)

    data = env["data"]
    assert env["code"] == "WA-READ-S-003"
    assert len(data["content"].encode()) <= READ_LIMIT
    assert data["content"].endswith("\n")
    assert data["next_offset"] == data["last_line"] + 1


async def test_following_next_offset_reads_the_whole_file_once(settings: Settings):
    pieces, offset = [], 1
    async with Client(build(settings)) as client:
        while offset is not None:
            result = await client.call_tool("ck3_read", {"path": BIG, "offset": offset})
            pieces.append(result.structured_content["data"]["content"])
            offset = result.structured_content["data"]["next_offset"]

    assert "".join(pieces) == (settings.roots[RootCategory.ROOT_REPO] / "big.txt").read_text(encoding="utf-8")


@pytest.mark.parametrize(("window", "content"), [({"head": 2}, "one\ntwo\r\n"), ({"tail": 1}, "three")])
async def test_head_and_tail_keep_the_files_own_line_endings(settings: Settings, window, content):
    env = await read(settings, path="ROOT_REPO:/small.txt", **window)

    assert (env["data"]["content"], env["data"]["total_lines"]) == (content, 3)


async def test_an_offset_past_the_end_is_an_empty_window(settings: Settings):
    env = await read(settings, path="ROOT_REPO:/small.txt", offset=10)

    assert (env["data"]["content"], env["data"]["first_line"], env["data"]["next_offset"]) == ("", 0, None)


async def test_asking_for_two_kinds_of_window_at_once_is_invalid(settings: Settings):
    env = await read(settings, path="ROOT_REPO:/small.txt", head=1, tail=1)

    assert (env["reply_type"], env["code"]) == ("I", "MCP-VAL-I-001")
