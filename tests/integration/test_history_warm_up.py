"""Warming the history at start, as the composition root wires it, on a real repository and state folder."""

import threading
from pathlib import Path

from dulwich.repo import Repo
from structlog.testing import capture_logs

from app.bootstrap import build_core, warm_in_background
from app.config import Settings
from domain.vocabulary import Mode, RootCategory
from tests.worlds import small_git_repo


def settings_over(tmp_path: Path) -> tuple[Settings, Path]:
    repo, data = small_git_repo(tmp_path)
    roots = {RootCategory.ROOT_REPO: repo, RootCategory.ROOT_CK3RAVEN_DATA: data}
    return Settings("test", roots, RootCategory.ROOT_REPO, Mode.CK3RAVEN_DEV), repo


def warm_and_wait(settings: Settings) -> None:
    core = build_core(settings)
    warm_in_background(core, after=0)
    for thread in threading.enumerate():
        if thread.name == "ck3raven-warm":
            thread.join(timeout=60)


def test_warming_at_start_keeps_heads_flattened_tree_in_the_state_directory(tmp_path: Path, state_home: Path):
    settings, repo = settings_over(tmp_path)
    with Repo(str(repo)) as opened:
        head = opened.head().decode()

    warm_and_wait(settings)

    assert [p.name for p in (state_home / "git-trees").iterdir()] == [head + ".trees"]


def test_warming_runs_on_a_daemon_thread_of_its_own(tmp_path: Path):
    settings, _ = settings_over(tmp_path)
    core = build_core(settings)

    warm_in_background(core, after=0)

    warming = [t for t in threading.enumerate() if t.name == "ck3raven-warm"]
    assert all(t.daemon for t in warming)
    for thread in warming:
        thread.join(timeout=60)


def test_a_warm_up_that_fails_only_logs_from_its_thread(tmp_path: Path):
    """Nothing escapes the thread (pytest would turn an exception there into an error)."""
    settings, repo = settings_over(tmp_path)
    (repo / ".git" / "index").write_bytes(b"DIRC broken")

    with capture_logs() as logs:
        warm_and_wait(settings)

    assert "history.warm_failed" in [entry["event"] for entry in logs]
