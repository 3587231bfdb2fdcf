"""Every kind of human approval reaches the person through the client's UI when it can ask, else the
terminal: contracts on protected files, and the launcher registry, which can be written after approval."""

from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.e2e.stdio import CK3RAVEN, envelope, on_terminal, stdio_client
from tests.terminal import on_terminal as run_on_terminal

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]
REGISTRY = "ROOT_USER_DOCS:/launcher-v2.sqlite"


@pytest.fixture
def lens(lens_config: Path) -> Path:
    return lens_config


def contract(*targets: str, intent: str = "Tune the editor tasks of my mod") -> dict[str, Any]:
    return {
        "command": "open",
        "root_category": "ROOT_USER_DOCS",
        "intent": intent,
        "work_declaration": "Edit the named files",
        "operations": ["WRITE"],
        "targets": [{"path": target, "edit_kind": "modify"} for target in targets],
    }


async def tool(client: Any, name: str, args: dict[str, Any]) -> dict[str, Any]:
    return envelope(await client.call_tool(name, args))


def human_says(answer: bool):
    from mcp.types import ElicitResult

    seen: list[str] = []

    async def callback(context, params):
        seen.append(params.message)
        return ElicitResult(action="accept", content={"approve": answer})

    callback.seen = seen  # type: ignore[attr-defined]
    return callback


async def test_a_contract_on_a_protected_file_is_approved_through_the_clients_ui_in_one_call(lens, era):
    human = human_says(True)
    async with stdio_client(lens, era, elicitation_callback=human) as client:
        opened = await tool(client, "ck3_contract", contract("mod:Local Fix:/.vscode/tasks.json"))
        written = await tool(
            client,
            "ck3_file",
            {"command": "write", "path": "mod:Local Fix:/.vscode/tasks.json", "content": "{}"},
        )

    assert opened["code"] == "CT-GATE-S-001"
    assert written["code"] == "WA-WRITE-S-001"
    assert "ROOT_USER_DOCS:/mod/LocalFix/.vscode/tasks.json" in human.seen[0]
    assert "Tune the editor tasks of my mod" in human.seen[0]


async def test_a_contract_the_person_declines_in_the_clients_ui_does_not_open(lens, era):
    async with stdio_client(lens, era, elicitation_callback=human_says(False)) as client:
        refused = await tool(client, "ck3_contract", contract("mod:Local Fix:/.vscode/tasks.json"))
        status = await tool(client, "ck3_contract", {"command": "status"})

    assert (refused["code"], refused["data"]["state"]) == ("CT-GATE-I-005", "declined")
    assert status["data"].get("contract_id") is None


async def test_the_launcher_registry_is_written_after_its_approval_and_not_before(lens):
    write = {"command": "write", "path": REGISTRY, "content": "registry"}
    async with stdio_client(lens, "auto") as client:
        before = await tool(client, "ck3_file", write)
        asked = await tool(client, "ck3_contract", contract(REGISTRY, intent="Add my mod to the launcher"))
        still = await tool(client, "ck3_file", write)
        await anyio.to_thread.run_sync(
            on_terminal, lens, "approve", str(asked["data"]["approval_id"]), b"approve\n"
        )
        opened = await tool(client, "ck3_contract", contract(REGISTRY, intent="Add my mod to the launcher"))
        after = await tool(client, "ck3_file", write)

    assert (before["code"], before["data"]["required"]) == ("EN-WRITE-D-002", "contract")
    assert (asked["code"], asked["data"]["targets"]) == ("CT-GATE-I-005", [REGISTRY])
    assert still["code"] == "EN-WRITE-D-002"
    assert opened["code"] == "CT-GATE-S-001"
    assert after["code"] == "WA-WRITE-S-001"


async def test_an_approval_hint_names_the_command_and_asks_for_the_servers_config_naming_no_path(lens):
    async with stdio_client(lens, "auto") as client:
        asked = await tool(client, "ck3_contract", contract(REGISTRY))
        hint = str(asked["data"]["hint"])
        command = hint.split("`")[1].split()
        argv = [CK3RAVEN, *command[1:], "--config", str(lens)]
        status, _ = await anyio.to_thread.run_sync(run_on_terminal, argv, b"approve\n")
        opened = await tool(client, "ck3_contract", contract(REGISTRY))

    assert command == ["ck3raven", "approve", asked["data"]["approval_id"]]
    assert "with the same `--config` as the server" in hint
    assert str(lens.parent) not in hint
    assert status == 0
    assert opened["code"] == "CT-GATE-S-001"


async def test_the_approval_socket_exists_while_the_server_runs_and_is_removed_at_exit(lens):
    servers = lens.parent / "state" / "servers"
    async with stdio_client(lens, "auto") as client:
        await tool(client, "ck3_mode", {"command": "status"})
        (socket_path,) = servers.glob("*.sock")
        during = socket_path.exists()

    for _ in range(50):  # the server exits shortly after its client closes stdin
        if not socket_path.exists():
            break
        await anyio.sleep(0.1)

    assert during
    assert not socket_path.exists()
