"""A 2026-07-28 HTTP request belongs to the governance session of the bearer token that admitted it (SPEC
§13): its home, mode, playset, contract and approvals outlive the request, each client token has its own,
handles one token's session minted are inert for another, and a request no token admitted is refused any
command whose success it could not keep. fastmcp's own `Client` speaks that revision by default."""

from pathlib import Path
from typing import Any

import anyio
import pytest
from attrs import evolve
from fastmcp import Client

from app.bootstrap import build_core, client_tokens
from app.config import HttpSettings, Settings
from domain.vocabulary import Mode
from tests.e2e.test_http_sessions import TOKEN, call, http_server, posted
from tests.worlds import sample_world_on_disk

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]
ROUNDS = 6


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return sample_world_on_disk(tmp_path, Mode.CK3LENS)


def opening(path: str) -> dict[str, Any]:
    return {
        "command": "open",
        "root_category": "ROOT_USER_DOCS",
        "intent": "fix a trait",
        "operations": ["WRITE"],
        "targets": [{"path": path, "edit_kind": "add"}],
        "work_declaration": "add one file",
    }


async def rounds_of_work(url: str, token: str, name: str) -> list[str]:
    """ROUNDS rounds of: open a contract for a new file of its own, write it three times, close; the codes."""
    codes = []
    async with Client(url, auth=token) as client:
        for round_ in range(ROUNDS):
            path = f"mod:Local Fix:/common/{name}_{round_}.txt"
            codes.append((await call(client, "ck3_contract", **opening(path)))["code"])
            for write in range(3):
                content = f"{name}_{round_}_{write} = 1\n"
                codes.append(
                    (await call(client, "ck3_file", command="write", path=path, content=content))["code"]
                )
            codes.append((await call(client, "ck3_contract", command="close"))["code"])
    return codes


async def test_four_token_clients_each_open_write_and_close_their_own_contracts_without_a_protocol_session(
    settings: Settings,
):
    core = build_core(settings)
    tokens = client_tokens(core)
    assert tokens is not None
    made = {name: tokens.add(name) for name in ("claude", "copilot", "term1", "term2")}
    found: dict[str, list[str]] = {}

    async def work(name: str) -> None:
        found[name] = await rounds_of_work(url, made[name], name)

    with http_server(settings, core) as url:
        async with anyio.create_task_group() as group:
            for name in made:
                group.start_soon(work, name)

    expected = (["CT-GATE-S-001"] + ["WA-WRITE-S-001"] * 3 + ["CT-GATE-S-002"]) * ROUNDS
    assert found == dict.fromkeys(made, expected)
    sessions = {record.session_id for record in core.services.contracts.all()}
    assert {session.split("-")[1] for session in sessions} == set(made)  # each contract names its token


async def test_a_tokens_session_keeps_its_home_and_the_operators_token_is_one_shared_session(
    settings: Settings,
):
    core = build_core(settings)
    theirs = client_tokens(core).add("editor")  # type: ignore[union-attr]
    with http_server(settings, core) as url:
        async with Client(url, auth=theirs) as editor:
            await call(editor, "ck3_mode", command="cd", root_category="ROOT_GAME")
        async with Client(url, auth=theirs) as editor_again, Client(url, auth=TOKEN) as operator:
            kept = await call(editor_again, "ck3_dir", command="pwd")
            await call(operator, "ck3_mode", command="cd", root_category="ROOT_USER_DOCS")
        async with Client(url, auth=TOKEN) as operator_again:
            shared = await call(operator_again, "ck3_dir", command="pwd")

    assert kept["data"]["home"] == "ROOT_GAME"
    assert shared["data"]["home"] == "ROOT_USER_DOCS"


async def test_a_contract_id_of_one_token_is_inert_for_another_and_leaves_the_owners_contract_open(
    settings: Settings,
):
    core = build_core(settings)
    tokens = client_tokens(core)
    assert tokens is not None
    mine, theirs = tokens.add("owner"), tokens.add("other")
    path = "mod:Local Fix:/common/owned.txt"
    with http_server(settings, core) as url:
        async with Client(url, auth=mine) as owner, Client(url, auth=theirs) as other:
            contract_id = (await call(owner, "ck3_contract", **opening(path)))["data"]["contract_id"]
            presented = [
                await call(other, "ck3_contract", command=command, contract_id=contract_id)
                for command in ("close", "cancel", "renew")
            ]
            status = await call(other, "ck3_contract", command="status")
            write = await call(other, "ck3_file", command="write", path=path, content="x = 1\n")
            owners = await call(owner, "ck3_file", command="write", path=path, content="x = 1\n")
            owners_status = await call(owner, "ck3_contract", command="status")

    assert [reply["reply_type"] for reply in presented] == ["I", "I", "I"]
    assert owners_status["data"]["active"]["contract_id"] == contract_id
    assert status["data"]["active"] is None
    assert write["reply_type"] == "D"
    assert owners["code"] == "WA-WRITE-S-001"


def status_of(url: str, token: str) -> int:
    """The HTTP status of a 2026-07-28 tool call sent with `token` as its bearer token."""
    call_ = {"name": "ck3_dir", "arguments": {"command": "pwd"}}
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": call_}
    return posted(url, token, body, {"MCP-Protocol-Version": "2026-07-28"})


async def test_a_revoked_tokens_session_governs_nothing(settings: Settings):
    core = build_core(settings)
    tokens = client_tokens(core)
    assert tokens is not None
    revoked, other = tokens.add("gone"), tokens.add("other")
    path = "mod:Local Fix:/common/gone.txt"
    with http_server(settings, core) as url:
        async with Client(url, auth=revoked) as client:
            opened = await call(client, "ck3_contract", **opening(path))
        tokens.revoke("gone")
        async with Client(url, auth=other) as stranger:
            denied = await call(stranger, "ck3_file", command="write", path=path, content="x = 1\n")
        status = await anyio.to_thread.run_sync(status_of, url, revoked)

    assert opened["code"] == "CT-GATE-S-001"
    assert denied["reply_type"] == "D"
    assert status == 401  # refused by the door: the token's session is reached by no request


async def test_a_request_no_token_admitted_is_refused_what_it_could_not_keep_and_answered_the_rest(
    settings: Settings,
):
    core = build_core(settings)
    with http_server(settings, core, token=None) as url:
        async with Client(url) as client:
            opened = await call(client, "ck3_contract", **opening("mod:Local Fix:/common/x.txt"))
            moved = await call(client, "ck3_mode", command="cd", root_category="ROOT_GAME")
            read = await call(client, "ck3_dir", command="pwd")

    assert (opened["code"], moved["code"]) == ("MCP-CFG-I-005", "MCP-CFG-I-005")
    assert opened["data"]["required"] == "credential"
    assert read["code"] == "MCP-CFG-S-001"
    assert core.services.contracts.all() == []


async def test_a_tokens_session_idle_past_the_limit_starts_again_at_the_defaults(settings: Settings):
    idle = evolve(settings, http=HttpSettings(session_idle_minutes=1e-9))
    core = build_core(idle)
    with http_server(idle, core) as url:
        async with Client(url, auth=TOKEN) as client:
            await call(client, "ck3_mode", command="cd", root_category="ROOT_GAME")
            await anyio.sleep(0.01)
            after = await call(client, "ck3_dir", command="pwd")

    assert after["data"]["home"] == "ROOT_REPO"


async def test_an_approval_given_in_the_terminal_reaches_the_tokens_session_at_its_next_request(
    settings: Settings,
):
    core = build_core(settings)
    theirs = client_tokens(core).add("editor")  # type: ignore[union-attr]
    with http_server(settings, core) as url:
        async with Client(url, auth=theirs) as editor:
            asked = await call(editor, "ck3_mode", command="init", mode="ck3raven-dev")
            assert core.decide_approval(asked["data"]["approval_id"], approve=True)  # `ck3raven approve`
            granted = await call(editor, "ck3_mode", command="init", mode="ck3raven-dev")
        async with Client(url, auth=theirs) as editor_again:
            kept = await call(editor_again, "ck3_mode")

    assert asked["code"] == "MCP-CFG-I-002"
    assert granted["code"] == "MCP-CFG-S-005"
    assert kept["data"]["mode"] == "ck3raven-dev"
