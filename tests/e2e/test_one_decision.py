"""One tool call is one decision of the core (domain.use_cases.decision): the reply comes back with the
contract it was decided under and the journal entries it began, the audit row names that contract (a
close's and a cancel's too), and a governed write looks its contract up in the store once."""

from typing import Any

import pytest
from fastmcp import Client

from adapters.memory_state import MemoryState
from app.bootstrap import build, build_core
from app.config import Settings
from domain.use_cases.core import Core
from domain.use_cases.decision import Decision

pytestmark = pytest.mark.anyio
A_PY = "ROOT_REPO:/src/a.py"
OPEN = {
    "command": "open",
    "root_category": "ROOT_REPO",
    "intent": "Fix a",
    "work_declaration": "Edit a",
    "operations": ["WRITE"],
    "targets": [{"path": A_PY, "edit_kind": "modify"}],
}
WRITE = {"command": "write", "path": A_PY, "content": "a = 2\n"}


class CountingContracts:
    """The contract store, counting each record read."""

    def __init__(self, store):
        self.store = store
        self.gets = 0

    def get(self, contract_id):
        self.gets += 1
        return self.store.get(contract_id)

    def put(self, record):
        self.store.put(record)

    def all(self):
        return self.store.all()

    def version(self):
        return self.store.version()


class CountingCore(Core):
    """The core, keeping every decision it made."""

    decisions: list[Decision]

    def decide(self, session, request, *, paced=False, call=None):
        decision = super().decide(session, request, paced=paced, call=call)
        self.decisions.append(decision)
        return decision


def counted(settings: Settings, stored: MemoryState) -> tuple[CountingCore, CountingContracts]:
    contracts = CountingContracts(stored.contracts)
    stored.contracts = contracts
    built = build_core(settings, stored=stored)
    core = CountingCore(built.services, built.defaults)
    core.decisions = []
    return core, contracts


async def call(client: Client, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    result = await client.call_tool(tool, args, raise_on_error=False)
    return dict(result.structured_content)


async def test_a_close_and_a_cancel_are_audited_under_the_contract_they_ended(git_settings: Settings):
    stored = MemoryState()
    core = build_core(git_settings, stored=stored)
    async with Client(build(git_settings, core=core)) as client:
        first = await call(client, "ck3_contract", OPEN)
        await call(client, "ck3_file", WRITE)
        closed = await call(client, "ck3_contract", {"command": "close"})
        second = await call(client, "ck3_contract", OPEN)
        cancelled = await call(client, "ck3_contract", {"command": "cancel"})

    rows = {(r.entry.command, r.entry.code): r.entry.contract_id for r in stored.audit.rows()}
    assert (closed["code"], cancelled["code"]) == ("CT-GATE-S-002", "CT-GATE-S-003")
    assert rows[("close", "CT-GATE-S-002")] == first["data"]["contract_id"]
    assert rows[("cancel", "CT-GATE-S-003")] == second["data"]["contract_id"]


async def test_a_governed_write_is_one_decision_that_looks_its_contract_up_once(git_settings: Settings):
    core, contracts = counted(git_settings, MemoryState())
    async with Client(build(git_settings, core=core)) as client:
        opened = await call(client, "ck3_contract", OPEN)
        core.decisions.clear()
        contracts.gets = 0
        written = await call(client, "ck3_file", WRITE)

    assert written["code"] == "WA-WRITE-S-001"
    assert len(core.decisions) == 1
    # at most one read: the verified contract is kept from the open while the store is unchanged, and read
    # again once when a write (the open's own audit row, written after its reply) moved the store
    assert contracts.gets <= 1
    decision = core.decisions[0]
    assert decision.contract_id == opened["data"]["contract_id"]
    assert len(decision.journal) == 1
