"""Working on CK3 mods on the sample world: launcher playsets imported, the merged view, the game's file
rules on write, and descriptors that must stay readable."""

from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client

from app.bootstrap import build
from app.config import Settings
from domain.vocabulary import Mode, RootCategory
from tests.e2e.stdio import CK3RAVEN, envelope, stdio_client
from tests.worlds import sample_world_on_disk

pytestmark = pytest.mark.anyio
R = RootCategory


async def call(settings: Settings, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    async with Client(build(settings)) as client:
        return dict((await client.call_tool(tool, args, raise_on_error=False)).structured_content)


@pytest.fixture
def lens(tmp_path: Path) -> Settings:
    return sample_world_on_disk(tmp_path, Mode.CK3LENS)


async def test_importing_the_launchers_playsets_shows_the_same_mods_in_the_same_order(lens_config: Path):
    import anyio

    imported = await anyio.run_process(
        [CK3RAVEN, "playsets", "import", "--config", str(lens_config)], check=False
    )
    async with stdio_client(lens_config, "auto") as client:
        shown = envelope(await client.call_tool("ck3_playset", {"command": "show", "name": "Events Only"}))

    assert imported.returncode == 0, imported.stderr.decode()
    assert [(m["name"], m["enabled"]) for m in shown["data"]["mods"]] == [
        ("More Events", True),
        ("Better Traits", False),
    ]


async def test_which_names_vanilla_overridden_by_the_workshop_mod_and_then_the_local_mod(lens: Settings):
    env = await call(lens, "ck3_playset", {"command": "which", "path": "common/traits/00_traits.txt"})

    assert [(s["source"], s["provides"]) for s in env["data"]["sources"]] == [
        ("vanilla", True),
        ("Better Traits", True),
        ("More Events", False),
        ("Local Fix", True),
    ]
    assert env["data"]["winner"] == "mod:Local Fix:/common/traits/00_traits.txt"


async def test_which_says_a_replace_path_hides_vanillas_file(lens: Settings):
    env = await call(
        lens, "ck3_playset", {"command": "which", "path": "common/culture/cultures/00_cultures.txt"}
    )

    assert env["data"]["sources"][0]["hidden_by"] == "More Events"
    assert env["data"]["winner"] is None


async def test_which_on_a_folder_names_the_winner_of_each_file(lens: Settings):
    env = await call(lens, "ck3_playset", {"command": "which", "path": "common/traits"})

    files = {f["name"]: f["winner"] for f in env["data"]["files"]}
    assert files["00_traits.txt"] == "mod:Local Fix:/common/traits/00_traits.txt"
    assert files["zz_better_traits.txt"] == "mod:Better Traits:/common/traits/zz_better_traits.txt"


async def test_show_reports_each_mods_descriptor(lens: Settings):
    env = await call(lens, "ck3_playset", {"command": "show"})

    descriptors = {m["name"]: m["descriptor"] for m in env["data"]["mods"]}
    assert descriptors["More Events"]["replace_path"] == ["common/culture/cultures"]
    assert descriptors["Better Traits"]["supported_version"] == "1.12.*"


async def test_a_localisation_write_without_a_bom_lands_with_one(tmp_path: Path):
    settings = sample_world_on_disk(tmp_path, Mode.CK3LENS)
    target = "mod:Local Fix:/localization/english/fix_l_english.yml"
    async with Client(build(settings)) as client:
        await client.call_tool("ck3_contract", OPEN_LOCAL)
        env = (
            await client.call_tool(
                "ck3_file", {"command": "write", "path": target, "content": "l_english:\n"}
            )
        ).structured_content

    written = (
        tmp_path
        / "world"
        / "documents"
        / "mod"
        / "LocalFix"
        / "localization"
        / "english"
        / "fix_l_english.yml"
    )
    assert env["data"]["adjusted"] == ["bom-added"]
    assert written.read_bytes() == b"\xef\xbb\xbfl_english:\n"


async def test_a_new_event_file_lands_with_the_byte_order_mark_the_table_requires(tmp_path: Path):
    """ck3-tiger reads events with PdxFile::read, which expects a UTF-8 BOM (domain.ck3.encodings)."""
    settings = sample_world_on_disk(tmp_path, Mode.CK3LENS)
    target = "mod:Local Fix:/events/fix_events.txt"
    opened = OPEN_LOCAL | {"targets": [{"path": target, "edit_kind": "add"}]}
    async with Client(build(settings)) as client:
        await client.call_tool("ck3_contract", opened)
        env = (
            await client.call_tool(
                "ck3_file", {"command": "write", "path": target, "content": "namespace = fix\n"}
            )
        ).structured_content

    written = tmp_path / "world" / "documents" / "mod" / "LocalFix" / "events" / "fix_events.txt"
    assert env["data"]["adjusted"] == ["bom-added"]
    assert written.read_bytes() == b"\xef\xbb\xbfnamespace = fix\n"


async def test_a_descriptor_write_that_breaks_it_is_invalid_and_the_file_is_unchanged(tmp_path: Path):
    settings = sample_world_on_disk(tmp_path, Mode.CK3LENS)
    descriptor = tmp_path / "world" / "documents" / "mod" / "LocalFix" / "descriptor.mod"
    before = descriptor.read_bytes()
    async with Client(build(settings)) as client:
        await client.call_tool("ck3_contract", OPEN_LOCAL)
        env = (
            await client.call_tool(
                "ck3_file",
                {
                    "command": "write",
                    "path": "mod:Local Fix:/descriptor.mod",
                    "content": 'version="2"\ntags={\n',
                },
                raise_on_error=False,
            )
        ).structured_content

    assert env["code"] == "WA-WRITE-I-008"
    assert "name is required" in env["data"]["problems"]
    assert descriptor.read_bytes() == before


OPEN_LOCAL = {
    "command": "open",
    "root_category": "ROOT_USER_DOCS",
    "intent": "Fix the local mod",
    "work_declaration": "Localisation and descriptor of Local Fix",
    "operations": ["WRITE"],
    "targets": [
        {"path": "mod:Local Fix:/localization/english/fix_l_english.yml", "edit_kind": "add"},
        {"path": "mod:Local Fix:/descriptor.mod", "edit_kind": "modify"},
    ],
}
