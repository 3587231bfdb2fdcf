"""Where the server keeps its state (SPEC §4, §13): the configured state directory, else
$XDG_STATE_HOME/ck3raven, else ~/.local/state/ck3raven; there, the state store is SQLite in WAL mode, so
the servers sharing the directory read while one writes."""

import sqlite3
from pathlib import Path

import pytest
from attrs import evolve

from app.bootstrap import build_core
from app.config import Settings
from domain.vocabulary import Mode, RootCategory


def settings_over(tmp_path: Path) -> Settings:
    (tmp_path / "repo").mkdir()
    return Settings(
        "test", {RootCategory.ROOT_REPO: tmp_path / "repo"}, RootCategory.ROOT_REPO, Mode.CK3RAVEN_DEV
    )


def test_without_a_configured_state_directory_the_state_lives_under_xdg_state_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))

    build_core(settings_over(tmp_path))

    assert (tmp_path / "xdg" / "ck3raven" / "ck3raven.db").is_file()
    assert not (tmp_path / "home").exists()


def test_without_xdg_state_home_the_state_lives_under_the_users_local_state(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.delenv("XDG_STATE_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))

    build_core(settings_over(tmp_path))

    assert (tmp_path / "home" / ".local" / "state" / "ck3raven" / "ck3raven.db").is_file()


def test_a_configured_state_directory_wins_over_the_defaults(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg"))

    build_core(evolve(settings_over(tmp_path), state_dir=tmp_path / "kept"))

    assert (tmp_path / "kept" / "ck3raven.db").is_file()
    assert not (tmp_path / "xdg").exists()


def test_the_state_store_is_sqlite_in_wal_mode(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg"))
    build_core(settings_over(tmp_path))

    with sqlite3.connect(tmp_path / "xdg" / "ck3raven" / "ck3raven.db") as other:
        mode = other.execute("PRAGMA journal_mode").fetchone()[0]

    assert mode == "wal"
