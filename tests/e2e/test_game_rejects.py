"""Close knows what the game would reject (SPEC §14): a reference to a key the playset does not define is
CK3-REF, a new key without the localisation its kind needs is CK3-LOCMISS, both waivable by an LXE; and
ck3-tiger, where installed, adds its reports about the changed files."""

import json
import stat
from pathlib import Path
from typing import Any

import pytest
from attrs import evolve
from fastmcp import Client

from app.bootstrap import build, build_core
from app.config import ValidatorSettings
from domain.vocabulary import Mode
from tests.worlds import sample_world_on_disk

pytestmark = pytest.mark.anyio
PROBE = "mod:Local Fix:/events/zz_probe_events.txt"
PROBE_TEXT = """namespace = zzprobe

zzprobe.1 = {
\ttype = character_event
\ttitle = zzprobe.1.t
\tdesc = zzprobe.1.desc
\timmediate = {
\t\tadd_trait = brave_typo
\t\ttrigger_event = zzprobe.99
\t\tzz_undefined_scripted_effect = yes
\t}
\toption = { name = zzprobe.1.a }
}
"""
FIXED_TEXT = (
    PROBE_TEXT.replace("brave_typo", "brave")
    .replace("zzprobe.99", "birth.0001")
    .replace("zz_undefined_scripted_effect", "add_brave_effect")
)
LOCALISATION = "mod:Local Fix:/localization/english/zz_probe_l_english.yml"
LOCALISATION_TEXT = 'l_english:\n zzprobe.1.t:0 "T"\n zzprobe.1.desc:0 "D"\n zzprobe.1.a:0 "A"\n'


async def call(client: Client, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    return dict((await client.call_tool(tool, args, raise_on_error=False)).structured_content)


def contract(*targets: str) -> dict[str, Any]:
    return {
        "command": "open",
        "root_category": "ROOT_USER_DOCS",
        "intent": "A probe event",
        "work_declaration": "Add an event to the local fix",
        "operations": ["WRITE"],
        "targets": [{"path": target, "edit_kind": "add"} for target in targets],
    }


async def written(client: Client, files: dict[str, str]) -> dict[str, Any]:
    """Open a contract adding `files`, write them, declare the probe's symbols, and close."""
    await call(client, "ck3_contract", contract(*files))
    for path, content in files.items():
        await call(client, "ck3_file", {"command": "write", "path": path, "content": "\ufeff" + content})
    refused = await call(client, "ck3_contract", {"command": "close"})
    if refused["code"] == "CT-GATE-I-009":  # new symbols: declare them as the refusal says
        request = refused["data"]["request"]
        await call(client, request["tool"], request["arguments"] | {"reason": "asked"})
    return await call(client, "ck3_contract", {"command": "close"})


def by_rule(refused: dict[str, Any]) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for finding in refused["data"]["findings"]:
        found.setdefault(finding["rule"], []).append(finding["message"])
    return found


async def test_the_probe_event_is_refused_naming_each_undefined_reference_and_missing_localisation(
    tmp_path: Path,
):
    async with Client(build(sample_world_on_disk(tmp_path, Mode.CK3LENS))) as client:
        refused = await written(client, {PROBE: PROBE_TEXT})

    found = by_rule(refused)
    assert refused["code"] == "CT-GATE-I-010"
    assert len(found["CK3-REF"]) == 3
    assert any("brave_typo" in m and "did you mean brave" in m for m in found["CK3-REF"])
    assert any("zzprobe.99" in m for m in found["CK3-REF"])
    assert any("zz_undefined_scripted_effect" in m for m in found["CK3-REF"])
    assert sorted(m.split()[-3] for m in found["CK3-LOCMISS"]) == [
        "zzprobe.1.a",
        "zzprobe.1.desc",
        "zzprobe.1.t",
    ]
    assert {f["path"] for f in refused["data"]["findings"]} == {PROBE}
    assert refused["data"]["request"]["arguments"]["rules"] == ["CK3-LOCMISS", "CK3-REF"]


async def test_the_probe_fixed_with_its_localisation_closes(tmp_path: Path):
    async with Client(build(sample_world_on_disk(tmp_path, Mode.CK3LENS))) as client:
        closed = await written(client, {PROBE: FIXED_TEXT, LOCALISATION: LOCALISATION_TEXT})

    assert closed["code"] == "CT-GATE-S-002", closed["data"]


async def test_the_probe_waived_by_the_lxe_its_refusal_offers_closes(tmp_path: Path):
    settings = sample_world_on_disk(tmp_path, Mode.CK3LENS)
    core = build_core(settings)
    async with Client(build(settings, core=core)) as client:
        refused = await written(client, {PROBE: PROBE_TEXT})
        request = refused["data"]["request"]["arguments"] | {"reason": "the probe is meant to fail"}
        asked = await call(client, "ck3_token", request)
        core.decide_approval(asked["data"]["approval_id"], approve=True)
        await call(client, "ck3_token", request)
        closed = await call(client, "ck3_contract", {"command": "close"})

    assert closed["code"] == "CT-GATE-S-002", closed["data"]


async def test_a_reference_on_a_line_the_change_left_alone_is_not_the_changes_finding(tmp_path: Path):
    settings = sample_world_on_disk(tmp_path, Mode.CK3LENS)
    traits = "mod:Local Fix:/common/traits/zzz_local_fix.txt"
    host = settings.roots[next(r for r in settings.roots if r.value == "ROOT_USER_DOCS")]
    old = host / "mod" / "LocalFix" / "common" / "traits" / "zzz_local_fix.txt"
    old.write_text(
        old.read_text(encoding="utf-8-sig")
        + "\nold_trait_user = {\n\tpotential = { has_trait = nowhere_trait }\n}\n",
        encoding="utf-8-sig",
    )
    edited = old.read_text(encoding="utf-8-sig").replace("intrigue = 3", "intrigue = 4")
    opened = contract() | {"targets": [{"path": traits, "edit_kind": "modify"}]}
    async with Client(build(settings)) as client:
        await call(client, "ck3_contract", opened)
        await call(client, "ck3_file", {"command": "write", "path": traits, "content": "\ufeff" + edited})
        closed = await call(client, "ck3_contract", {"command": "close"})

    assert closed["code"] == "CT-GATE-S-002", closed["data"]


async def test_a_new_trait_needs_its_name_and_description_but_an_override_of_brave_needs_none(tmp_path: Path):
    traits = "mod:Local Fix:/common/traits/zz_new_traits.txt"
    opened = contract(traits)
    content = "\ufeffbrave = {\n\tprowess = 3\n}\nzealous = {\n\tcategory = personality\n}\n"
    async with Client(build(sample_world_on_disk(tmp_path, Mode.CK3LENS))) as client:
        await call(client, "ck3_contract", opened)
        await call(client, "ck3_file", {"command": "write", "path": traits, "content": content})
        await call(
            client, "ck3_token", {"command": "nst", "symbols": [{"name": "zealous"}], "reason": "asked"}
        )
        refused = await call(client, "ck3_contract", {"command": "close"})

    assert by_rule(refused) == {
        "CK3-LOCMISS": [
            "traits zealous needs the localisation key trait_zealous in english",
            "traits zealous needs the localisation key trait_zealous_desc in english",
        ]
    }


async def test_an_unknown_key_in_a_scripted_trigger_taking_parameters_closes_and_is_an_advisory(
    tmp_path: Path,
):
    triggers = "mod:Local Fix:/common/scripted_triggers/zz_triggers.txt"
    content = "zz_poet_trigger = {\n\tis_spouse_of = $EMPLOYER$\n\thas_trait = poet_typo\n}\n"
    settings = sample_world_on_disk(tmp_path, Mode.CK3LENS)
    core = build_core(settings)
    async with Client(build(settings, core=core)) as client:
        closed = await written(client, {triggers: content})

    assert closed["code"] == "CT-GATE-S-002", closed["data"]
    evidence = json.loads(core.services.evidence.document("close", closed["data"]["contract_id"]) or "{}")
    advisories = evidence["compliance"]["game_rejects"]["advisories"]
    assert [(a["rule"], a["address"], a["line"]) for a in advisories] == [("CK3-REF", triggers, 3)]
    assert "poet_typo" in advisories[0]["message"]


def stand_in(tmp_path: Path, body: str) -> Path:
    """An executable that answers as ck3-tiger does, in its JSON format."""
    script = tmp_path / "ck3-tiger"
    script.write_text(f"#!/bin/sh\n{body}\n", encoding="utf-8")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return script


def tiger_reports(mod: Path) -> str:
    def report(key: str, path: Path, line: int) -> dict[str, Any]:
        location = {
            "path": "x",
            "fullpath": str(path),
            "linenr": line,
            "column": 1,
            "from": "MOD",
            "line": "",
            "tag": None,
        }
        return {
            "severity": "error",
            "confidence": "strong",
            "key": key,
            "message": f"bad in {path}",
            "info": None,
            "locations": [location],
        }

    reports = [
        report("missing-item", mod / "events" / "zz_probe_events.txt", 8),
        report("missing-localization", mod / "common" / "traits" / "00_traits.txt", 1),
    ]
    return json.dumps(reports)


async def test_the_tiger_stand_ins_reports_count_for_changed_files_only_named_by_address(tmp_path: Path):
    settings = sample_world_on_disk(tmp_path, Mode.CK3LENS)
    mod = tmp_path / "world" / "documents" / "mod" / "LocalFix"
    (tmp_path / "reports.json").write_text(tiger_reports(mod), encoding="utf-8")
    tiger = stand_in(tmp_path, f"cat '{tmp_path / 'reports.json'}'")
    settings = evolve(settings, validators=ValidatorSettings(str(tiger)))
    async with Client(build(settings)) as client:
        refused = await written(client, {PROBE: FIXED_TEXT, LOCALISATION: LOCALISATION_TEXT})

    assert [(f["rule"], f["path"], f["line"]) for f in refused["data"]["findings"]] == [
        ("TIGER-missing-item", PROBE, 8)
    ]
    assert str(tmp_path) not in json.dumps(refused)


async def test_a_tiger_that_hangs_is_cut_at_its_bound_and_close_still_decides(tmp_path: Path):
    settings = sample_world_on_disk(tmp_path, Mode.CK3LENS)
    tiger = stand_in(tmp_path, "exec sleep 60")
    settings = evolve(settings, validators=ValidatorSettings(str(tiger), ck3_tiger_seconds=0.5))
    core = build_core(settings)
    async with Client(build(settings, core=core)) as client:
        closed = await written(client, {PROBE: FIXED_TEXT, LOCALISATION: LOCALISATION_TEXT})

    assert closed["code"] == "CT-GATE-S-002", closed["data"]
    evidence = json.loads(core.services.evidence.document("close", closed["data"]["contract_id"]) or "{}")
    runs = evidence["compliance"]["game_rejects"]["ck3_tiger"]["runs"]
    assert [(run["mod"], run["status"]) for run in runs] == [("ROOT_USER_DOCS:/mod/LocalFix", "timeout")]
    assert evidence["compliance"]["game_rejects"]["ck3_tiger"]["status"].startswith("incomplete: timeout")


async def test_without_ck3_tiger_the_evidence_says_it_was_not_run(tmp_path: Path):
    settings = sample_world_on_disk(tmp_path, Mode.CK3LENS)
    settings = evolve(settings, validators=ValidatorSettings(str(tmp_path / "no-such-tiger")))
    core = build_core(settings)
    async with Client(build(settings, core=core)) as client:
        closed = await written(client, {PROBE: FIXED_TEXT, LOCALISATION: LOCALISATION_TEXT})

    evidence = json.loads(core.services.evidence.document("close", closed["data"]["contract_id"]) or "{}")
    assert evidence["compliance"]["game_rejects"]["ck3_tiger"]["status"] == "absent"
