"""The law over the state store, through the real server in memory: escalation per (root, file), signed
baselines, renewal of expired contracts only, a close that stands on its evidence, an audit row per call."""

from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client

from adapters.memory_state import MemoryEvidence, MemoryState
from app.bootstrap import build, build_core
from app.config import Settings
from domain.vocabulary import Mode, RootCategory
from ports.errors import Unavailable
from tests.state_db import record, write_record

pytestmark = pytest.mark.anyio
R = RootCategory


def contract(root: str, address: str) -> dict[str, Any]:
    return {
        "command": "open",
        "root_category": root,
        "intent": "Work",
        "work_declaration": "Edit the named file",
        "operations": ["WRITE"],
        "targets": [{"path": address, "edit_kind": "add"}],
    }


@pytest.fixture
def settings(git_settings: Settings) -> Settings:
    return git_settings


async def call(client: Client, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    result = await client.call_tool(tool, args, raise_on_error=False)
    return dict(result.structured_content)


async def test_escalation_counts_per_root_and_file_when_opens_alternate_between_roots(settings: Settings):
    async with Client(build(settings)) as client:
        await call(client, "ck3_contract", contract("ROOT_REPO", "ROOT_REPO:/src/b.py"))
        await call(client, "ck3_file", {"command": "write", "path": "ROOT_REPO:/src/b.py", "content": "b\n"})
        await call(client, "ck3_contract", {"command": "cancel"})
        seen = []
        for _ in range(3):
            repo_open = await call(client, "ck3_contract", contract("ROOT_REPO", "ROOT_REPO:/src/a.py"))
            seen.append((repo_open["code"], repo_open["data"]["carry_over"]["severity"]))
            await call(client, "ck3_contract", {"command": "cancel"})
            await call(
                client, "ck3_contract", contract("ROOT_CK3RAVEN_DATA", "ROOT_CK3RAVEN_DATA:/wip/x.txt")
            )
            await call(client, "ck3_contract", {"command": "cancel"})

    assert seen == [
        ("CT-GATE-S-001", "informational"),
        ("CT-GATE-S-001", "warning"),
        ("CT-GATE-I-008", "required"),
    ]


async def test_persistent_carry_over_is_recorded_in_the_audit_log(settings: Settings):
    stored = MemoryState()
    core = build_core(settings, stored=stored)
    async with Client(build(settings, core=core)) as client:
        await call(client, "ck3_contract", contract("ROOT_REPO", "ROOT_REPO:/src/b.py"))
        await call(client, "ck3_file", {"command": "write", "path": "ROOT_REPO:/src/b.py", "content": "b\n"})
        await call(client, "ck3_contract", {"command": "cancel"})
        for _ in range(2):
            await call(client, "ck3_contract", contract("ROOT_REPO", "ROOT_REPO:/src/a.py"))
            await call(client, "ck3_contract", {"command": "cancel"})

    notes = [note for row in stored.audit.rows() if row.entry.stage == "reply" for note in row.entry.notes]
    assert notes == ["persistent carry-over: ROOT_REPO:/src/b.py (left out of 2 opens)"]


async def test_every_call_leaves_one_audit_row_with_its_outcome_and_targets(settings: Settings):
    stored = MemoryState()
    core = build_core(settings, stored=stored)
    async with Client(build(settings, core=core)) as client:
        opened = await call(client, "ck3_contract", contract("ROOT_REPO", "ROOT_REPO:/src/new.py"))
        await call(
            client, "ck3_file", {"command": "write", "path": "ROOT_REPO:/src/new.py", "content": "x\n"}
        )
        await call(
            client, "ck3_file", {"command": "write", "path": "ROOT_REPO:/.github/ci.yml", "content": "x\n"}
        )
        await call(client, "nope", {})

    every = stored.audit.rows()
    replies = [r.entry for r in every if r.entry.stage == "reply"]
    rows = [(e.tool, e.command, e.code, e.targets) for e in replies]
    assert rows == [
        ("ck3_contract", "open", "CT-GATE-S-001", ("ROOT_REPO:/src/new.py",)),
        ("ck3_file", "write", "WA-WRITE-S-001", ("ROOT_REPO:/src/new.py",)),
        ("ck3_file", "write", "EN-WRITE-D-005", ("ROOT_REPO:/.github/ci.yml",)),
        ("<unknown>", None, "MCP-VAL-I-002", ()),
    ]
    assert {e.contract_id for e in replies[:3]} == {opened["data"]["contract_id"]}
    # the open and the write wrote a row of their own in their decision's transaction, before the reply's
    # (another call's reply row may come between: replies' rows are written after them)
    seq = {(r.entry.stage, r.entry.tool, r.entry.command, r.entry.call): r.seq for r in every}
    opening, writing = ("ck3_contract", "open", replies[0].call), ("ck3_file", "write", replies[1].call)
    assert seq[("decision", *opening)] < seq[("reply", *opening)]
    assert seq[("change", *writing)] < seq[("reply", *writing)]
    assert stored.audit.verify() == []


async def test_an_edited_repository_baseline_makes_the_contract_inert(tmp_path: Path, state_home: Path):
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "a.txt").write_text("a\n", encoding="utf-8")
    settings = Settings("test", {R.ROOT_REPO: plain}, R.ROOT_REPO, Mode.CK3RAVEN_DEV)
    async with Client(build(settings)) as client:
        opened = await call(client, "ck3_contract", contract("ROOT_REPO", "ROOT_REPO:/a.txt"))
        contract_id = opened["data"]["contract_id"]
        stored = record(state_home, "contracts", contract_id)
        stored["repositories"] = [["ROOT_REPO:/a.txt", "0" * 64]]
        write_record(state_home, "contracts", contract_id, stored)
        status = await call(client, "ck3_contract", {"command": "status"})

    assert opened["code"] == "CT-GATE-S-001"
    assert status["data"]["active"] is None


@pytest.mark.parametrize("ending", ["cancel", "close"])
async def test_a_cancelled_or_closed_contract_cannot_be_renewed(settings: Settings, ending: str):
    async with Client(build(settings)) as client:
        opened = await call(client, "ck3_contract", contract("ROOT_REPO", "ROOT_REPO:/src/new.py"))
        await call(client, "ck3_contract", {"command": ending})
        renewed = await call(
            client, "ck3_contract", {"command": "renew", "contract_id": opened["data"]["contract_id"]}
        )

    assert renewed["code"] == "CT-GATE-I-006"
    assert "only an expired contract is renewed" in renewed["data"]["problem"]


class _NoCloseEvidence(MemoryEvidence):
    """Evidence that keeps everything but the record of a close."""

    def put(self, kind: str, name: str, document: str) -> str:
        if kind == "close":
            raise Unavailable("the evidence store is full")
        return super().put(kind, name, document)


async def test_a_close_whose_evidence_cannot_be_stored_is_an_error_and_the_contract_stays_open(
    settings: Settings,
):
    stored = MemoryState()
    stored.evidence = _NoCloseEvidence(stored)
    core = build_core(settings, stored=stored)
    async with Client(build(settings, core=core)) as client:
        opened = await call(client, "ck3_contract", contract("ROOT_REPO", "ROOT_REPO:/src/new.py"))
        closed = await call(client, "ck3_contract", {"command": "close"})
        status = await call(client, "ck3_contract", {"command": "status"})

    assert closed["code"] == "CT-GATE-E-002"
    assert status["data"]["active"]["contract_id"] == opened["data"]["contract_id"]


async def test_status_after_a_close_names_its_evidence(settings: Settings):
    async with Client(build(settings)) as client:
        opened = await call(client, "ck3_contract", contract("ROOT_REPO", "ROOT_REPO:/src/new.py"))
        await call(client, "ck3_contract", {"command": "close"})
        status = await call(client, "ck3_contract", {"command": "status"})

    contract_id = opened["data"]["contract_id"]
    assert status["data"]["active"] is None
    assert status["data"]["last_closed"]["contract_id"] == contract_id
    assert status["data"]["last_closed"]["evidence"] == f"evidence:close/{contract_id}"


async def test_a_temporary_file_left_in_the_root_is_not_undeclared_work(settings: Settings):
    async with Client(build(settings)) as client:
        await call(client, "ck3_contract", contract("ROOT_REPO", "ROOT_REPO:/src/new.py"))
        (settings.roots[R.ROOT_REPO] / "src" / ".0123456789abcdef.ck3raven-tmp").write_text(
            "half", encoding="utf-8"
        )
        closed = await call(client, "ck3_contract", {"command": "close"})

    assert closed["code"] == "CT-GATE-S-002"


async def test_an_id_the_agent_made_up_never_reaches_the_audit(settings: Settings):
    stored = MemoryState()
    core = build_core(settings, stored=stored)
    forged = "\x1b[2J ct-FORGED"
    async with Client(build(settings, core=core)) as client:
        renewed = await call(client, "ck3_contract", {"command": "renew", "contract_id": forged})

    assert renewed["code"] == "CT-GATE-I-006"
    assert stored.audit.rows()[-1].entry.contract_id is None


async def test_an_expired_contract_is_renewed_once_only(settings: Settings):
    async with Client(build(settings)) as client:
        opened = await call(client, "ck3_contract", contract("ROOT_REPO", "ROOT_REPO:/src/new.py"))
        contract_id = opened["data"]["contract_id"]
    # a new server (a new key, new sessions): the old contract can no longer govern, so it may be renewed
    async with Client(build(settings)) as client:
        first = await call(client, "ck3_contract", {"command": "renew", "contract_id": contract_id})
        await call(client, "ck3_contract", {"command": "cancel"})
        second = await call(client, "ck3_contract", {"command": "renew", "contract_id": contract_id})

    assert first["code"] == "CT-GATE-S-006"
    assert (second["code"], second["data"]["problem"]) == (
        "CT-GATE-I-006",
        f"already renewed as {first['data']['contract_id']}",
    )


async def test_a_hidden_file_the_user_changed_is_never_carry_over(settings: Settings):
    (settings.roots[R.ROOT_REPO] / ".env").write_text("TOKEN=secret\n", encoding="utf-8")
    async with Client(build(settings)) as client:
        opens = []
        for _ in range(3):
            opens.append(await call(client, "ck3_contract", contract("ROOT_REPO", "ROOT_REPO:/src/new.py")))
            await call(client, "ck3_contract", {"command": "cancel"})

    assert [opened["code"] for opened in opens] == ["CT-GATE-S-001"] * 3
    assert all(opened["data"]["carry_over"] is None for opened in opens)


async def test_calls_after_a_close_are_not_filed_under_the_closed_contract(settings: Settings):
    stored = MemoryState()
    core = build_core(settings, stored=stored)
    async with Client(build(settings, core=core)) as client:
        await call(client, "ck3_contract", contract("ROOT_REPO", "ROOT_REPO:/src/new.py"))
        await call(client, "ck3_contract", {"command": "close"})
        await call(client, "ck3_dir", {"command": "pwd"})

    assert stored.audit.rows()[-1].entry.contract_id is None
