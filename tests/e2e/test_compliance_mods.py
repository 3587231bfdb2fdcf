"""Compliance that holds on real mods: in a documents folder with no git, a new symbol in a modified file
needs an NST; a large localisation file needs every key declared (a page at a time is shown, never a
silent cap); an NST's address is checked like every address; the traps the game passes over in silence
are findings with codes at close."""

from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client

from app.bootstrap import build
from app.config import Settings
from domain.vocabulary import Mode, RootCategory

pytestmark = pytest.mark.anyio
R = RootCategory
MOD = "ROOT_USER_DOCS:/mod/Fix"
TRAITS = f"{MOD}/common/traits/00_fix_traits.txt"
BOM = "\ufeff"


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    """A documents folder with no git: one local mod with a trait file."""
    traits = tmp_path / "documents" / "mod" / "Fix" / "common" / "traits"
    traits.mkdir(parents=True)
    (traits / "00_fix_traits.txt").write_text("brave = {\n\tcost = 1\n}\n", encoding="utf-8")
    roots = {R.ROOT_USER_DOCS: tmp_path / "documents"}
    return Settings("t", roots, R.ROOT_USER_DOCS, Mode.CK3RAVEN_DEV, state_dir=tmp_path / "state")


async def call(client: Client, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    return dict((await client.call_tool(tool, args, raise_on_error=False)).structured_content)


def contract(*targets: tuple[str, str]) -> dict[str, Any]:
    return {
        "command": "open",
        "root_category": "ROOT_USER_DOCS",
        "intent": "Work on the fix",
        "work_declaration": "The declared files",
        "operations": ["WRITE"],
        "targets": [{"path": address, "edit_kind": kind} for address, kind in targets],
    }


def write(path: str, content: str) -> dict[str, Any]:
    return {"command": "write", "path": path, "content": content}


async def test_a_new_trait_in_a_modified_file_without_git_needs_an_nst(settings: Settings):
    async with Client(build(settings)) as client:
        await call(client, "ck3_contract", contract((TRAITS, "modify")))
        await call(client, "ck3_file", write(TRAITS, "brave = {\n\tcost = 1\n}\ncraven = {\n\tcost = 2\n}\n"))
        refused = await call(client, "ck3_contract", {"command": "close"})
        nst = {"command": "nst", "symbols": [{"name": "craven", "path": TRAITS}], "reason": "asked for"}
        await call(client, "ck3_token", nst)
        closed = await call(client, "ck3_contract", {"command": "close"})

    assert refused["code"] == "CT-GATE-I-009"
    assert [s["name"] for s in refused["data"]["uncovered"]] == ["craven"]
    assert closed["code"] == "CT-GATE-S-002"


async def test_a_file_changed_outside_the_server_with_nothing_knowing_it_before_counts_every_symbol_new(
    settings: Settings, tmp_path: Path
):
    async with Client(build(settings)) as client:
        await call(client, "ck3_contract", contract((TRAITS, "modify")))
        disk = tmp_path / "documents" / "mod" / "Fix" / "common" / "traits" / "00_fix_traits.txt"
        disk.write_text("brave = {\n\tcost = 3\n}\n", encoding="utf-8")
        refused = await call(client, "ck3_contract", {"command": "close"})

    assert refused["code"] == "CT-GATE-I-009"
    assert [s["name"] for s in refused["data"]["uncovered"]] == ["brave"]


async def test_a_localisation_file_of_1500_keys_needs_every_key_declared_shown_a_page_at_a_time(
    settings: Settings,
):
    address = f"{MOD}/localization/english/fix_l_english.yml"
    keys = "".join(f' fix_key_{n:04}:0 "Text {n}"\n' for n in range(1500))
    async with Client(build(settings)) as client:
        await call(client, "ck3_contract", contract((address, "add")))
        await call(client, "ck3_file", write(address, f"l_english:\n{keys}"))
        first = await call(client, "ck3_contract", {"command": "close"})
        second = await call(
            client, "ck3_contract", {"command": "close", "cursor": first["data"]["next_cursor"]}
        )
        shown = [{"name": s["name"], "path": s["address"]} for s in first["data"]["uncovered"]]
        some = {"command": "nst", "symbols": shown, "reason": "the fix's text"}
        await call(client, "ck3_token", some)
        still = await call(client, "ck3_contract", {"command": "close"})
        await call(client, "ck3_token", {**first["data"]["request"], "reason": "the fix's text"})
        closed = await call(client, "ck3_contract", {"command": "close"})

    assert (first["code"], first["data"]["count"], len(first["data"]["uncovered"])) == (
        "CT-GATE-I-009",
        1500,
        150,
    )
    assert second["data"]["uncovered"][0]["name"] == "fix_key_0150"
    assert (still["code"], still["data"]["count"]) == ("CT-GATE-I-009", 1350)
    assert first["data"]["request"]["symbols"] == [{"name": "*", "path": address}]
    assert closed["code"] == "CT-GATE-S-002"


@pytest.mark.parametrize("address", ["ROOT_USER_DOCS:/../outside/x.py", "/etc/passwd", "ROOT_GAME:/x.txt"])
async def test_an_nst_whose_address_does_not_resolve_into_the_contract_is_invalid_and_records_nothing(
    settings: Settings, address: str
):
    async with Client(build(settings)) as client:
        await call(client, "ck3_contract", contract((TRAITS, "modify")))
        refused = await call(
            client,
            "ck3_token",
            {"command": "nst", "symbols": [{"name": "x", "path": address}], "reason": "r"},
        )
        listed = await call(client, "ck3_token", {"command": "list"})

    assert refused["reply_type"] == "I"
    assert "/etc" not in str(refused)
    assert "outside" not in str(refused)
    assert (listed["code"], listed["data"]["nsts"]) == ("CT-GATE-S-012", [])


@pytest.mark.parametrize(
    ("path", "content", "rule"),
    [
        ("localisation/english/fix_l_english.yml", f'{BOM}l_english:\n fix_a:0 "A"\n', "CK3-FOLDER"),
        ("common/on_actions/fix_on_actions.txt", "on_game_start = { }\n", "CK3-FOLDER"),
        ("localization/english/fix.yml", f'{BOM}l_english:\n fix_a:0 "A"\n', "CK3-LOCNAME"),
        ("localization/english/fix_l_english.yml", f'{BOM}l_french:\n fix_a:0 "A"\n', "CK3-LOCHEAD"),
        (
            "localization/english/fix_l_english.yml",
            f'{BOM}l_english:\n fix_a:0 "say "hi" now"\n',
            "CK3-LOCQUOTE",
        ),
    ],
)
async def test_traps_the_game_passes_over_in_silence_are_findings_at_close(
    settings: Settings, path: str, content: str, rule: str
):
    address = f"{MOD}/{path}"
    async with Client(build(settings)) as client:
        await call(client, "ck3_contract", contract((address, "add")))
        await call(client, "ck3_file", write(address, content))
        nst = {"command": "nst", "symbols": [{"name": "*", "path": address}], "reason": "the fix"}
        await call(client, "ck3_token", nst)
        refused = await call(client, "ck3_contract", {"command": "close"})

    assert refused["code"] == "CT-GATE-I-010"
    assert rule in {f["rule"] for f in refused["data"]["findings"]}


async def test_a_script_file_written_outside_without_the_byte_order_mark_its_kind_needs_is_a_finding(
    settings: Settings, tmp_path: Path
):
    address = f"{MOD}/common/traits/01_fix_traits.txt"
    async with Client(build(settings)) as client:
        await call(client, "ck3_contract", contract((address, "add")))
        disk = tmp_path / "documents" / "mod" / "Fix" / "common" / "traits" / "01_fix_traits.txt"
        disk.write_text("craven = {\n\tcost = 2\n}\n", encoding="utf-8")  # no byte-order mark
        nst = {"command": "nst", "symbols": [{"name": "*", "path": address}], "reason": "the fix"}
        await call(client, "ck3_token", nst)
        refused = await call(client, "ck3_contract", {"command": "close"})

    assert refused["code"] == "CT-GATE-I-010"
    assert {(f["rule"], f["path"]) for f in refused["data"]["findings"]} == {("CK3-BOM", address)}
