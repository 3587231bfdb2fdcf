"""Test worlds: the same small CK3-shaped world, in memory or copied from examples/world to disk."""

import shutil
from pathlib import Path

from adapters.memory_files import SPECIAL, Link, MemoryFiles
from app.config import Settings
from domain.vocabulary import Mode, RootCategory
from domain.world.adapter import WorldAdapter
from domain.world.playsets import ModFolder
from domain.world.view import WorldView

SAMPLE = Path(__file__).resolve().parents[1] / "examples" / "world"
R = RootCategory

MODS = (
    ModFolder("Better Traits", "2217000001", R.ROOT_STEAM, ("2217000001",)),
    ModFolder("More Events", "2217000002", R.ROOT_STEAM, ("2217000002",)),
    ModFolder("Better", "2217000003", R.ROOT_STEAM, ("2217000003",)),
    ModFolder("Local Fix", None, R.ROOT_USER_DOCS, ("mod", "LocalFix")),
)


def memory_roots() -> dict[str, dict[str, object]]:
    return {
        "ROOT_GAME": {"common": {"traits": {"00_traits.txt": b"brave = {}"}}, "events": {}},
        "ROOT_STEAM": {
            "2217000001": {"common": {"traits": {"zz.txt": b"x"}}, "descriptor.mod": b"m"},
            "2217000002": {"events": {}},
            "2217000003": {"readme.txt": b"prefix of Better Traits by name"},
            "2217000099": {"secret.txt": b"not in playset"},
        },
        "ROOT_USER_DOCS": {
            "mod": {"LocalFix": {"common": {}}, "LocalFix-evil": {"x.txt": b"sibling"}, "Unused": {}},
            "launcher-v2.sqlite": b"sqlite",
            "pdx_settings.txt": b"hidden in ck3lens",
        },
        "ROOT_REPO": {"src": {"server.py": b"print()", "link": Link("/etc/passwd")}, "fifo": SPECIAL},
        "ROOT_CK3RAVEN_DATA": {"wip": {}, "playsets": {}, "state": {"contracts": {}}, "STATE2": {}},
    }


def memory_world(
    mode: Mode | None = Mode.CK3LENS, *, ignores_case: bool = False, mods: tuple[ModFolder, ...] = MODS
) -> WorldAdapter:
    """The small world in memory; with `ignores_case`, on a filesystem that ignores case."""
    files = MemoryFiles(memory_roots(), ignores_case=ignores_case)
    view = WorldView(mode, frozenset(RootCategory) - {R.ROOT_VSCODE}, mods)
    return WorldAdapter(files, view)


def sample_world_on_disk(tmp_path: Path, mode: Mode | None = Mode.CK3LENS) -> Settings:
    """A copy of examples/world under tmp_path and settings that serve it (repo: an empty folder)."""
    world = tmp_path / "world"
    shutil.copytree(SAMPLE, world, ignore=shutil.ignore_patterns("logs", "state", "wip", "artifacts"))
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "README.md").write_text("sample repo\n", encoding="utf-8")
    roots = {
        R.ROOT_REPO: repo,
        R.ROOT_GAME: world / "game",
        R.ROOT_STEAM: world / "steam",
        R.ROOT_USER_DOCS: world / "documents",
        R.ROOT_VSCODE: world / "vscode",
        R.ROOT_CK3RAVEN_DATA: world / "ck3raven_data",
    }
    return Settings("test", roots, R.ROOT_REPO, mode, "Sample Playset")


def small_git_repo(base: Path) -> tuple[Path, Path]:
    """A git repository `base/repo` with `src/a.py` ("a = 1") committed, and an empty `base/data` folder."""
    from dulwich import porcelain

    repo, data = base / "repo", base / "data"
    (repo / "src").mkdir(parents=True)
    data.mkdir()
    (repo / "src" / "a.py").write_text("a = 1\n", encoding="utf-8")
    porcelain.init(str(repo))
    porcelain.add(str(repo), paths=[str(repo / "src" / "a.py")])
    porcelain.commit(str(repo), message=b"first", author=b"T <t@x>", committer=b"T <t@x>")
    return repo, data
