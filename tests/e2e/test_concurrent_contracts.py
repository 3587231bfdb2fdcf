"""Several servers on one state directory, each with a contract of its own on one mod, working at once: no
close takes another contract's write for its own or for outside work, no open finds another's work as
carry-over, every acknowledged write's journal entry ends done, and the audit verifies (SPEC §7, §8:
servers share the state directory). Each server is a core of its own (its own Sigil, its own connection
to the state database), driven by its own client; their calls run on worker threads at the same time."""

from pathlib import Path
from typing import Any

import anyio
import pytest
from fastmcp import Client

from app.bootstrap import build, build_core
from app.config import Settings
from app.doctor_checks import verified
from domain.vocabulary import Mode
from tests.worlds import sample_world_on_disk

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]
SERVERS = 3
ROUNDS = 4


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return sample_world_on_disk(tmp_path, Mode.CK3LENS)


async def call(client: Client, tool: str, **args: Any) -> dict[str, Any]:
    result = await client.call_tool(tool, args, raise_on_error=False)
    envelope: dict[str, Any] = result.structured_content
    return envelope


async def rounds_of_work(client: Client, name: str) -> list[tuple[str, object]]:
    """ROUNDS rounds of: open a contract for a new file of its own, write it three times, close; each
    reply's code, and each open's carry-over."""
    found: list[tuple[str, object]] = []
    for round_ in range(ROUNDS):
        path = f"mod:Local Fix:/common/{name}_{round_}.txt"
        opening = {
            "command": "open",
            "root_category": "ROOT_USER_DOCS",
            "intent": "add a file",
            "operations": ["WRITE"],
            "targets": [{"path": path, "edit_kind": "add"}],
            "work_declaration": "one file of its own",
        }
        opened = await call(client, "ck3_contract", **opening)
        found.append((opened["code"], opened["data"].get("carry_over")))
        for write in range(3):
            content = f"{name}_{round_}_{write} = 1\n"
            written = await call(client, "ck3_file", command="write", path=path, content=content)
            found.append((written["code"], None))
        found.append(((await call(client, "ck3_contract", command="close"))["code"], None))
    return found


async def test_servers_on_one_state_directory_working_at_once_each_close_exactly_their_own_work(
    settings: Settings,
):
    cores = [build_core(settings) for _ in range(SERVERS)]
    found: dict[str, list[tuple[str, object]]] = {}

    async def work(index: int) -> None:
        async with Client(build(settings, core=cores[index])) as client:
            found[f"server{index}"] = await rounds_of_work(client, f"server{index}")

    async with anyio.create_task_group() as group:
        for index in range(SERVERS):
            group.start_soon(work, index)

    one_round = [("CT-GATE-S-001", None)] + [("WA-WRITE-S-001", None)] * 3 + [("CT-GATE-S-002", None)]
    assert found == {f"server{index}": one_round * ROUNDS for index in range(SERVERS)}
    states = {entry.state for entry in cores[0].services.journal.entries(None)}
    assert states == {"done"}
    problems, rows = verified(settings)
    assert problems == []
    assert rows >= SERVERS * ROUNDS * 5  # each open's, write's and close's own row at least
