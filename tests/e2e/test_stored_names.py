"""Names the door keeps are names every later reply can show: a symbol's name or kind, a key, a kind, a
language or a cursor not of its form, or naming a host path, is Invalid before anything is stored, naming
the argument and never the value; a stored token record that no longer passes is skipped by every reply,
counted, and named by `doctor`."""

import json
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from attrs import evolve
from fastmcp import Client

from app import doctor_checks
from app.bootstrap import build, build_core, leak_gate
from app.config import Settings
from domain.compliance import tokens
from tests.worlds import sample_world_on_disk

pytestmark = pytest.mark.anyio
EFFECTS = "mod:Local Fix:/common/scripted_effects/zz_new.txt"  # a kind that needs no localisation
OPEN = {
    "command": "open",
    "root_category": "ROOT_USER_DOCS",
    "intent": "A new trait",
    "work_declaration": "The local mod's new trait",
    "operations": ["WRITE"],
    "targets": [{"path": EFFECTS, "edit_kind": "add"}],
}
HOST = "/etc/passwd"


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return evolve(sample_world_on_disk(tmp_path), state_dir=tmp_path / "state")


async def call(client: Client, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    return dict((await client.call_tool(tool, args, raise_on_error=False)).structured_content)


@pytest.mark.parametrize(
    "symbol",
    [{"name": HOST}, {"name": "ok", "kind": HOST, "path": EFFECTS}, {"name": "two words"}],
    ids=["nst-name", "removal-kind", "name-with-a-space"],
)
async def test_a_token_whose_symbol_is_not_a_name_is_invalid_stores_nothing_and_later_replies_stay_s(
    settings: Settings, symbol: dict[str, str]
):
    core = build_core(settings)
    command = "removal" if "kind" in symbol else "nst"
    async with Client(build(settings, core=core)) as client:
        opened = await call(client, "ck3_contract", OPEN)
        refused = await call(client, "ck3_token", {"command": command, "symbols": [symbol], "reason": "r"})
        stored = core.services.evidence.document(command, opened["data"]["contract_id"])
        later = [
            await call(client, "ck3_token", {"command": "list"}),
            await call(client, "ck3_contract", {"command": "status"}),
            await call(client, "ck3_token", {"command": "nst", "symbols": [{"name": "ok"}], "reason": "r"}),
        ]

    assert refused["code"] == "MCP-VAL-I-001", refused
    assert [error["field"] for error in refused["data"]["errors"]] == ["symbols"]
    assert all(
        value not in json.dumps(refused) for name, value in symbol.items() if name != "path" and value != "ok"
    )
    assert stored is None
    assert [reply["reply_type"] for reply in later] == ["S", "S", "S"], later


@pytest.mark.parametrize(
    ("args", "field"),
    [
        ({"command": "define", "key": "a\x01b"}, "key"),
        ({"command": "define", "key": "x" * 201}, "key"),
        ({"command": "define", "key": "brave", "kind": "tr\x00aits"}, "kind"),
        ({"command": "define", "key": "brave", "kind": "../traits"}, "kind"),
        ({"command": "missing", "language": "fr\nench"}, "language"),
        ({"command": "conflicts", "cursor": "9" * 5000}, "cursor"),
        ({"command": "mentions", "key": "brave\u200b"}, "key"),
    ],
)
async def test_a_name_not_of_its_form_is_invalid_naming_the_argument_never_its_value(
    settings: Settings, args: dict[str, str], field: str
):
    async with Client(build(settings)) as client:
        refused = await call(client, "ck3_playset", args)

    assert refused["code"] == "MCP-VAL-I-001", refused
    assert [error["field"] for error in refused["data"]["errors"]] == [field]
    assert args[field] not in json.dumps(refused, ensure_ascii=False)


def _store_nsts(settings: Settings, core: Any, contract_id: str, nsts: list[tokens.Nst]) -> None:
    """An NST record the server signed, written into the state database by hand (as one stored before the
    door screened names would be)."""
    signature = core.services.authority.signer.sign(tokens.nst_payload(contract_id, nsts))
    rows = [{"name": n.name, "address": n.address, "reason": n.reason} for n in nsts]
    document = json.dumps({"nsts": rows, "signature": signature})
    with closing(sqlite3.connect(settings.state_dir / "ck3raven.db")) as db, db:
        db.execute(
            "INSERT OR REPLACE INTO evidence (kind, name, document, at) VALUES ('nst', ?, ?, '2030-01-01')",
            (contract_id, document),
        )


async def test_a_stored_nst_that_no_longer_passes_is_skipped_counted_and_named_by_doctor(settings: Settings):
    core = build_core(settings)
    async with Client(build(settings, core=core)) as client:
        opened = await call(client, "ck3_contract", OPEN)
        contract_id = opened["data"]["contract_id"]
        _store_nsts(
            settings, core, contract_id, [tokens.Nst(HOST, None, "r"), tokens.Nst("bold", EFFECTS, "r")]
        )
        listed = await call(client, "ck3_token", {"command": "list"})
        await call(client, "ck3_file", {"command": "write", "path": EFFECTS, "content": "bold = {\n}\n"})
        closed = await call(client, "ck3_contract", {"command": "close"})
        status = await call(client, "ck3_contract", {"command": "status"})

    ok, line = doctor_checks.token_records(settings.state_dir, leak_gate(settings))
    assert listed["code"] == "CT-GATE-S-012", listed
    assert (listed["data"]["nsts"], listed["data"]["unshown"]) == (
        [{"name": "bold", "address": EFFECTS, "reason": "r"}],
        1,
    )
    assert closed["code"] == "CT-GATE-S-002", closed
    assert status["code"] == "CT-GATE-S-004", status
    assert not ok
    assert f"nst of {contract_id} row 0" in line
    assert HOST not in line


async def test_the_last_close_whose_kept_evidence_names_a_host_path_is_shown_without_its_compliance(
    settings: Settings,
):
    core = build_core(settings)
    async with Client(build(settings, core=core)) as client:
        opened = await call(client, "ck3_contract", OPEN)
        await call(client, "ck3_file", {"command": "write", "path": EFFECTS, "content": "bold = {\n}\n"})
        await call(client, "ck3_token", {"command": "nst", "symbols": [{"name": "bold"}], "reason": "r"})
        closed = await call(client, "ck3_contract", {"command": "close"})
        shown = await call(client, "ck3_contract", {"command": "status"})
        contract_id = opened["data"]["contract_id"]
        evidence = json.loads(core.services.evidence.document("close", contract_id) or "{}")
        evidence["compliance"]["nsts"][0]["reason"] = f"see {HOST}"
        with closing(sqlite3.connect(settings.state_dir / "ck3raven.db")) as db, db:
            db.execute(
                "UPDATE evidence SET document = ? WHERE kind = 'close' AND name = ?",
                (json.dumps(evidence), contract_id),
            )
        status = await call(client, "ck3_contract", {"command": "status"})

    assert closed["code"] == "CT-GATE-S-002", closed
    assert shown["data"]["last_closed"]["compliance"]["nsts"][0]["name"] == "bold"
    assert status["code"] == "CT-GATE-S-004", status
    assert status["data"]["last_closed"]["contract_id"] == contract_id
    assert status["data"]["last_closed"]["compliance"] is None
