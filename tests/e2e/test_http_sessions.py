"""Over streamable HTTP each MCP session is its own governance session (SPEC §13): one client's home,
mode, playset and contract never reach another. The real server runs in process behind uvicorn."""

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from fastmcp import Client

from app.bootstrap import build, build_core, http_app
from app.config import Settings
from domain.use_cases.core import Core
from domain.vocabulary import Mode
from tests.worlds import sample_world_on_disk

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]
TOKEN = "t" * 43


@contextmanager
def http_server(settings: Settings, core: Core) -> Iterator[str]:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = int(probe.getsockname()[1])
    app = http_app(settings, build(settings, core=core, token=TOKEN))
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
    with http_server(settings, core) as url:
        async with (
            Client(url, mode="legacy", auth=TOKEN) as first,
            Client(url, mode="legacy", auth=TOKEN) as second,
        ):
            spent = [await call(first, "ck3_dir", command="pwd") for _ in range(4)]
            other = await call(second, "ck3_dir", command="pwd")

    assert spent[-1]["code"] == "EN-EXEC-D-001"
    assert other["code"] == "MCP-CFG-S-001"


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
