"""A command that reads the session alone (`ck3_dir pwd`) is answered on the server's own thread, with no
worker thread, while its session holds no contract; so are the commands that read files alone (`ck3_read`,
`ck3_dir list` and `ck3_dir tree`) on a server of one client (stdio, which `serve` builds so), never on a
server of many (HTTP), and never a tree that reports progress. Once the session holds a contract (its
store may have to be read), and for every other command, the answer is made on a worker thread. Either
way a call is counted against the rate limit once."""

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from attrs import evolve
from fastmcp import Client

from app.bootstrap import build, build_core
from app.config import Settings
from domain.policy.pacing import Rates
from domain.use_cases.file_access import Read
from domain.use_cases.navigation import ListFolder, Pwd, Tree
from domain.vocabulary import Mode, RootCategory
from tests.e2e.stdio import said_by_probe, write_config

pytestmark = pytest.mark.anyio


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    (tmp_path / "data" / "wip").mkdir(parents=True)
    (tmp_path / "data" / "wip" / "notes.txt").write_text("one\ntwo\n", encoding="utf-8")
    roots = {RootCategory.ROOT_CK3RAVEN_DATA: tmp_path / "data"}
    return Settings("test", roots, RootCategory.ROOT_CK3RAVEN_DATA, Mode.CK3RAVEN_DEV)


def recording(handler: Callable[..., Any], threads: list[bool]) -> Callable[..., Any]:
    def recorded(*args: Any) -> Any:
        threads.append(threading.current_thread() is threading.main_thread())
        return handler(*args)

    return recorded


def served(settings: Settings, on_main: list[bool], *, one_client: bool = False) -> Any:
    core = build_core(settings)
    core.handlers = {
        **core.handlers,
        **{kind: recording(core.handlers[kind], on_main) for kind in (Pwd, ListFolder, Tree, Read)},
    }
    return build(settings, core=core, one_client=one_client)


OPEN = {
    "command": "open",
    "root_category": "ROOT_CK3RAVEN_DATA",
    "intent": "Work",
    "work_declaration": "Add one file",
    "operations": ["WRITE"],
    "targets": [{"path": "ROOT_CK3RAVEN_DATA:/wip/a.txt", "edit_kind": "add"}],
}


async def test_pwd_is_answered_on_the_servers_own_thread_until_the_session_holds_a_contract(
    settings: Settings,
):
    on_main: list[bool] = []
    async with Client(served(settings, on_main)) as client:
        before = await client.call_tool("ck3_dir", {"command": "pwd"})
        await client.call_tool("ck3_dir", {"command": "list", "path": "wip"})
        opened = await client.call_tool("ck3_contract", OPEN)
        after = await client.call_tool("ck3_dir", {"command": "pwd"})

    assert opened.structured_content["code"] == "CT-GATE-S-001"
    assert before.structured_content["data"] == after.structured_content["data"]
    assert on_main == [True, False, False]


async def test_a_call_answered_at_once_or_not_is_counted_once(settings: Settings):
    paced = evolve(settings, limits=Rates(reads_per_minute=5, mutations_per_minute=5))
    on_main: list[bool] = []
    async with Client(served(paced, on_main)) as client:
        await client.call_tool("ck3_contract", OPEN)  # a read too: it changes no file
        codes = [
            (await client.call_tool("ck3_dir", {"command": "pwd"}, raise_on_error=False)).structured_content[
                "code"
            ]
            for _ in range(5)
        ]

    assert codes == ["MCP-CFG-S-001"] * 4 + ["EN-EXEC-D-001"]
    assert on_main == [False] * 4


READ = {"path": "wip/notes.txt"}


async def test_a_read_is_answered_on_the_servers_own_thread_when_it_serves_one_client_until_a_contract(
    settings: Settings,
):
    on_main: list[bool] = []
    async with Client(served(settings, on_main, one_client=True)) as client:
        before = await client.call_tool("ck3_read", READ)
        await client.call_tool("ck3_contract", OPEN)
        after = await client.call_tool("ck3_read", READ)

    assert before.structured_content["data"]["content"] == "one\ntwo\n"
    assert before.structured_content["data"] == after.structured_content["data"]
    assert on_main == [True, False]


LOOKS = [{"command": "list", "path": "wip"}, {"command": "tree", "path": "ROOT_CK3RAVEN_DATA:/"}]


async def looked(client: Client[Any]) -> list[dict[str, Any]]:
    """The envelopes of a listing and a tree, called as the MCP SDK calls (no progress asked: fastmcp's
    own client asks for it on every call)."""
    replies = [await client.session.call_tool("ck3_dir", args) for args in LOOKS]
    return [dict(reply.structured_content or {}) for reply in replies]


async def test_a_listing_and_a_tree_are_answered_on_the_servers_own_thread_when_it_serves_one_client(
    settings: Settings,
):
    on_main: list[bool] = []
    async with Client(served(settings, on_main, one_client=True)) as client:
        before = await looked(client)
        await client.call_tool("ck3_contract", OPEN)
        after = await looked(client)

    assert [reply["code"] for reply in before] == ["WA-READ-S-001", "WA-READ-S-002"]
    assert before[1]["data"]["directories"] == ["ROOT_CK3RAVEN_DATA:/wip"]
    assert [reply["data"] for reply in before] == [reply["data"] for reply in after]
    assert on_main == [True, True, False, False]


async def test_a_tree_that_reports_progress_is_answered_on_a_worker_thread(settings: Settings):
    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        pass

    on_main: list[bool] = []
    async with Client(served(settings, on_main, one_client=True)) as client:
        tree = await client.call_tool("ck3_dir", LOOKS[1], progress_handler=on_progress)
        await looked(client)

    assert tree.structured_content["code"] == "WA-READ-S-002"
    assert on_main == [False, True, True]


async def test_a_read_answered_at_once_is_counted_against_the_rate_limit_once(settings: Settings):
    paced = evolve(settings, limits=Rates(reads_per_minute=3, mutations_per_minute=5))
    on_main: list[bool] = []
    async with Client(served(paced, on_main, one_client=True)) as client:
        replies = [await client.call_tool("ck3_read", READ, raise_on_error=False) for _ in range(4)]

    assert [reply.structured_content["code"] for reply in replies] == ["WA-READ-S-003"] * 3 + [
        "EN-EXEC-D-001"
    ]
    assert on_main == [True] * 3


async def test_a_server_of_many_clients_answers_a_read_a_listing_and_a_tree_on_a_worker_thread(
    settings: Settings,
):
    on_main: list[bool] = []
    async with Client(served(settings, on_main)) as client:
        read = await client.call_tool("ck3_read", READ)
        await looked(client)
        await client.call_tool("ck3_dir", {"command": "pwd"})

    assert read.structured_content["code"] == "WA-READ-S-003"
    assert on_main == [False, False, False, True]


PROBE = """
import json, sys
import adapters.fastmcp_server, adapters.stdio_drain, uvicorn
from ck3raven.__main__ import main

made = adapters.fastmcp_server.Dispatcher

def dispatcher(*args, one_client=False, **kwargs):
    sys.stderr.write(json.dumps({"one_client": one_client}) + "\\n")
    sys.stderr.flush()
    return made(*args, one_client=one_client, **kwargs)

async def serving(server):  # stands in for serving over stdio
    pass

adapters.fastmcp_server.Dispatcher = dispatcher
adapters.stdio_drain.serve_stdio = serving
uvicorn.Server.run = lambda self, sockets=None: None  # stands in for serving over HTTP
main(sys.argv[1:])
"""


@pytest.mark.parametrize(("transport", "one_client"), [("stdio", True), ("http", False)])
def test_serve_builds_a_server_of_one_client_over_stdio_alone(
    tmp_path: Path, transport: str, one_client: bool
):
    (tmp_path / "repo").mkdir()
    config = write_config(tmp_path, roots={"ROOT_REPO": tmp_path / "repo"})
    argv = ["serve", "--config", str(config), "--transport", transport, "--port", "0"]

    said = said_by_probe(PROBE, *argv, first="one_client")

    assert said == [{"one_client": one_client}]
