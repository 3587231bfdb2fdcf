"""Edits that are safe to retry: several replacements all or none, tolerant matching that keeps the file's
line endings, dry runs with a unified diff, and the expected_sha256 and create_only preconditions."""

import hashlib
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client

from app.bootstrap import build
from app.config import Settings
from domain.vocabulary import Mode, RootCategory

pytestmark = pytest.mark.anyio


async def edit(settings: Settings, **args: Any) -> dict[str, Any]:
    async with Client(build(settings)) as client:
        result = await client.call_tool("ck3_file", args, raise_on_error=False)
    return dict(result.structured_content)


@pytest.fixture
def repo_settings(tmp_path: Path) -> Settings:
    """ck3raven-dev with the data root, whose wip folder takes writes without a contract."""
    (tmp_path / "repo").mkdir()
    (tmp_path / "data" / "wip").mkdir(parents=True)
    roots = {RootCategory.ROOT_REPO: tmp_path / "repo", RootCategory.ROOT_CK3RAVEN_DATA: tmp_path / "data"}
    return Settings("test", roots, RootCategory.ROOT_CK3RAVEN_DATA, Mode.CK3RAVEN_DEV)


@pytest.fixture
def repo(repo_settings: Settings) -> Path:
    return repo_settings.roots[RootCategory.ROOT_CK3RAVEN_DATA] / "wip"


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


async def test_several_replacements_land_together(repo_settings: Settings, repo: Path):
    (repo / "a.py").write_text("x = 1\ny = 2\n", encoding="utf-8")
    edits = [{"old_string": "x = 1", "new_string": "x = 10"}, {"old_string": "y = 2", "new_string": "y = 20"}]

    env = await edit(repo_settings, command="edit", path="wip/a.py", edits=edits)

    assert env["code"] == "WA-WRITE-S-005"
    assert (repo / "a.py").read_text(encoding="utf-8") == "x = 10\ny = 20\n"


async def test_when_one_replacement_misses_none_lands_and_the_reply_names_it(
    repo_settings: Settings, repo: Path
):
    (repo / "a.py").write_text("x = 1\ny = 2\n", encoding="utf-8")
    edits = [{"old_string": "x = 1", "new_string": "x = 10"}, {"old_string": "z = 3", "new_string": "z = 30"}]

    env = await edit(repo_settings, command="edit", path="wip/a.py", edits=edits)

    assert (env["code"], env["data"]["edit"], env["data"]["count"]) == ("WA-WRITE-I-002", 2, 0)
    assert (repo / "a.py").read_text(encoding="utf-8") == "x = 1\ny = 2\n"


async def test_an_lf_old_text_matches_a_crlf_file_and_the_file_keeps_crlf(
    repo_settings: Settings, repo: Path
):
    (repo / "t.txt").write_bytes(b"brave = {\r\n\tcost = 1   \r\n}\r\n")

    env = await edit(
        repo_settings,
        command="edit",
        path="wip/t.txt",
        old_string="brave = {\n\tcost = 1\n",
        new_string="brave = {\n\tcost = 2\n",
    )

    assert env["data"]["matched"] == ["tolerant"]
    assert (repo / "t.txt").read_bytes() == b"brave = {\r\n\tcost = 2\r\n}\r\n"


async def test_an_edit_keeps_the_byte_order_mark(repo_settings: Settings, repo: Path):
    (repo / "l.yml").write_bytes(b'\xef\xbb\xbfl_english:\n key:0 "Old"\n')

    await edit(repo_settings, command="edit", path="wip/l.yml", old_string='"Old"', new_string='"New"')

    assert (repo / "l.yml").read_bytes() == b'\xef\xbb\xbfl_english:\n key:0 "New"\n'


async def test_old_and_new_beside_edits_is_invalid(repo_settings: Settings, repo: Path):
    (repo / "a.py").write_text("x = 1\n", encoding="utf-8")

    env = await edit(
        repo_settings,
        command="edit",
        path="wip/a.py",
        old_string="x",
        new_string="y",
        edits=[{"old_string": "x", "new_string": "z"}],
    )

    assert env["code"] == "MCP-VAL-I-001"


async def test_a_dry_run_answers_a_unified_diff_and_writes_nothing(repo_settings: Settings, repo: Path):
    (repo / "a.py").write_text("x = 1\ny = 2\n", encoding="utf-8")

    env = await edit(
        repo_settings, command="edit", path="wip/a.py", old_string="y = 2", new_string="y = 3", dry_run=True
    )

    assert env["code"] == "WA-WRITE-S-006"
    assert "-y = 2\n+y = 3\n" in env["data"]["diff"]
    assert (repo / "a.py").read_text(encoding="utf-8") == "x = 1\ny = 2\n"


async def test_a_dry_run_of_a_new_file_shows_every_line_added(repo_settings: Settings, repo: Path):
    env = await edit(repo_settings, command="write", path="wip/new.py", content="a\nb\n", dry_run=True)

    assert (env["data"]["created"], env["data"]["diff"].count("\n+")) == (True, 3)
    assert not (repo / "new.py").exists()


async def test_a_write_with_the_sha256_last_read_lands(repo_settings: Settings, repo: Path):
    (repo / "a.py").write_bytes(b"old\n")

    env = await edit(
        repo_settings, command="write", path="wip/a.py", content="new\n", expected_sha256=sha(b"old\n")
    )

    assert env["code"] == "WA-WRITE-S-001"


async def test_a_write_after_the_file_changed_is_refused_and_the_change_survives(
    repo_settings: Settings, repo: Path
):
    (repo / "a.py").write_bytes(b"someone else's\n")

    env = await edit(
        repo_settings, command="write", path="wip/a.py", content="mine\n", expected_sha256=sha(b"old\n")
    )

    assert (env["code"], env["data"]["sha256"]) == ("WA-WRITE-I-006", sha(b"someone else's\n"))
    assert (repo / "a.py").read_bytes() == b"someone else's\n"


async def test_an_edit_of_a_file_that_vanished_since_it_was_read_is_refused(repo_settings: Settings):
    env = await edit(
        repo_settings,
        command="edit",
        path="wip/gone.py",
        old_string="a",
        new_string="b",
        expected_sha256=sha(b"a"),
    )

    assert env["code"] == "WA-RES-I-001"


async def test_a_delete_after_the_file_changed_is_refused_and_the_file_stays(
    repo_settings: Settings, repo: Path
):
    (repo / "a.py").write_bytes(b"changed\n")

    env = await edit(repo_settings, command="delete", path="wip/a.py", expected_sha256=sha(b"read\n"))

    assert env["code"] == "WA-WRITE-I-006"
    assert (repo / "a.py").exists()


async def test_create_only_refuses_to_replace_an_existing_file(repo_settings: Settings, repo: Path):
    (repo / "a.py").write_bytes(b"kept\n")

    env = await edit(repo_settings, command="write", path="wip/a.py", content="lost\n", create_only=True)

    assert env["code"] == "WA-WRITE-I-007"
    assert (repo / "a.py").read_bytes() == b"kept\n"


async def test_create_only_creates_a_new_file(repo_settings: Settings, repo: Path):
    env = await edit(repo_settings, command="write", path="wip/b.py", content="b\n", create_only=True)

    assert (env["code"], env["data"]["created"]) == ("WA-WRITE-S-001", True)


async def test_a_malformed_sha256_is_refused_by_the_schema(repo_settings: Settings, repo: Path):
    (repo / "a.py").write_bytes(b"kept\n")

    env = await edit(
        repo_settings, command="write", path="wip/a.py", content="x", expected_sha256="not-a-digest"
    )

    assert env["code"] == "MCP-VAL-I-001"
    assert (repo / "a.py").read_bytes() == b"kept\n"


async def test_a_dry_run_over_a_binary_file_answers_as_the_write_would(repo_settings: Settings, repo: Path):
    (repo / "img.dds").write_bytes(b"DDS \x00\x01\x02")

    shown = await edit(repo_settings, command="write", path="wip/img.dds", content="text now\n", dry_run=True)
    written = await edit(repo_settings, command="write", path="wip/img.dds", content="text now\n")

    assert (shown["code"], written["code"]) == ("WA-WRITE-S-006", "WA-WRITE-S-001")
    assert "+text now" in shown["data"]["diff"]
