"""A mode switch asked by an agent takes effect only after a human approves it on a terminal, once."""

import subprocess
from pathlib import Path

import anyio
import pytest

from tests.e2e.stdio import CK3RAVEN, envelope, on_terminal, stdio_client

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]


@pytest.fixture
def config(lens_config: Path) -> Path:
    return lens_config


def without_terminal(config: Path, approval_id: str) -> int:
    return subprocess.run(
        [CK3RAVEN, "approve", approval_id, "--config", str(config)],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        check=False,
        cwd=config.parent,
    ).returncode


async def mode_init(client, mode: str) -> dict[str, object]:
    return envelope(await client.call_tool("ck3_mode", {"command": "init", "mode": mode}))


async def test_a_mode_switch_takes_effect_only_after_a_human_approves_it(config, era):
    async with stdio_client(config, era) as client:
        asked = await mode_init(client, "ck3raven-dev")
        approval_id = str(asked["data"]["approval_id"])
        before = envelope(await client.call_tool("ck3_mode", {"command": "status"}))
        status, shown = await anyio.to_thread.run_sync(
            on_terminal, config, "approve", approval_id, b"approve\n"
        )
        done = await mode_init(client, "ck3raven-dev")
        after = envelope(await client.call_tool("ck3_mode", {"command": "status"}))

    assert asked["code"] == "MCP-CFG-I-002"
    assert (before["data"]["mode"], before["data"]["source"], before["data"]["sealed"]) == (
        "ck3lens",
        "operator",
        True,
    )
    assert status == 0
    assert "ck3raven-dev" in shown
    assert done["code"] == "MCP-CFG-S-005"
    assert (after["data"]["mode"], after["data"]["source"]) == ("ck3raven-dev", f"approval:{approval_id}")
    assert after["data"]["sealed"] is True


async def test_one_approval_never_switches_twice(config, era):
    async with stdio_client(config, era) as client:
        first = await mode_init(client, "ck3raven-dev")
        await anyio.to_thread.run_sync(
            on_terminal, config, "approve", str(first["data"]["approval_id"]), b"approve\n"
        )
        await mode_init(client, "ck3raven-dev")
        back = await mode_init(client, "ck3lens")
        again = await mode_init(client, "ck3raven-dev")

    assert back["code"] == "MCP-CFG-I-002"
    assert again["code"] == "MCP-CFG-I-002"
    assert again["data"]["approval_id"] != first["data"]["approval_id"]


async def test_a_declined_request_leaves_the_mode_as_it_was(config, era):
    async with stdio_client(config, era) as client:
        asked = await mode_init(client, "ck3raven-dev")
        status, _ = await anyio.to_thread.run_sync(
            on_terminal, config, "decline", str(asked["data"]["approval_id"]), b"decline\n"
        )
        retried = await mode_init(client, "ck3raven-dev")
        after = envelope(await client.call_tool("ck3_mode", {"command": "status"}))

    assert status == 0
    assert retried["code"] == "MCP-CFG-I-004"
    assert after["data"]["mode"] == "ck3lens"


async def test_approving_needs_a_terminal(config):
    async with stdio_client(config, "auto") as client:
        asked = await mode_init(client, "ck3raven-dev")
        code = await anyio.to_thread.run_sync(without_terminal, config, str(asked["data"]["approval_id"]))
        retried = await mode_init(client, "ck3raven-dev")

    assert code == 2
    assert retried["code"] == "MCP-CFG-I-002"


async def test_a_wrong_confirmation_word_decides_nothing(config):
    async with stdio_client(config, "auto") as client:
        asked = await mode_init(client, "ck3raven-dev")
        status, _ = await anyio.to_thread.run_sync(
            on_terminal, config, "approve", str(asked["data"]["approval_id"]), b"yes\n"
        )
        retried = await mode_init(client, "ck3raven-dev")

    assert status == 1
    assert retried["code"] == "MCP-CFG-I-002"


def answering(value: object, action: str = "accept", field: str = "approve"):
    """An elicitation callback: the client's human answers `value` in `field` (or declines/cancels)."""
    from mcp.types import ElicitResult

    asked: list[object] = []

    async def callback(context, params):
        asked.append(params)
        return ElicitResult(action=action, content={field: value} if action == "accept" else None)

    callback.asked = asked  # type: ignore[attr-defined]
    return callback


async def test_an_eliciting_client_whose_user_approves_switches_in_one_call(config, era):
    human = answering(True)
    async with stdio_client(config, era, elicitation_callback=human) as client:
        done = await mode_init(client, "ck3raven-dev")
        after = envelope(await client.call_tool("ck3_mode", {"command": "status"}))

    assert done["code"] == "MCP-CFG-S-005"
    assert after["data"]["mode"] == "ck3raven-dev"
    assert "ck3raven-dev" in human.asked[0].message


async def test_the_form_has_one_clearly_titled_yes_or_no_field(config, era):
    human = answering(True)
    async with stdio_client(config, era, elicitation_callback=human) as client:
        await mode_init(client, "ck3raven-dev")

    properties = human.asked[0].requested_schema["properties"]
    assert [(name, spec["type"], spec["title"]) for name, spec in properties.items()] == [
        ("approve", "boolean", "Approve this request?")
    ]


@pytest.mark.parametrize(("field", "value"), [("value", "approve"), ("approve", "yes"), ("approve", 1)])
async def test_a_malformed_elicitation_answer_is_a_decline_not_an_error(config, era, field, value):
    async with stdio_client(config, era, elicitation_callback=answering(value, field=field)) as client:
        refused = await mode_init(client, "ck3raven-dev")
        after = envelope(await client.call_tool("ck3_mode", {"command": "status"}))

    assert refused["code"] == "MCP-CFG-I-004"
    assert after["data"]["mode"] == "ck3lens"


@pytest.mark.parametrize(("value", "action"), [(False, "accept"), (None, "decline"), (None, "cancel")])
async def test_an_eliciting_client_whose_user_does_not_approve_changes_nothing(config, era, value, action):
    async with stdio_client(config, era, elicitation_callback=answering(value, action)) as client:
        refused = await mode_init(client, "ck3raven-dev")
        after = envelope(await client.call_tool("ck3_mode", {"command": "status"}))

    assert refused["code"] == "MCP-CFG-I-004"
    assert after["data"]["mode"] == "ck3lens"
