"""A command that reads the session alone (`ck3_dir pwd`) is answered on the server's own thread, with no
worker thread, while its session holds no contract; once the session holds one (its store may have to be
read), and for every other command, the answer is made on a worker thread. Either way a call is counted
against the rate limit once."""

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
from domain.use_cases.navigation import ListFolder, Pwd
from domain.vocabulary import Mode, RootCategory

pytestmark = pytest.mark.anyio


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    (tmp_path / "data" / "wip").mkdir(parents=True)
    roots = {RootCategory.ROOT_CK3RAVEN_DATA: tmp_path / "data"}
    return Settings("test", roots, RootCategory.ROOT_CK3RAVEN_DATA, Mode.CK3RAVEN_DEV)


def recording(handler: Callable[..., Any], threads: list[bool]) -> Callable[..., Any]:
    def recorded(*args: Any) -> Any:
        threads.append(threading.current_thread() is threading.main_thread())
        return handler(*args)

    return recorded


def served(settings: Settings, on_main: list[bool]) -> Any:
    core = build_core(settings)
    core.handlers = {
        **core.handlers,
        Pwd: recording(core.handlers[Pwd], on_main),
        ListFolder: recording(core.handlers[ListFolder], on_main),
    }
    return build(settings, core=core)


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
