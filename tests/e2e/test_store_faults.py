"""A decision is one transaction: a store that fails at any step of an open or a close leaves the state
as it was before the call, and the reply says so (Error), never Success for half of it."""

from typing import Any

import pytest
from fastmcp import Client

from adapters.memory_state import MemoryState
from app.bootstrap import build, build_core
from app.config import Settings
from domain.vocabulary import RootCategory
from ports.errors import Unavailable

pytestmark = pytest.mark.anyio
R = RootCategory
OPEN = {
    "command": "open",
    "root_category": "ROOT_REPO",
    "intent": "Work",
    "work_declaration": "Add one file",
    "operations": ["WRITE"],
    "targets": [{"path": "ROOT_REPO:/src/new.py", "edit_kind": "add"}],
}


class FailingAt(MemoryState):
    """The in-memory state, whose `step`-th write (of contracts, counters or evidence) fails."""

    def __init__(self, step: int) -> None:
        super().__init__()
        self.step, self.writes = step, 0
        for store, method in ((self.contracts, "put"), (self.ledger, "save"), (self.evidence, "put")):
            setattr(store, method, self._failing(getattr(store, method)))

    def _failing(self, write: Any) -> Any:
        def wrapped(*args: Any) -> Any:
            self.writes += 1
            if self.writes == self.step:
                raise Unavailable("injected: the store failed here")
            return write(*args)

        return wrapped


@pytest.fixture
def settings(git_settings: Settings) -> Settings:
    return git_settings


async def call(client: Client, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    result = await client.call_tool(tool, args, raise_on_error=False)
    return dict(result.structured_content)


@pytest.mark.parametrize("step", [1, 2, 3, 4])
async def test_an_open_whose_store_fails_at_any_step_opens_nothing(settings: Settings, step: int):
    stored = FailingAt(step)
    async with Client(build(settings, core=build_core(settings, stored=stored))) as client:
        opened = await call(client, "ck3_contract", OPEN)
        status = await call(client, "ck3_contract", {"command": "status"})
        write = await call(
            client, "ck3_file", {"command": "write", "path": "ROOT_REPO:/src/new.py", "content": "x"}
        )

    assert opened["reply_type"] == "E"
    assert status["data"]["active"] is None
    assert write["data"]["required"] == "contract"
    assert stored.contracts.all() == []
    assert stored.ledger.load("ROOT_REPO") == {}


@pytest.mark.parametrize("step", [5, 6])
async def test_a_close_whose_store_fails_at_any_step_leaves_the_contract_open_and_no_evidence(
    settings: Settings, step: int
):
    stored = FailingAt(step)  # writes 1 to 4: the open's baseline, contract, ruleset record and counters
    async with Client(build(settings, core=build_core(settings, stored=stored))) as client:
        opened = await call(client, "ck3_contract", OPEN)
        closed = await call(client, "ck3_contract", {"command": "close"})
        status = await call(client, "ck3_contract", {"command": "status"})

    contract_id = opened["data"]["contract_id"]
    assert closed["reply_type"] == "E"
    assert status["data"]["active"]["contract_id"] == contract_id
    assert stored.evidence.find("close", contract_id) is None
    assert stored.contracts.get(contract_id).status == "open"


async def test_an_open_whose_audit_row_cannot_be_written_is_an_error_that_opens_nothing(settings: Settings):
    stored = MemoryState()

    def broken(entry: object) -> None:
        raise Unavailable("injected: the audit store failed")

    stored.audit.append = broken  # type: ignore[method-assign]
    async with Client(build(settings, core=build_core(settings, stored=stored))) as client:
        opened = await call(client, "ck3_contract", OPEN)

    # the decision's row lands with its record or neither does: the reply says the store failed
    assert opened["reply_type"] == "E"
    assert stored.contracts.all() == []
