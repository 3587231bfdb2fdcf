"""Over streamable HTTP each MCP session is its own governance session (SPEC §13): one client's home,
mode, playset and contract never reach another. The real server runs in process behind uvicorn."""

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
import uvicorn
from fastmcp import Client

from app.bootstrap import build, build_core, client_tokens, http_app
from app.config import Settings
from domain.use_cases.core import Core
from domain.vocabulary import Mode
from tests.worlds import sample_world_on_disk

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]
TOKEN = "t" * 43


@contextmanager
def http_server(settings: Settings, core: Core, token: str | None = TOKEN) -> Iterator[str]:
    """The server of `core` over streamable HTTP in this process, admitting `token` and the client tokens
    (None: every request, as a server built without a token does); its URL."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = int(probe.getsockname()[1])
    app = http_app(settings, build(settings, core=core, token=token, clients=client_tokens(core)))
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="error")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        server.should_exit = True
        thread.join(timeout=20)


async def call(client: Client, tool: str, **args: Any) -> dict[str, Any]:
    result = await client.call_tool(tool, args, raise_on_error=False)
    envelope: dict[str, Any] = result.structured_content
    return envelope


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return sample_world_on_disk(tmp_path, Mode.CK3LENS)


async def test_two_http_clients_each_keep_their_own_home(settings: Settings):
    core = build_core(settings)
    with http_server(settings, core) as url:
        async with (
            Client(url, mode="legacy", auth=TOKEN) as first,
            Client(url, mode="legacy", auth=TOKEN) as second,
        ):
            await call(first, "ck3_mode", command="cd", root_category="ROOT_GAME")

            mine, theirs = await call(first, "ck3_dir"), await call(second, "ck3_dir")

    assert mine["data"]["home"] == "ROOT_GAME"
    assert theirs["data"]["home"] == "ROOT_REPO"


async def test_a_mode_one_http_client_had_approved_stays_with_that_client(settings: Settings):
    core = build_core(settings)
    with http_server(settings, core) as url:
        async with (
            Client(url, mode="legacy", auth=TOKEN) as first,
            Client(url, mode="legacy", auth=TOKEN) as second,
        ):
            asked = await call(first, "ck3_mode", command="init", mode="ck3raven-dev")
            core.decide_approval(asked["data"]["approval_id"], approve=True)
            await call(first, "ck3_mode", command="init", mode="ck3raven-dev")
            borrowed = await call(second, "ck3_mode", command="init", mode="ck3raven-dev")

            mine, theirs = await call(first, "ck3_mode"), await call(second, "ck3_mode")

    assert mine["data"]["mode"] == "ck3raven-dev"
    assert theirs["data"]["mode"] == "ck3lens"
    assert borrowed["code"] == "MCP-CFG-I-002"


async def test_a_playset_switch_changes_only_the_switching_clients_mods(settings: Settings):
    folder = settings.roots[next(r for r in settings.roots if r.value == "ROOT_CK3RAVEN_DATA")] / "playsets"
    (folder / "empty.json").write_text('{"name": "Empty", "mods": []}', encoding="utf-8")
    core = build_core(settings)
    with http_server(settings, core) as url:
        async with (
            Client(url, mode="legacy", auth=TOKEN) as first,
            Client(url, mode="legacy", auth=TOKEN) as second,
        ):
            await call(first, "ck3_playset", command="switch", name="Empty")

            mine = await call(first, "ck3_read", path="mod:Better Traits:/descriptor.mod")
            theirs = await call(second, "ck3_read", path="mod:Better Traits:/descriptor.mod")

    assert mine["code"] == "WA-RES-I-010"
    assert theirs["code"] == "WA-READ-S-003"


async def test_a_contract_opened_by_one_http_client_never_permits_a_write_by_another(settings: Settings):
    core = build_core(settings)
    opening = {
        "command": "open",
        "root_category": "ROOT_USER_DOCS",
        "intent": "fix a trait",
        "operations": ["WRITE"],
        "targets": [{"path": "mod:Local Fix:/common/fix.txt", "edit_kind": "add"}],
        "work_declaration": "add one file",
    }
    write = {"command": "write", "path": "mod:Local Fix:/common/fix.txt", "content": "x = 1\n"}
    with http_server(settings, core) as url:
        async with (
            Client(url, mode="legacy", auth=TOKEN) as first,
            Client(url, mode="legacy", auth=TOKEN) as second,
        ):
            opened = await call(first, "ck3_contract", **opening)

            theirs = await call(second, "ck3_file", **write)
            their_status = await call(second, "ck3_contract", command="status")
            mine = await call(first, "ck3_file", **write)

    assert opened["code"] == "CT-GATE-S-001"
    assert theirs["reply_type"] == "D"
    assert theirs["data"]["required"] == "contract"
    assert their_status["data"]["active"] is None
    assert mine["code"] == "WA-WRITE-S-001"


async def test_one_http_client_over_its_rate_limit_leaves_another_its_own(tmp_path: Path):
    from attrs import evolve

    from domain.policy.pacing import Rates

    settings = evolve(sample_world_on_disk(tmp_path, Mode.CK3LENS), limits=Rates(3, 1))
    core = build_core(settings)
    theirs = client_tokens(core).add("editor")  # type: ignore[union-attr]
    with http_server(settings, core) as url:
        async with (
            Client(url, mode="legacy", auth=TOKEN) as first,
            Client(url, mode="legacy", auth=TOKEN) as again,
            Client(url, mode="legacy", auth=theirs) as other,
        ):
            spent = [await call(first, "ck3_dir", command="pwd") for _ in range(3)]
            same_token = await call(again, "ck3_dir", command="pwd")
            other_token = await call(other, "ck3_dir", command="pwd")

    assert spent[-1]["code"] == "MCP-CFG-S-001"
    assert same_token["code"] == "EN-EXEC-D-001"  # a new session of one token starts with what it left
    assert other_token["code"] == "MCP-CFG-S-001"


def hijack(url: str, session_id: str) -> int:
    """The status of a request presenting `session_id` with the operator's token instead of its own."""
    body = {"jsonrpc": "2.0", "id": 9, "method": "tools/list", "params": {}}
    return posted(url, TOKEN, body, {"Mcp-Session-Id": session_id})


def posted(url: str, token: str, body: dict[str, Any], headers: dict[str, str] | None = None) -> int:
    """The HTTP status of one JSON-RPC message posted with `token` as its bearer token."""
    import http.client
    import json
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=20)
    sent = {
        "Authorization": f"Bearer {token}",
        "Accept": "application/json, text/event-stream",
        "Content-Type": "application/json",
        **(headers or {}),
    }
    connection.request("POST", parts.path, body=json.dumps(body), headers=sent)
    status = connection.getresponse().status
    connection.close()
    return status


async def test_a_client_token_names_its_client_in_the_audit_and_another_token_cannot_use_its_session(
    settings: Settings,
):
    core = build_core(settings)
    theirs = client_tokens(core).add("editor")  # type: ignore[union-attr]
    with http_server(settings, core) as url:
        async with Client(url, mode="legacy", auth=theirs) as client:
            answered = await call(client, "ck3_dir", command="pwd")
            session_id = client.transport.get_session_id()  # type: ignore[attr-defined]
            refused = await anyio.to_thread.run_sync(hijack, url, str(session_id))

    rows = [row.entry for row in core.services.audit.rows()]
    assert answered["code"] == "MCP-CFG-S-001"
    assert [row.client for row in rows if row.trace_id == answered["meta"]["trace_id"]] == ["editor"]
    assert refused == 404  # as if the session did not exist


def test_client_tokens_are_kept_as_hashes_and_a_revoked_one_is_refused(settings: Settings):
    from adapters.client_tokens import ClientVerifier

    core = build_core(settings)
    tokens = client_tokens(core)
    assert tokens is not None
    made = tokens.add("editor")
    verifier = ClientVerifier(TOKEN, tokens)
    admitted = anyio.run(verifier.verify_token, made)
    tokens.revoke("editor")
    after = anyio.run(verifier.verify_token, made)
    stored = core.services.transactions.execute("SELECT * FROM http_clients")  # type: ignore[attr-defined]

    assert admitted is not None
    assert admitted.client_id == "editor"
    assert after is None
    assert made not in repr(stored)


async def test_sessionless_requests_share_one_rate_limit_instead_of_each_starting_full(tmp_path: Path):
    from attrs import evolve

    from domain.policy.pacing import Rates

    settings = evolve(sample_world_on_disk(tmp_path, Mode.CK3LENS), limits=Rates(3, 1))
    core = build_core(settings)
    with http_server(settings, core) as url:
        async with Client(url, auth=TOKEN) as first:  # the 2026-07-28 protocol: no session
            spent = [await call(first, "ck3_dir", command="pwd") for _ in range(3)]
        async with Client(url, auth=TOKEN) as second:
            over = await call(second, "ck3_dir", command="pwd")

    assert [reply["code"] for reply in spent] == ["MCP-CFG-S-001"] * 3
    assert over["code"] == "EN-EXEC-D-001"


def test_a_session_past_the_cap_is_refused_clearly(settings: Settings):
    from attrs import evolve

    from app.config import HttpSettings

    capped = evolve(settings, http=HttpSettings(max_sessions=2))
    with http_server(capped, build_core(capped)) as url:
        answers = [opening(url) for _ in range(3)]

    assert [status for status, _ in answers] == [200, 200, 503]
    assert "Too many open sessions" in answers[2][1]


def test_the_session_cap_counts_per_token_so_one_clients_abandoned_sessions_lock_no_other_out(
    settings: Settings,
):
    from attrs import evolve

    from app.config import HttpSettings

    capped = evolve(settings, http=HttpSettings(max_sessions=2))
    core = build_core(capped)
    theirs = client_tokens(core).add("editor")  # type: ignore[union-attr]
    with http_server(capped, core) as url:
        abandoned = [opening(url) for _ in range(3)]
        other = [opening(url, theirs) for _ in range(3)]

    assert [status for status, _ in abandoned] == [200, 200, 503]
    assert [status for status, _ in other] == [200, 200, 503]


def opening(url: str, token: str = TOKEN) -> tuple[int, str]:
    """A new MCP session asked for (and abandoned) with `token`: the status and the body."""
    import http.client
    import json
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=20)
    hello = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
    body = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello}
    headers = {
        "Authorization": f"Bearer {token}",
        "Accept": "application/json, text/event-stream",
        "Content-Type": "application/json",
    }
    connection.request("POST", parts.path, body=json.dumps(body), headers=headers)
    answer = connection.getresponse()
    found = answer.status, answer.read().decode("utf-8", "replace")
    connection.close()
    return found
