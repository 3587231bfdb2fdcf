"""Several clients on one config: each spawns its own stdio server on the same state directory, and each
serves, with its own contract and its own approval, reached by `ck3raven approve ID` on the terminal; the
second starts while the first runs (as a restart does while the old server is still exiting)."""

import subprocess
from pathlib import Path

import anyio
import pytest

from tests.e2e.stdio import CK3RAVEN, on_terminal, stdio_client
from tests.e2e.test_stdio_approvals import REGISTRY, contract, tool

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]
TASKS = "mod:Local Fix:/.vscode/tasks.json"


def approvals(config: Path) -> str:
    return subprocess.run(
        [CK3RAVEN, "approvals", "--config", str(config)],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
        cwd=config.parent,
    ).stdout


async def test_two_servers_on_one_config_each_serve_their_own_contract_and_approval(lens_config: Path):
    async with stdio_client(lens_config, "auto") as first, stdio_client(lens_config, "auto") as second:
        asked_first = await tool(first, "ck3_contract", contract(REGISTRY))
        asked_second = await tool(second, "ck3_contract", contract(TASKS))
        listed = await anyio.to_thread.run_sync(approvals, lens_config)
        ids = [asked["data"]["approval_id"] for asked in (asked_second, asked_first)]
        decided = [
            await anyio.to_thread.run_sync(on_terminal, lens_config, "approve", approval_id, b"approve\n")
            for approval_id in ids
        ]
        opened_first = await tool(first, "ck3_contract", contract(REGISTRY))
        opened_second = await tool(second, "ck3_contract", contract(TASKS))
        status_first = await tool(first, "ck3_contract", {"command": "status"})

    assert all(approval_id in listed for approval_id in ids)
    assert [status for status, _ in decided] == [0, 0]
    assert opened_first["code"] == opened_second["code"] == "CT-GATE-S-001"
    assert status_first["data"]["active"]["contract_id"] == opened_first["data"]["contract_id"]
