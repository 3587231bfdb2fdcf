"""The content index built in a child process of the server (app.index_child): the child fills the index
the server then answers from (at start, and after a playset switch) parsing in an interpreter of its own,
an index that cannot be kept is no build, a child that fails is reported with its own stack trace, a
child never outlives a killed server, nothing a child prints reaches the protocol, and a served server
builds the index at start, read-only or not."""

import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import anyio
import pytest
from attrs import evolve
from fastmcp import Client

from app.bootstrap import build, build_core
from app.config import Settings
from app.index_child import ChildFailed, build_in_child
from domain.ck3 import content_index
from domain.vocabulary import RootCategory
from tests.e2e.stdio import envelope, stdio_client, write_config
from tests.e2e.test_content_index import call, index_world

pytestmark = pytest.mark.anyio


@pytest.fixture
def world(tmp_path: Path) -> Settings:
    return index_world(tmp_path)


def _index(settings: Settings) -> Path:
    assert settings.state_dir is not None
    return settings.state_dir / "content-index.db"


async def test_a_build_in_a_child_process_fills_the_index_the_server_answers_from(
    world: Settings, monkeypatch: pytest.MonkeyPatch
):
    def not_here(*_: Any) -> None:
        raise AssertionError("the index was built in the server's own interpreter")

    monkeypatch.setattr(content_index, "refresh", not_here)  # a spawned child imports its own
    core = build_core(world)

    done = build_in_child(world, _index(world), core.defaults.view, "Brave")
    async with Client(build(world, core=core)) as client:
        status = await call(client, "ck3_playset", {"command": "index"})

    assert done is not None
    assert done.playset == "Brave"
    assert done.parsed >= 5  # the game's three script and localisation files, and the mods'
    assert (status["code"], status["data"]["count"]) == ("MCP-DB-S-001", done.files)


async def test_a_playset_switch_of_a_server_rebuilds_the_index_in_a_child_process(
    world: Settings, monkeypatch: pytest.MonkeyPatch
):
    def not_here(*_: Any) -> None:
        raise AssertionError("the index was built in the server's own interpreter")

    monkeypatch.setattr(content_index, "refresh", not_here)
    core = build_core(world, index_in_child=True)
    async with Client(build(world, core=core)) as client:
        switched = await call(client, "ck3_playset", {"command": "switch", "name": "Brave"})
        deadline = time.monotonic() + 120  # a guard against a hang, not a measure of speed
        status = await call(client, "ck3_playset", {"command": "index"})
        while status["reply_type"] != "S" and time.monotonic() < deadline:
            await anyio.sleep(0.1)
            status = await call(client, "ck3_playset", {"command": "index"})

    assert switched["code"] == "MCP-CFG-S-004"
    assert (status["code"], status["data"]["name"]) == ("MCP-DB-S-001", "Brave")
    assert status["data"]["parsed"] >= 5


async def test_the_server_answers_pwd_while_a_build_is_in_progress(world: Settings):
    core = build_core(world, index_in_child=True)
    held = sqlite3.connect(_index(world), isolation_level=None)
    held.execute("BEGIN IMMEDIATE")  # the build parses, then waits here to store: it stays in progress
    try:
        async with Client(build(world, core=core)) as client:
            switched = await call(client, "ck3_playset", {"command": "switch", "name": "Brave"})
            answers = [await call(client, "ck3_dir", {"command": "pwd"}) for _ in range(20)]
            during = await call(client, "ck3_playset", {"command": "index"})
            held.execute("ROLLBACK")
            deadline = time.monotonic() + 120  # a guard against a hang, not a measure of speed
            status = await call(client, "ck3_playset", {"command": "index"})
            while status["reply_type"] != "S" and time.monotonic() < deadline:
                await anyio.sleep(0.1)
                status = await call(client, "ck3_playset", {"command": "index"})
    finally:
        held.close()

    assert switched["code"] == "MCP-CFG-S-004"
    assert {answer["reply_type"] for answer in answers} == {"S"}
    assert during["code"] == "MCP-DB-I-001"  # not built yet while pwd was answered
    assert (status["code"], status["data"]["name"]) == ("MCP-DB-S-001", "Brave")


def _descendants(parent: int) -> dict[int, str]:
    """pid -> command line of every living process below `parent`."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and _running(int(entry.name)):
            try:
                fields = (entry / "stat").read_text(encoding="ascii").rsplit(")", 1)[1].split()
            except OSError:
                continue
            children.setdefault(int(fields[1]), []).append(int(entry.name))
    found: dict[int, str] = {}
    pending = list(children.get(parent, []))
    while pending:
        pid = pending.pop()
        try:
            found[pid] = (Path(f"/proc/{pid}/cmdline").read_bytes()).decode(errors="replace")
        except OSError:
            continue
        pending += children.get(pid, [])
    return found


def _nice(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text(encoding="ascii").rsplit(")", 1)[1].split()[16])


async def test_the_builder_and_its_parsing_workers_run_at_a_lower_priority_than_the_server(world: Settings):
    core = build_core(world, index_in_child=True)
    held = sqlite3.connect(_index(world), isolation_level=None)
    held.execute("BEGIN IMMEDIATE")  # the build parses, then waits here to store: it stays in progress
    try:
        before = set(_descendants(os.getpid()))  # what earlier tests left running is not this build
        async with Client(build(world, core=core)) as client:
            await call(client, "ck3_playset", {"command": "switch", "name": "Brave"})
            deadline = time.monotonic() + 60  # a guard against a hang, not a measure of speed
            building: dict[int, str] = {}
            while len(building) < 2 and time.monotonic() < deadline:
                await anyio.sleep(0.1)
                spawned = [
                    pid
                    for pid, line in _descendants(os.getpid()).items()
                    if "spawn_main" in line and pid not in before
                ]
                building = {p: line for s in spawned for p, line in {s: "", **_descendants(s)}.items()}
            niceness = {pid: _nice(pid) for pid in building}
            held.execute("ROLLBACK")
    finally:
        held.close()

    assert len(niceness) >= 2
    assert min(niceness.values()) >= os.nice(0) + 10


def test_an_index_that_cannot_be_kept_is_no_build(world: Settings, tmp_path: Path):
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("a file where the index's folder would be", encoding="utf-8")
    view = build_core(world).defaults.view

    assert build_in_child(world, blocked / "content-index.db", view, "Brave") is None


def test_a_child_that_fails_is_reported_with_its_stack_trace(world: Settings, tmp_path: Path):
    view = build_core(world).defaults.view
    a_file = tmp_path / "a-file"
    a_file.write_text("not a folder", encoding="utf-8")
    broken = evolve(world, roots={**world.roots, RootCategory.ROOT_GAME: a_file})

    with pytest.raises(ChildFailed, match="Traceback"):
        build_in_child(broken, _index(world), view, "Brave")


ORPHANED = """
import multiprocessing, os, time
from app.index_child import watch_parent

def child(parent):
    watch_parent(parent)
    time.sleep(600)

if __name__ == "__main__":
    process = multiprocessing.get_context("spawn").Process(target=child, args=(os.getpid(),), daemon=True)
    process.start()
    print(process.pid, flush=True)
    time.sleep(600)
"""


def _running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text(encoding="ascii").rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"  # a zombie has ended; only its entry waits to be reaped


def test_a_child_ends_when_the_server_that_started_it_is_killed(tmp_path: Path):
    script = tmp_path / "server.py"
    script.write_text(ORPHANED, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    server = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, env=env, text=True)
    assert server.stdout is not None
    child = int(server.stdout.readline())
    assert _running(child)

    server.kill()  # no exit handler runs: only the child's own watch can end it
    server.wait()
    server.stdout.close()
    deadline = time.monotonic() + 60  # a guard against a hang, not a measure of speed
    while _running(child) and time.monotonic() < deadline:
        time.sleep(0.1)

    assert not _running(child)


def test_what_a_child_prints_goes_to_its_standard_error_never_to_the_protocol():
    code = "from app.index_child import _off_the_protocol; _off_the_protocol(); print('from the child')"
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, env=env, text=True, check=True)

    assert (done.stdout, done.stderr) == ("", "from the child\n")


@pytest.mark.parametrize("flags", [(), ("--read-only",)], ids=["serving", "read-only"])
async def test_a_served_server_builds_the_index_at_start_read_only_too(
    tmp_path: Path, flags: tuple[str, ...]
):
    repo, game = tmp_path / "repo", tmp_path / "game"
    repo.mkdir()
    (game / "common" / "traits").mkdir(parents=True)
    (game / "common" / "traits" / "00_traits.txt").write_text("brave = {\n}\n", encoding="utf-8")
    config = write_config(tmp_path, roots={"ROOT_REPO": repo, "ROOT_GAME": game})

    async with stdio_client(config, "auto", *flags) as client:
        deadline = time.monotonic() + 120  # a guard against a hang, not a measure of speed
        status = envelope(await client.call_tool("ck3_playset", {"command": "index"}))
        while status["reply_type"] != "S" and time.monotonic() < deadline:
            await anyio.sleep(0.2)
            status = envelope(await client.call_tool("ck3_playset", {"command": "index"}))

    assert (status["code"], status["data"]["parsed"]) == ("MCP-DB-S-001", 1)
