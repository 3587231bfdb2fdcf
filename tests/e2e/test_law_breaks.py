"""Rules that a broad suite once let break unseen, each pinned here by a test that fails when the rule is
broken: isError on every refusal, the session in a contract's signed fields, no unknown field in a stored
record, a contract that governs only its own session, and an approval that only its own session spends."""

from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client

from app.bootstrap import build, build_core
from app.config import Settings
from domain.contracts.lifecycle import OpenRequest, governing
from domain.replies.builder import Reply
from domain.session import Session
from domain.use_cases.contract_work import Open
from domain.use_cases.core import Core
from ports.contracts import TargetRecord
from tests.state_db import record, write_record

pytestmark = pytest.mark.anyio
OPEN = {
    "command": "open",
    "root_category": "ROOT_REPO",
    "intent": "Edit a",
    "work_declaration": "Edit a",
    "operations": ["WRITE"],
    "targets": [{"path": "ROOT_REPO:/src/a.py", "edit_kind": "modify"}],
}


async def call(client: Client, tool: str, args: dict[str, Any]) -> Any:
    return await client.call_tool(tool, args, raise_on_error=False)


async def test_every_invalid_and_denied_reply_is_an_error_to_the_client(git_settings: Settings):
    async with Client(build(git_settings)) as client:
        invalid = await call(client, "ck3_file", {"command": "read", "path": "ROOT_REPO:/missing.txt"})
        denied = await call(client, "ck3_file", {"command": "write", "path": "src/a.py", "content": "x\n"})

    assert (invalid.structured_content["reply_type"], invalid.is_error) == ("I", True)
    assert (denied.structured_content["reply_type"], denied.is_error) == ("D", True)


def test_a_contract_moved_to_another_session_in_the_store_governs_neither(git_settings: Settings):
    from attrs import evolve

    core = build_core(git_settings)
    one, two = core.start_session("one"), core.start_session("two")
    _open(core, one, "ROOT_REPO:/src/a.py")
    stored = core.services.contracts.get(str(one.contract_id))
    assert stored is not None
    core.services.contracts.put(evolve(stored, session_id="two"))  # the session is a signed field
    two.contract_id = one.contract_id

    assert governing(one, core.services) is None
    assert governing(two, core.services) is None


async def test_a_stored_contract_with_a_field_no_record_has_is_never_served(
    git_settings: Settings, state_home: Path
):
    async with Client(build(git_settings)) as client:
        opened = (await call(client, "ck3_contract", OPEN)).structured_content
        contract_id = opened["data"]["contract_id"]
        stored = record(state_home, "contracts", contract_id)
        stored["granted_everything"] = True
        write_record(state_home, "contracts", contract_id, stored)
        status = (await call(client, "ck3_contract", {"command": "status"})).structured_content
        listed = (await call(client, "ck3_contract", {"command": "list"})).structured_content

    assert status["data"]["active"] is None
    assert contract_id not in {c["contract_id"] for c in listed["data"]["contracts"]}


def test_a_contract_governs_only_the_session_that_opened_it(git_settings: Settings):
    core = build_core(git_settings)
    one, two = core.start_session("one"), core.start_session("two")
    opened = _open(core, one, "ROOT_REPO:/src/a.py")
    two.contract_id = one.contract_id  # another session that names the same contract

    assert opened.code == "CT-GATE-S-001"
    assert governing(one, core.services) is not None
    assert governing(two, core.services) is None


def test_an_approval_a_human_gave_one_session_is_never_spent_by_another(git_settings: Settings):
    core = build_core(git_settings)
    one, two = core.start_session("one"), core.start_session("two")
    asked = _open(core, one, "ROOT_REPO:/AGENTS.md")
    core.decide_approval(str(asked.data["approval_id"]), approve=True)
    other = _open(core, two, "ROOT_REPO:/AGENTS.md")
    opened = _open(core, one, "ROOT_REPO:/AGENTS.md")

    assert asked.code == "CT-GATE-I-005"
    assert other.code == "CT-GATE-I-005"
    assert other.data["approval_id"] != asked.data["approval_id"]
    assert opened.code == "CT-GATE-S-001"


def _open(core: Core, session: Session, address: str) -> Reply:
    """A contract to write `address`, opened through the core for `session`."""
    target = (TargetRecord(address, "add" if address.endswith(".md") else "modify"),)
    request = Open(OpenRequest("ROOT_REPO", "intent", ("WRITE",), target, "the work"))
    return core.answer(session, request)
