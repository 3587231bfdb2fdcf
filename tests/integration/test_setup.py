"""`ck3raven init` writes configs that serve: a scratch sample world, or what it finds on this machine;
with no config at all, `serve` refuses to start."""

import os
import subprocess
import sys
from pathlib import Path

from app.config import load
from app.setup import placement_warnings, sample
from domain.vocabulary import Mode, RootCategory

CK3RAVEN = str(Path(sys.executable).with_name("ck3raven"))


def run(*args: str, home: Path, **environ: str) -> subprocess.CompletedProcess[str]:
    env = {
        "HOME": str(home),
        "PATH": os.environ.get("PATH", ""),
        "XDG_STATE_HOME": str(home / "xdg"),
        **environ,
    }
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


def drive_at(folder: Path) -> str:
    """A mount table in which `folder` is drive C: as WSL2 mounts it."""
    return (
        "22 1 8:32 / / rw,relatime - ext4 /dev/sdc rw\n"
        f"63 22 0:58 / {folder} rw,noatime - 9p C:\\134 rw,dirsync,aname=drvfs;path=C:\\;symlinkroot=/mnt/\n"
    )


def test_a_state_directory_on_a_windows_drive_is_warned_of(tmp_path: Path):
    warnings = placement_warnings({}, tmp_path / "drive" / "state", drive_at(tmp_path / "drive"))

    assert len(warnings) == 1
    assert warnings[0].startswith(
        f"the state directory {tmp_path / 'drive' / 'state'} lies on the Windows drive"
    )


def test_a_root_that_is_a_git_repository_on_a_windows_drive_is_warned_of(tmp_path: Path):
    (tmp_path / "drive" / "repo" / ".git").mkdir(parents=True)
    (tmp_path / "drive" / "game").mkdir()
    roots = {"ROOT_REPO": tmp_path / "drive" / "repo", "ROOT_GAME": tmp_path / "drive" / "game"}

    warnings = placement_warnings(roots, tmp_path / "state", drive_at(tmp_path / "drive"))

    assert [text.split(" ", 1)[0] for text in warnings] == ["ROOT_REPO"]
    assert "is a git repository on the Windows drive" in warnings[0]


def test_nothing_is_warned_of_where_no_folder_lies_on_a_windows_drive(tmp_path: Path):
    (tmp_path / "repo" / ".git").mkdir(parents=True)

    warnings = placement_warnings(
        {"ROOT_REPO": tmp_path / "repo"}, tmp_path / "state", drive_at(Path("/mnt/c"))
    )

    assert warnings == []


def test_init_under_wsl_finds_the_windows_side_and_prints_the_command_a_windows_client_starts(tmp_path: Path):
    drive = tmp_path / "mnt" / "c"
    steam = drive / "Program Files (x86)" / "Steam" / "steamapps"
    (steam / "common" / "Crusader Kings III" / "game").mkdir(parents=True)
    (steam / "workshop" / "content" / "1158310").mkdir(parents=True)
    docs = drive / "Users" / "ada" / "OneDrive" / "Documents" / "Paradox Interactive" / "Crusader Kings III"
    docs.mkdir(parents=True)
    home = tmp_path / "home"
    home.mkdir()

    result = run("init", home=home, WSL_DISTRO_NAME="Ubuntu-24.04", CK3RAVEN_WINDOWS_ROOT=str(drive))
    config = home / ".ck3raven" / "config.toml"
    settings = load(config, cwd=home)

    assert result.returncode == 0, result.stderr
    assert settings.roots[RootCategory.ROOT_USER_DOCS] == docs
    assert settings.roots[RootCategory.ROOT_GAME] == steam / "common" / "Crusader Kings III" / "game"
    assert f"wsl.exe -d Ubuntu-24.04 -e {CK3RAVEN} serve --config {config}" in result.stdout
    assert drive not in settings.state_path({}).parents


def test_init_writes_the_ck3lens_mode_and_the_launchers_active_playset_when_it_finds_ck3(tmp_path: Path):
    import shutil

    world = Path(__file__).resolve().parents[2] / "examples" / "world"
    steam = tmp_path / ".local" / "share" / "Steam"
    shutil.copytree(world / "game", steam / "steamapps" / "common" / "Crusader Kings III" / "game")
    shutil.copytree(world / "steam", steam / "steamapps" / "workshop" / "content" / "1158310")
    shutil.copytree(
        world / "documents", tmp_path / ".local" / "share" / "Paradox Interactive" / "Crusader Kings III"
    )

    result = run("init", home=tmp_path)
    settings = load(tmp_path / ".ck3raven" / "config.toml", cwd=tmp_path)

    assert result.returncode == 0, result.stderr
    assert (settings.mode, settings.active_playset) == (Mode.CK3LENS, "Sample Playset")


def test_init_finding_no_game_exits_non_zero_naming_each_root_and_where_it_looked(tmp_path: Path):
    result = run("init", home=tmp_path)

    assert result.returncode != 0
    assert not (tmp_path / ".ck3raven" / "config.toml").exists()
    for root in ("ROOT_GAME", "ROOT_STEAM", "ROOT_USER_DOCS"):
        assert root in result.stdout + result.stderr
    assert str(tmp_path / ".local" / "share") in result.stderr
    assert "--game" in result.stderr


def test_init_takes_the_folders_it_cannot_find_from_the_command_line(tmp_path: Path):
    game, docs, workshop = (tmp_path / "g", tmp_path / "d", tmp_path / "w")
    for made in (game, docs, workshop):
        made.mkdir()

    result = run(
        "init", "--game", str(game), "--documents", str(docs), "--steam", str(workshop), home=tmp_path
    )
    settings = load(tmp_path / ".ck3raven" / "config.toml", cwd=tmp_path)

    assert result.returncode == 0, result.stderr
    assert [
        settings.roots[r]
        for r in (RootCategory.ROOT_GAME, RootCategory.ROOT_USER_DOCS, RootCategory.ROOT_STEAM)
    ] == [
        game,
        docs,
        workshop,
    ]
