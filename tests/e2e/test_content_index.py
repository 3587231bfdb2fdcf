"""The playset's content index through the real server (SPEC §15): which definition of a key the game uses,
read by file name across the game and every mod (a game file sorting after a mod's wins), a `replace/`
localisation key, an edit made outside the server seen by the next query, mentions, conflicts, missing
localisation, and the build shown in `ck3_playset show` (MCP-DB-S-001)."""

import json
from pathlib import Path
from typing import Any

import pytest
from attrs import evolve
from fastmcp import Client

from app.bootstrap import build, build_core
from app.config import Settings
from domain.ck3 import content_index
from domain.ck3.merged import Source
from domain.use_cases.content_queries import build as build_index
from domain.vocabulary import Mode, RootCategory
from domain.world.adapter import WorldAdapter
from domain.world.playsets import ModFolder

pytestmark = pytest.mark.anyio
R = RootCategory
BOM = "\ufeff"
MOD_A, MOD_B = "Brave Rework", "Brave Patch"


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def index_world(base: Path) -> Settings:
    """The game and two mods: all three define `brave`; the game's `zz_` file and Mod A's `00_` file
    define `shy` (the game's sorts last and wins); Mod A overrides `trait_brave` through replace/, and Mod B
    defines it in a file sorting after every other."""
    game, steam, data = base / "game", base / "steam", base / "data"
    write(game / "common/traits/00_traits.txt", f"{BOM}brave = {{\n\tindex = 1\n}}\ncraven = {{\n}}\n")
    write(game / "common/traits/zz_late_traits.txt", f"{BOM}shy = {{\n\tindex = 9\n}}\n")
    write(
        game / "events/birth_events.txt",
        "namespace = birth\nbirth.0001 = {\n\ttrigger = { has_trait = brave }\n}\n",
    )
    write(
        game / "localization/english/traits_l_english.yml",
        f'{BOM}l_english:\n trait_brave:0 "Brave"\n trait_shy:0 "Shy"\n trait_craven:0 "Craven"\n',
    )
    write(game / "localization/french/traits_l_french.yml", f'{BOM}l_french:\n trait_brave:0 "Brave"\n')
    write(steam / "1" / "descriptor.mod", f'name="{MOD_A}"\nsupported_version="1.*"\n')
    write(
        steam / "1" / "common/traits/00_rework_traits.txt",
        f"{BOM}shy = {{\n\topposites = {{ brave }}\n}}\nbrave = {{\n\tindex = 2\n}}\n",
    )
    write(
        steam / "1" / "localization/replace/english/rework_l_english.yml",
        f'{BOM}l_english:\n trait_brave:0 "Bold"\n',
    )
    write(steam / "2" / "descriptor.mod", f'name="{MOD_B}"\nsupported_version="1.*"\n')
    write(steam / "2" / "common/traits/50_patch_traits.txt", f"{BOM}brave = {{\n\tindex = 3\n}}\n")
    write(
        steam / "2" / "localization/english/zz_patch_l_english.yml",
        f'{BOM}l_english:\n trait_brave:0 "B"\n trait_craven:0 "C"\n',
    )
    write(steam / "99" / "descriptor.mod", 'name="Not In The Playset"\n')
    write(steam / "99" / "common/traits/zz_elsewhere.txt", f"{BOM}brave = {{\n}}\n")
    entries = [
        {
            "name": name,
            "workshop_id": ident,
            "folder": f"ROOT_STEAM:/{ident}",
            "enabled": True,
            "load_order": i,
        }
        for i, (name, ident) in enumerate([(MOD_A, "1"), (MOD_B, "2")])
    ]
    write(data / "playsets" / "brave.json", json.dumps({"name": "Brave", "mods": entries}))
    roots = {R.ROOT_GAME: game, R.ROOT_STEAM: steam, R.ROOT_CK3RAVEN_DATA: data}
    return Settings("t", roots, R.ROOT_GAME, Mode.CK3LENS, "Brave", state_dir=base / "state")


@pytest.fixture
def world(tmp_path: Path) -> Settings:
    return index_world(tmp_path)


async def call(client: Client, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    return dict((await client.call_tool(tool, args, raise_on_error=False)).structured_content)


def kinds(reply: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {f"{k['kind']}:{k.get('language', '')}": k for k in reply["data"]["kinds"]}


async def test_the_game_uses_the_definition_read_last_by_file_name_across_game_and_mods(world: Settings):
    async with Client(build(world)) as client:
        brave = await call(client, "ck3_playset", {"command": "define", "key": "brave", "kind": "traits"})
        shy = await call(client, "ck3_playset", {"command": "define", "key": "shy"})

    assert brave["code"] == "WA-READ-S-012"
    assert kinds(brave)["traits:"]["winner"] == {
        "source": MOD_B,
        "path": "common/traits/50_patch_traits.txt",
        "line": 1,
    }
    assert [d["source"] for d in kinds(brave)["traits:"]["definitions"]] == [MOD_A, "vanilla", MOD_B]
    assert kinds(shy)["traits:"]["winner"]["source"] == "vanilla"
    assert kinds(shy)["traits:"]["rule"] == "by-key-last-read"
    assert brave["data"]["pending"] == 0


async def test_a_mod_outside_the_playset_counts_for_nothing_though_the_index_holds_it(world: Settings):
    core = build_core(world)
    index = core.services.index
    assert index is not None
    other = [Source("Not In The Playset", "ROOT_STEAM:/99")]
    elsewhere = evolve(
        core.defaults.view, mods=(ModFolder("Not In The Playset", "99", R.ROOT_STEAM, ("99",)),)
    )
    held = content_index.refresh(WorldAdapter(core.services.files, elsewhere), index, other)
    async with Client(build(world, core=core)) as client:
        brave = await call(client, "ck3_playset", {"command": "define", "key": "brave"})
        conflicts = await call(client, "ck3_playset", {"command": "conflicts"})

    assert held.parsed == 1
    assert brave["data"]["count"] == 3
    assert "zz_elsewhere" not in json.dumps(brave) + json.dumps(conflicts)


async def test_a_replace_folder_localisation_key_wins_and_an_unconfirmed_rule_is_said_so(world: Settings):
    async with Client(build(world)) as client:
        loc = await call(
            client, "ck3_playset", {"command": "define", "key": "trait_brave", "kind": "localisation"}
        )
        craven = await call(client, "ck3_playset", {"command": "define", "key": "trait_craven"})

    english = kinds(loc)["localisation:english"]
    assert (english["winner"]["source"], english["rule"]) == (MOD_A, "localisation-replace")
    assert kinds(loc)["localisation:french"]["winner"]["source"] == "vanilla"
    assert "note" not in loc["data"]
    assert kinds(craven)["localisation:english"]["winner"]["source"] == MOD_B
    assert (kinds(craven)["localisation:english"]["confirmed"], craven["data"]["note"][:12]) == (
        False,
        "unconfirmed:",
    )


async def test_an_edit_made_outside_the_server_shows_in_the_next_query(world: Settings, tmp_path: Path):
    async with Client(build(world)) as client:
        before = await call(client, "ck3_playset", {"command": "define", "key": "brave", "kind": "traits"})
        (tmp_path / "steam/2/common/traits/50_patch_traits.txt").write_text(
            "zealous = {\n}\n", encoding="utf-8"
        )
        after = await call(client, "ck3_playset", {"command": "define", "key": "brave", "kind": "traits"})

    assert kinds(before)["traits:"]["winner"]["source"] == MOD_B
    assert kinds(after)["traits:"]["winner"]["source"] == "vanilla"
    assert [d["source"] for d in kinds(after)["traits:"]["definitions"]] == [MOD_A, "vanilla"]


async def test_conflicts_mentions_and_missing_localisation_are_answered_for_the_playset(world: Settings):
    async with Client(build(world)) as client:
        conflicts = await call(client, "ck3_playset", {"command": "conflicts", "kind": "traits"})
        mentions = await call(client, "ck3_playset", {"command": "mentions", "key": "brave"})
        missing = await call(client, "ck3_playset", {"command": "missing", "language": "french"})

    assert [(c["key"], c["winner"]["source"]) for c in conflicts["data"]["conflicts"]] == [
        ("brave", MOD_B),
        ("shy", "vanilla"),
    ]
    assert [(f["source"], f["path"], f["line"]) for f in mentions["data"]["files"]] == [
        ("vanilla", "events/birth_events.txt", 3),
        (MOD_A, "common/traits/00_rework_traits.txt", 2),
    ]
    assert missing["data"]["keys"] == ["trait_craven", "trait_shy"]


async def test_a_finished_build_is_shown_in_the_playset_and_by_status(world: Settings):
    core = build_core(world)
    done = build_index(core.services, WorldAdapter(core.services.files, core.defaults.view), "Brave")
    async with Client(build(world, core=core)) as client:
        status = await call(client, "ck3_playset", {"command": "index"})
        shown = await call(client, "ck3_playset", {"command": "show"})

    assert done is not None
    assert (status["code"], status["data"]["count"]) == ("MCP-DB-S-001", done.files)
    assert shown["data"]["index"]["code"] == "MCP-DB-S-001"
    assert (tmp := world.state_dir) is not None
    assert (tmp / "content-index.db").exists()
    assert not (tmp / "ck3raven.db").read_bytes().count(b"brave")


def local_world(base: Path) -> Settings:
    """The game (brave and craven in 00_traits.txt, zealous in zz_faith_traits.txt, an event mentioning
    brave) and a local mod whose 00_traits.txt replaces the game's at the same path."""
    game, docs, data = base / "game", base / "documents", base / "data"
    write(game / "common/traits/00_traits.txt", f"{BOM}brave = {{\n}}\ncraven = {{\n}}\n")
    write(game / "common/traits/zz_faith_traits.txt", f"{BOM}zealous = {{\n}}\n")
    write(
        game / "events/birth_events.txt",
        f"{BOM}namespace = birth\nbirth.0001 = {{\n\ttrigger = {{ has_trait = brave }}\n}}\n",
    )
    write(docs / "mod/LocalFix/descriptor.mod", 'name="Local Fix"\nsupported_version="1.*"\n')
    write(docs / "mod/LocalFix/common/traits/00_traits.txt", f"{BOM}brave = {{\n}}\ncraven = {{\n}}\n")
    write(docs / "mod/LocalFix/common/traits/zz_local_extra.txt", f"{BOM}local_only = {{\n}}\n")
    write(
        docs / "mod/LocalFix/events/fix_events.txt",
        f"{BOM}namespace = fix\nfix.1 = {{\n\ttrigger = {{ has_trait = local_only }}\n}}\n",
    )
    entry = {"name": "Local Fix", "folder": "ROOT_USER_DOCS:/mod/LocalFix", "enabled": True, "load_order": 1}
    write(data / "playsets" / "local.json", json.dumps({"name": "Local", "mods": [entry]}))
    roots = {R.ROOT_GAME: game, R.ROOT_USER_DOCS: docs, R.ROOT_CK3RAVEN_DATA: data}
    return Settings("t", roots, R.ROOT_GAME, Mode.CK3LENS, "Local", state_dir=base / "state")


TRAITS = "mod:Local Fix:/common/traits/00_traits.txt"
OPEN = {
    "command": "open",
    "root_category": "ROOT_USER_DOCS",
    "intent": "Rename brave",
    "work_declaration": "The local mod's traits",
    "operations": ["WRITE"],
    "targets": [{"path": TRAITS, "edit_kind": "modify"}],
}


async def test_removing_a_mentioned_key_is_refused_naming_the_mentions_and_closes_once_declared(
    tmp_path: Path,
):
    settings = local_world(tmp_path)
    core = build_core(settings)
    # bold names its own text (name, desc): a new trait otherwise needs trait_bold and trait_bold_desc
    renamed = (
        f"{BOM}bold = {{\n\tname = bold_name\n\tdesc = bold_desc\n}}\ncraven = {{\n}}\nzealous = {{\n}}\n"
    )
    async with Client(build(settings, core=core)) as client:
        opened = await call(client, "ck3_contract", OPEN)
        await call(client, "ck3_file", {"command": "write", "path": TRAITS, "content": renamed})
        needs_nst = await call(client, "ck3_contract", {"command": "close"})
        await call(
            client,
            "ck3_token",
            {"command": "nst", "symbols": [{"name": "bold", "path": TRAITS}], "reason": "the new name"},
        )
        refused = await call(client, "ck3_contract", {"command": "close"})
        declared = await call(
            client, "ck3_token", {**refused["data"]["request"]["arguments"], "reason": "renamed to bold"}
        )
        closed = await call(client, "ck3_contract", {"command": "close"})

    assert [s["name"] for s in needs_nst["data"]["uncovered"]] == ["bold"]  # zealous overrides: no NST
    assert refused["code"] == "CT-GATE-I-012"
    assert [(r["key"], r["kind"]) for r in refused["data"]["removed"]] == [("brave", "traits")]
    assert refused["data"]["removed"][0]["mentions"] == [
        {"source": "vanilla", "path": "events/birth_events.txt", "line": 3}
    ]
    assert declared["code"] == "CT-GATE-S-013"
    assert closed["code"] == "CT-GATE-S-002"
    evidence = json.loads(core.services.evidence.document("close", opened["data"]["contract_id"]) or "{}")
    keys = evidence["compliance"]["keys"]
    assert [(r["key"], r["kind"]) for r in keys["overrides"]] == [("zealous", "traits")]
    assert [r["key"] for r in keys["adds"]] == ["bold"]
    assert [r["key"] for r in keys["removes"]] == ["brave"]


async def test_deleting_the_only_file_defining_a_mentioned_key_is_refused_naming_the_mention(tmp_path: Path):
    settings = local_world(tmp_path)
    extra = "mod:Local Fix:/common/traits/zz_local_extra.txt"
    opened = {**OPEN, "operations": ["DELETE"], "targets": [{"path": extra, "edit_kind": "delete"}]}
    async with Client(build(settings)) as client:
        await call(client, "ck3_contract", opened)
        deleted = await call(client, "ck3_file", {"command": "delete", "path": extra})
        refused = await call(client, "ck3_contract", {"command": "close"})

    assert deleted["code"] == "WA-WRITE-S-002"
    assert refused["code"] == "CT-GATE-I-012"
    assert refused["data"]["removed"][0]["mentions"] == [
        {"source": "Local Fix", "path": "events/fix_events.txt", "line": 3}
    ]
