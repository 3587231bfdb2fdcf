"""`ck3raven init` on a Flatpak Steam, in both of its layouts: the launcher names local mods by the path its
sandbox sees (`$HOME/.local/share/Paradox Interactive/...` inside the sandbox), and each is kept, found in
the documents folder init found; `doctor` names a mod of the active playset the import left out."""

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from app.config import load
from domain.vocabulary import RootCategory

CK3RAVEN = str(Path(sys.executable).with_name("ck3raven"))
WORLD = Path(__file__).resolve().parents[2] / "examples" / "world"
FLATPAK = Path(".var", "app", "com.valvesoftware.Steam")
PARADOX = Path("Paradox Interactive", "Crusader Kings III")
LAYOUTS = {"flatpak": FLATPAK / ".local" / "share", "flatpak-older": FLATPAK / "data"}


def _run(*args: str, home: Path) -> subprocess.CompletedProcess[str]:
    env = {"HOME": str(home), "PATH": os.environ.get("PATH", ""), "XDG_STATE_HOME": str(home / "xdg")}
    return subprocess.run(
        [CK3RAVEN, *args], capture_output=True, text=True, env=env, cwd=home, timeout=120, check=False
    )


def _flatpak_home(home: Path, layout: str) -> Path:
    """A home where a Flatpak Steam of `layout` keeps the game, the workshop and the documents folder;
    the launcher names Local Fix by the path its sandbox sees. The documents folder is returned."""
    share = home / LAYOUTS[layout]
    steam = share / "Steam" / "steamapps"
    shutil.copytree(WORLD / "game", steam / "common" / "Crusader Kings III" / "game")
    shutil.copytree(WORLD / "steam", steam / "workshop" / "content" / "1158310")
    documents = share / PARADOX
    shutil.copytree(WORLD / "documents", documents)
    seen = home / ".local" / "share" / PARADOX / "mod" / "LocalFix"  # as the sandbox sees it
    registry = documents / "mod" / "LocalFix.mod"
    registry.write_text(registry.read_text().replace('path="mod/LocalFix"', f'path="{seen}"'))
    with sqlite3.connect(documents / "launcher-v2.sqlite") as db:
        db.execute("update mods set dirPath = ? where id = 'm-local'", (str(seen),))
    return documents


def _active_playset(home: Path) -> dict[str, object]:
    settings = load(home / ".ck3raven" / "config.toml", cwd=home)
    data = settings.roots[RootCategory.ROOT_CK3RAVEN_DATA]
    files = sorted((data / "playsets").glob("*.json"))
    named = [json.loads(file.read_text()) for file in files]
    return next(playset for playset in named if playset["name"] == settings.active_playset)


@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_init_on_a_flatpak_steam_keeps_every_local_mod_the_launcher_names_by_its_sandbox_path(
    tmp_path: Path, layout: str
):
    _flatpak_home(tmp_path, layout)

    result = _run("init", home=tmp_path)

    assert result.returncode == 0, result.stderr
    assert "left out" not in result.stdout + result.stderr
    mods = [mod["name"] for mod in _active_playset(tmp_path)["mods"]]
    assert mods == ["Better Traits", "More Events", "Local Fix"]


def test_doctor_names_a_mod_of_the_active_playset_that_the_import_left_out(tmp_path: Path):
    documents = _flatpak_home(tmp_path, "flatpak")
    with sqlite3.connect(documents / "launcher-v2.sqlite") as db:
        db.execute(
            "insert into mods (id, displayName, name, source, dirPath, status)"
            " values ('m-gone', 'Gone Mod', 'Gone Mod', 'local', '/opt/elsewhere/GoneMod', 'ready_to_play')"
        )
        db.execute(
            "insert into playsets_mods (playsetId, modId, enabled, position)"
            " values ('p-sample', 'm-gone', 1, '0000000003')"
        )
    assert _run("init", home=tmp_path).returncode == 0

    result = _run("doctor", "--config", str(tmp_path / ".ck3raven" / "config.toml"), home=tmp_path)

    named = [line for line in result.stdout.splitlines() if "Gone Mod" in line]
    assert len(named) == 1
    assert named[0].startswith("PROBLEM")
    assert "Local Fix" not in result.stdout
