"""The contract law over stdio, against a real git repository, across a server restart."""

from pathlib import Path

import pytest

from tests.e2e.stdio import envelope, stdio_client, write_config
from tests.state_db import record, write_record
from tests.worlds import small_git_repo

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

OPEN = {
    "command": "open",
    "root_category": "ROOT_REPO",
    "intent": "Fix a",
    "work_declaration": "Edit a",
    "operations": ["WRITE", "DELETE"],
    "targets": [{"path": "ROOT_REPO:/src/a.py", "edit_kind": "modify"}],
}


@pytest.fixture
def config(tmp_path: Path) -> Path:
    repo, data = small_git_repo(tmp_path)
    return write_config(tmp_path, roots={"ROOT_REPO": repo, "ROOT_CK3RAVEN_DATA": data})


async def tool(client, name: str, args: dict[str, object]) -> dict[str, object]:
    return envelope(await client.call_tool(name, args))


def write(path: str, content: str = "x\n") -> dict[str, object]:
    return {"command": "write", "path": path, "content": content}


async def test_open_write_undeclared_reconcile_fix_close(config: Path, era: str):
    async with stdio_client(config, era) as client:
        opened = await tool(client, "ck3_contract", OPEN)
        declared = await tool(client, "ck3_file", write("ROOT_REPO:/src/a.py", "a = 2\n"))
        undeclared = await tool(client, "ck3_file", write("ROOT_REPO:/src/extra.py"))
        refused = await tool(client, "ck3_contract", {"command": "close"})
        await tool(client, "ck3_file", {"command": "delete", "path": "ROOT_REPO:/src/extra.py"})
        closed = await tool(client, "ck3_contract", {"command": "close"})

    assert opened["code"] == "CT-GATE-S-001"
    assert declared["code"] == undeclared["code"] == "WA-WRITE-S-001"
    assert refused["code"] == "CT-GATE-I-007"
    assert closed["code"] == "CT-GATE-S-002"


async def test_a_tampered_contract_is_inert_and_a_restart_makes_the_old_one_inert_but_renewable(
    config: Path, era: str
):
    async with stdio_client(config, era) as client:
        opened = await tool(client, "ck3_contract", OPEN)
        contract_id = opened["data"]["contract_id"]
        state = config.parent / "state"
        stored = record(state, "contracts", contract_id)
        write_record(state, "contracts", contract_id, {**stored, "intent": "Something wider"})
        tampered = await tool(client, "ck3_contract", {"command": "status"})
        write_record(state, "contracts", contract_id, stored)
        restored = await tool(client, "ck3_contract", {"command": "status"})
    async with stdio_client(config, era) as client:
        listed = await tool(client, "ck3_contract", {"command": "list"})
        before = await tool(client, "ck3_file", write("ROOT_REPO:/src/a.py", "a = 3\n"))
        renewed = await tool(client, "ck3_contract", {"command": "renew", "contract_id": contract_id})
        after = await tool(client, "ck3_file", write("ROOT_REPO:/src/a.py", "a = 3\n"))

    assert tampered["data"]["active"] is None
    assert restored["data"]["active"]["contract_id"] == contract_id
    assert listed["data"]["contracts"][0]["inert"] is True
    assert before["data"]["required"] == "contract"
    assert renewed["data"]["renewed_from"] == contract_id
    assert renewed["data"]["baseline_sha"] == opened["data"]["baseline_sha"]
    assert after["code"] == "WA-WRITE-S-001"


async def test_carry_over_escalation_reaches_required_on_the_third_open(config: Path, era: str):
    async with stdio_client(config, era) as client:
        await tool(
            client,
            "ck3_contract",
            {**OPEN, "targets": [{"path": "ROOT_REPO:/src/b.py", "edit_kind": "add"}]},
        )
        await tool(client, "ck3_file", write("ROOT_REPO:/src/b.py"))
        await tool(client, "ck3_contract", {"command": "cancel"})
        severities = []
        for _ in range(3):
            opened = await tool(client, "ck3_contract", OPEN)
            severities.append((opened["code"], opened["data"]["carry_over"]["severity"]))
            await tool(client, "ck3_contract", {"command": "cancel"})

    assert severities == [
        ("CT-GATE-S-001", "informational"),
        ("CT-GATE-S-001", "warning"),
        ("CT-GATE-I-008", "required"),
    ]


async def test_a_contract_another_running_server_holds_is_neither_renewed_nor_written_under(
    config: Path, era: str
):
    async with stdio_client(config, era) as first, stdio_client(config, era) as second:
        opened = await tool(first, "ck3_contract", OPEN)
        contract_id = opened["data"]["contract_id"]
        await tool(first, "ck3_file", write("ROOT_REPO:/src/a.py", "a = 2\n"))
        listed = await tool(second, "ck3_contract", {"command": "list"})
        taken = await tool(second, "ck3_contract", {"command": "renew", "contract_id": contract_id})
        written = await tool(second, "ck3_file", write("ROOT_REPO:/src/a.py", "a = 3\n"))
        closed = await tool(second, "ck3_contract", {"command": "close", "contract_id": contract_id})
        own = await tool(first, "ck3_contract", {"command": "close"})

    assert listed["data"]["contracts"][0]["inert"] is False
    assert (taken["code"], taken["data"]["problem"]) == (
        "CT-GATE-I-006",
        "still open: a session of another running server holds it",
    )
    assert (written["code"], written["data"]["required"]) == ("EN-WRITE-D-002", "contract")
    assert closed["code"] == "CT-GATE-I-006"
    assert own["code"] == "CT-GATE-S-002"


async def test_a_contract_whose_server_ended_is_renewed_by_another_running_server(config: Path, era: str):
    async with stdio_client(config, era) as second:
        async with stdio_client(config, era) as first:
            opened = await tool(first, "ck3_contract", OPEN)
        renewed = await tool(
            second, "ck3_contract", {"command": "renew", "contract_id": opened["data"]["contract_id"]}
        )

    assert renewed["code"] == "CT-GATE-S-006"
