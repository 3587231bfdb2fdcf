"""Faults of the state and of the repositories: `doctor` exits non-zero naming each in one line, `serve` stops
in one line where it cannot work, nothing ends in a traceback, and a full state disk refuses a change with
nothing changed."""

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from fastmcp import Client

from adapters.audit_anchors import Anchors
from adapters.log_setup import configure_logging
from adapters.sqlite_state import SqliteState
from app.bootstrap import build, build_core
from app.cli import main
from app.config import load
from tests.e2e.stdio import CK3RAVEN, write_config
from tests.worlds import small_git_repo

pytestmark = pytest.mark.anyio
OPEN = {
    "command": "open",
    "root_category": "ROOT_REPO",
    "intent": "Work",
    "work_declaration": "Change one file",
    "operations": ["WRITE"],
    "targets": [{"path": "ROOT_REPO:/src/a.py", "edit_kind": "modify"}],
}


@pytest.fixture
def config(tmp_path: Path) -> Path:
    repo, data = small_git_repo(tmp_path)
    return write_config(tmp_path, roots={"ROOT_REPO": repo, "ROOT_CK3RAVEN_DATA": data})


def doctor(config: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, list[str]]:
    status = main(["doctor", "--config", str(config)])
    shown = capsys.readouterr()
    assert "Traceback" not in shown.out + shown.err
    return status, [line for line in shown.out.splitlines() if line.startswith("PROBLEM")]


def serve(config: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [CK3RAVEN, "serve", "--config", str(config)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        stdin=subprocess.DEVNULL,
    )


async def call(client: Client, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    result = await client.call_tool(tool, args, raise_on_error=False)
    return dict(result.structured_content)


@pytest.fixture
def mounted(tmp_path: Path) -> Iterator[Path]:
    """A small tmpfs of its own (1 MiB), where this machine lets the test mount one."""
    point = tmp_path / "small"
    point.mkdir()
    made = subprocess.run(
        ["/usr/bin/mount", "-t", "tmpfs", "-o", "size=1m,mode=0700", "tmpfs", str(point)],
        capture_output=True,
        check=False,
    )
    if made.returncode != 0:
        pytest.skip("no tmpfs can be mounted here (needs root)")
    try:
        yield point
    finally:
        subprocess.run(["/usr/bin/umount", "-l", str(point)], capture_output=True, check=False)


def fill(path: Path) -> None:
    """Write zeros to `path` until the disk is full."""
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        with pytest.raises(OSError, match="No space left"):
            _write_for_ever(descriptor)
    finally:
        os.close(descriptor)


def _write_for_ever(descriptor: int) -> None:
    while os.write(descriptor, b"\0" * 4096):
        pass


def test_a_healthy_setup_passes_doctor(config: Path, capsys):
    assert doctor(config, capsys) == (0, [])


def test_a_garbage_state_database_fails_doctor_and_serve_in_one_line_each(config: Path, capsys):
    state = config.parent / "state"
    state.mkdir(mode=0o700)
    (state / "ck3raven.db").write_bytes(b"garbage, not a database\n" * 200)

    status, problems = doctor(config, capsys)
    served = serve(config)

    assert status == 1
    assert problems[0].endswith("ck3raven.db cannot be read: it is damaged or not a database")
    assert served.returncode == 2
    said = [line for line in served.stderr.splitlines() if not line.startswith("{")]  # the rest: JSON log
    database = config.parent / "state" / "ck3raven.db"
    assert said == [f"ck3raven: cannot start: the state database {database} cannot be opened"]
    assert "Traceback" not in served.stderr


def test_a_corrupt_head_fails_doctor_naming_the_repository(config: Path, capsys):
    (config.parent / "repo" / ".git" / "HEAD").write_text("garbage\n")

    status, problems = doctor(config, capsys)

    assert status == 1
    assert problems == ["PROBLEM the git repository of ROOT_REPO:/ cannot be read (HEAD or index damaged)"]


def test_a_removed_git_under_an_open_contract_fails_doctor(config: Path, capsys):
    settings = load(config, cwd=config.parent)
    stored = SqliteState(config.parent / "state" / "ck3raven.db")

    async def opening() -> dict[str, Any]:
        async with Client(build(settings, core=build_core(settings, stored=stored))) as client:
            return await call(client, "ck3_contract", OPEN)

    opened = anyio.run(opening)
    stored.close()
    shutil.rmtree(config.parent / "repo" / ".git")

    status, problems = doctor(config, capsys)

    assert status == 1
    contract_id = opened["data"]["contract_id"]
    assert problems == [
        f"PROBLEM the git repository at ROOT_REPO:/ (contract {contract_id} began on it) is gone"
    ]


def test_a_read_only_state_directory_fails_doctor_and_serve_in_one_line(config: Path, mounted: Path, capsys):
    text = config.read_text().replace(str(config.parent / "state"), str(mounted))
    config.write_text(text)
    subprocess.run(["/usr/bin/mount", "-o", "remount,ro", str(mounted)], check=True)

    status, problems = doctor(config, capsys)
    served = serve(config)

    assert status == 1
    assert problems == [f"PROBLEM not writable, so `serve` stops: {mounted}"]
    assert served.returncode == 2
    assert (
        served.stderr.strip()
        == f"ck3raven: the state directory {mounted} cannot be used (Read-only file system)"
    )


async def test_a_full_state_disk_refuses_a_change_and_changes_nothing(config: Path, mounted: Path):
    settings = load(config, cwd=config.parent)
    target = config.parent / "repo" / "src" / "a.py"
    before = "a = 1\n" * 60_000  # 360 KB: its journal entry keeps it, and the disk has no room for it
    target.write_text(before)
    stored = SqliteState(mounted / "ck3raven.db")
    async with Client(build(settings, core=build_core(settings, stored=stored))) as client:
        await call(client, "ck3_contract", OPEN)
        filler = mounted / "filler"
        fill(filler)
        written = await call(
            client, "ck3_file", {"command": "write", "path": "ROOT_REPO:/src/a.py", "content": "b = 2\n"}
        )

    assert written["reply_type"] == "E"
    assert target.read_text() == before
    filler.unlink()
    assert [entry.kind for entry in stored.journal.entries()] == []


def test_a_deleted_state_database_fails_doctor_and_is_reported_at_start(config: Path, capsys):
    state = config.parent / "state"
    stored = SqliteState(state / "ck3raven.db")
    from tests.integration.test_state_store import entry

    stored.audit.append(entry("A-1"))
    sink = configure_logging(state / "logs" / "ck3raven.log")
    Anchors(stored.audit, "srv-test").start()  # a server ran: its log anchored the row
    sink.close()
    stored.close()
    for path in state.glob("ck3raven.db*"):
        path.unlink()

    status, problems = doctor(config, capsys)
    served = serve(config)

    assert status == 1
    assert (
        "PROBLEM audit log: the state database is missing: the log anchored 1 audit rows written to it"
        in problems
    )
    assert "the state database was missing" in served.stderr
    assert served.returncode == 0


def _damage(repo: Path, how: str) -> None:
    if how == "head":
        (repo / ".git" / "HEAD").write_text("garbage\n")
    else:  # every object's bytes replaced
        for found in (repo / ".git" / "objects").rglob("*"):
            if found.is_file():
                found.chmod(0o600)
                found.write_bytes(b"xx")


@pytest.mark.parametrize("how", ["head", "objects"])
async def test_a_damaged_repository_answers_the_history_code_never_a_generic_failure(config: Path, how: str):
    settings = load(config, cwd=config.parent)
    _damage(config.parent / "repo", how)
    async with Client(build(settings, core=build_core(settings))) as client:
        codes = [
            (await call(client, tool, args))["code"]
            for tool, args in (
                ("ck3_git", {"command": "status"}),
                ("ck3_git", {"command": "log"}),
                ("ck3_commit", {"command": "commit", "message": "m"}),
            )
        ]

    assert codes == ["CT-GATE-E-001"] * 3
