"""`ck3raven init` writes configs that serve: a scratch sample world, or what it finds on this machine;
with no config at all, `serve` refuses to start."""

import os
import subprocess
import sys
from pathlib import Path

from app.config import load
from app.setup import sample
from domain.vocabulary import RootCategory

CK3RAVEN = str(Path(sys.executable).with_name("ck3raven"))


def run(*args: str, home: Path) -> subprocess.CompletedProcess[str]:
    env = {"HOME": str(home), "PATH": os.environ.get("PATH", ""), "XDG_STATE_HOME": str(home / "xdg")}
    return subprocess.run(
        [CK3RAVEN, *args], capture_output=True, text=True, env=env, cwd=home, timeout=60, check=False
    )


def test_the_sample_config_serves_a_scratch_world_whose_repo_is_a_git_repository(tmp_path: Path):
    config = sample(tmp_path / "scratch")

    settings = load(config, cwd=tmp_path)

    assert settings.roots[RootCategory.ROOT_REPO] == (tmp_path / "scratch" / "world" / "repo").resolve()
    assert (settings.roots[RootCategory.ROOT_REPO] / ".git").is_dir()
    assert settings.state_dir == (tmp_path / "scratch" / "state").resolve()


def test_serve_without_any_config_exits_2_and_says_where_it_looked(tmp_path: Path):
    result = run("serve", home=tmp_path)

    assert result.returncode == 2
    assert "ck3raven init" in result.stderr
    assert "Traceback" not in result.stderr


def test_init_on_a_linux_home_with_a_steam_library_writes_a_config_that_serves(tmp_path: Path):
    steam = tmp_path / ".local" / "share" / "Steam"
    (steam / "steamapps" / "common" / "Crusader Kings III" / "game").mkdir(parents=True)
    (steam / "steamapps" / "workshop" / "content" / "1158310").mkdir(parents=True)
    (tmp_path / ".local" / "share" / "Paradox Interactive" / "Crusader Kings III").mkdir(parents=True)

    result = run("init", home=tmp_path)
    settings = load(tmp_path / ".ck3raven" / "config.toml", cwd=tmp_path)

    assert result.returncode == 0, result.stderr
    assert {RootCategory.ROOT_GAME, RootCategory.ROOT_STEAM, RootCategory.ROOT_USER_DOCS} <= set(
        settings.roots
    )


def test_serve_with_overlapping_roots_exits_2_naming_both(tmp_path: Path):
    (tmp_path / "repo" / "data").mkdir(parents=True)
    config = tmp_path / "config.toml"
    config.write_text('[roots]\nROOT_REPO = "repo"\nROOT_CK3RAVEN_DATA = "repo/data"\n', encoding="utf-8")

    result = run("serve", "--config", str(config), home=tmp_path)

    assert result.returncode == 2
    assert "ROOT_CK3RAVEN_DATA" in result.stderr
    assert "ROOT_REPO" in result.stderr
