"""Temporary files of interrupted writes (where there are no anonymous files) are never seen by an agent,
never counted as its work, and swept once they are stale."""

import os
import time
from pathlib import Path

from adapters.local_files import LocalFiles
from domain.vocabulary import Mode, RootCategory
from domain.world.adapter import WorldAdapter
from domain.world.view import WorldView

TEMP = ".0123456789abcdef.ck3raven-tmp"


def stale(path: Path) -> Path:
    path.write_bytes(b"half a write")
    old = time.time() - 3600
    os.utime(path, (old, old))
    return path


def test_a_sweep_removes_stale_temporary_files_and_nothing_else(tmp_path: Path):
    (tmp_path / "deep" / "er").mkdir(parents=True)
    old = stale(tmp_path / "deep" / "er" / TEMP)
    fresh = tmp_path / ".fedcba9876543210.ck3raven-tmp"
    fresh.write_bytes(b"a write in flight")
    lookalike = stale(tmp_path / "deep" / "notes.ck3raven-tmp")

    removed = LocalFiles({"ROOT_REPO": tmp_path}).sweep()

    assert removed == 1
    assert not old.exists()
    assert fresh.exists()
    assert lookalike.exists()


def test_an_agent_never_sees_a_temporary_file(tmp_path: Path):
    stale(tmp_path / TEMP)
    (tmp_path / "a.txt").write_text("a", encoding="utf-8")
    world = WorldAdapter(
        LocalFiles({"ROOT_REPO": tmp_path}), WorldView(Mode.CK3RAVEN_DEV, frozenset({RootCategory.ROOT_REPO}))
    )
    _, top = world.resolve("ROOT_REPO:/", RootCategory.ROOT_REPO)
    assert top is not None

    listed = [entry.name for entry in world.list_dir(top)]
    reply, _ = world.resolve(f"ROOT_REPO:/{TEMP}", RootCategory.ROOT_REPO)

    assert listed == ["a.txt"]
    assert reply.code == "WA-RES-I-001"


def test_the_start_up_sweep_removes_stale_temporary_files_on_a_thread_of_its_own_where_writes_happen(
    tmp_path: Path,
):
    import threading

    from app.bootstrap import build_core, sweep_in_background
    from app.config import Settings

    (tmp_path / "repo").mkdir()
    (tmp_path / "game").mkdir()
    old = stale(tmp_path / "repo" / TEMP)
    never_written = stale(tmp_path / "game" / TEMP)  # no write reaches the game: its tree is not walked
    roots = {RootCategory.ROOT_REPO: tmp_path / "repo", RootCategory.ROOT_GAME: tmp_path / "game"}
    settings = Settings("t", roots, RootCategory.ROOT_REPO, state_dir=tmp_path / "s")

    sweep_in_background(build_core(settings), after=0)
    for thread in [t for t in threading.enumerate() if t.name == "ck3raven-sweep"]:
        thread.join(timeout=30)  # it may have finished already

    assert not old.exists()
    assert never_written.exists()
