"""`ck3raven init`: write a config from what is found on this machine, or a scratch copy of the sample world.

Nothing here runs at import; every function takes the places it works on. The written config is loaded back
before it is kept, so `init` never leaves a config that `serve` would refuse (overlapping roots included).
"""

import json
import shutil
from collections.abc import Mapping
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path, PurePath

from adapters.local_files import LocalFiles
from app import mounts
from app.config import ConfigError, load
from ports.errors import PortError

# An installed wheel carries the sample world inside this package, `ck3raven.app` there (see setup.py: no
# top-level name of its own in site-packages); a checkout, editable installs included, has it in
# examples/world.
_PACKAGE = __name__.rpartition(".")[0]
_BUNDLED = "sample_world"
_CHECKOUT = Path(__file__).resolve().parent.parent / "examples" / "world"
# What a server run on the world directly leaves in it (git ignores these): never part of a scratch copy.
_LEFTOVERS = {("ck3raven_data", name) for name in ("logs", "state", "wip", "artifacts")}
_SAMPLE_ROOTS = {
    "ROOT_REPO": "repo",
    "ROOT_GAME": "game",
    "ROOT_STEAM": "steam",
    "ROOT_USER_DOCS": "documents",
    "ROOT_VSCODE": "vscode",
    "ROOT_CK3RAVEN_DATA": "ck3raven_data",
}


def config_text(roots: Mapping[str, Path], *, state_dir: Path, mode: str | None, playset: str | None) -> str:
    """A config file's text for these roots (host paths: only the operator ever sees them)."""
    lines = [f"mode = {json.dumps(mode)}"] if mode else []
    lines += ['home = "ROOT_REPO"' if "ROOT_REPO" in roots else f"home = {json.dumps(next(iter(roots)))}"]
    lines += [f"state_dir = {json.dumps(str(state_dir))}", "", "[roots]"]
    lines += [f"{name} = {json.dumps(str(path))}" for name, path in roots.items()]
    if playset:
        lines += ["", "[playset]", f"active = {json.dumps(playset)}"]
    return "\n".join(lines) + "\n"


def repository_above(folder: Path) -> Path | None:
    """The top of a git repository that holds `folder` from above (`folder` itself is no repository's
    top), or None. Such a repository is never the root's: its history is not the root's to commit to."""
    if (folder / ".git").exists():
        return None
    return next((parent for parent in folder.parents if (parent / ".git").exists()), None)


def repository_warning(roots: Mapping[str, Path]) -> str | None:
    """What `init` and `doctor` say when ROOT_REPO lies below its repository's top."""
    repo = roots.get("ROOT_REPO")
    top = repository_above(Path(repo)) if repo is not None else None
    if top is None:
        return None
    return (
        f"ROOT_REPO {repo} lies inside the git repository at {top}: that repository is not ROOT_REPO's, so "
        "ck3_git and ck3_commit answer 'no repository' there (close still sees every change); configure the "
        "repository's top as ROOT_REPO to use its history"
    )


def placement_warnings(roots: Mapping[str, Path], state: Path, mountinfo: str) -> list[str]:
    """What `init` and `doctor` say of folders on a Windows drive seen from WSL (`mountinfo`: the text of
    /proc/self/mountinfo): the state directory there, and a root whose git index is there."""
    table = mounts.parse(mountinfo)
    found = []
    drive = mounts.windows_drive(state.expanduser().resolve(), table)
    if drive is not None:
        found.append(
            f"the state directory {state} lies on the Windows drive at {drive.point}: its SQLite store's "
            "locking and the approval socket need the distro's own disk; set state_dir to a folder there "
            "(the default, ~/.local/state/ck3raven, is)"
        )
    for name, folder in roots.items():
        drive = mounts.windows_drive(folder.resolve(), table)
        if drive is not None and (folder / ".git").exists():
            found.append(
                f"{name} {folder} is a git repository on the Windows drive at {drive.point}: its index, and "
                "every status and close, read each file's details through the Windows file server; keep "
                "a repository you work in on the distro's own disk"
            )
    return found


def case_warnings(roots: Mapping[str, Path]) -> list[str]:
    """What `init` and `doctor` say of each root whose filesystem ignores case (probed as the server does)."""

    found = []
    for name, folder in roots.items():
        try:
            files = LocalFiles({name: folder})
        except PortError:
            continue  # a root that cannot be opened is reported where the config is checked
        if files.ignores_case(name):
            found.append(
                f"{name} {folder} lies on a filesystem that ignores case: each address must be spelled as "
                "its folders list it (another spelling is refused, naming that one), and each look-up there "
                "lists one folder per segment"
            )
        files.close()
    return found


def windows_clients(executable: PurePath, config: PurePath, distro: str | None) -> str:
    """What `init` prints under WSL: the command a client on Windows starts, through wsl.exe with no shell
    (nothing a login script prints can reach stdout before the protocol)."""
    line = f"wsl.exe -d {distro or '<distro>'} -e {executable} serve --config {config}"
    names = "" if distro else " (`wsl.exe -l -v` on Windows names the distributions)"
    return f"a client on Windows starts it with: {line}{names}; client configs: docs/windows.md"


def write_checked(config: Path, text: str) -> None:
    """Write `text` to `config` only if it loads as a valid configuration; ConfigError otherwise."""
    config.parent.mkdir(parents=True, exist_ok=True)
    candidate = config.with_name(config.name + ".new")
    candidate.write_text(text, encoding="utf-8")
    try:
        load(candidate, cwd=config.parent)
    except ConfigError:
        candidate.unlink()
        raise
    candidate.replace(config)


def sample_world() -> Traversable:
    """The sample world this ck3raven carries: in the installed package, else in the checkout it runs from."""
    bundled = resources.files(_PACKAGE) / _BUNDLED
    if bundled.is_dir():
        return bundled
    if _CHECKOUT.is_dir():
        return _CHECKOUT
    raise ConfigError(
        f"the sample world is missing: neither {bundled} nor {_CHECKOUT} exists; reinstall ck3raven"
    )


def sample(folder: Path) -> Path:
    """A scratch copy of the sample world in `folder` (copied once), its code repository made a git
    repository, and `folder/config.toml` serving it in ck3lens mode with its own state directory."""
    world = folder / "world"
    if not world.is_dir():  # copied whole or not at all: an interrupted copy is started over
        partial = folder / "world.partial"
        shutil.rmtree(partial, ignore_errors=True)
        _copy(sample_world(), partial)
        partial.rename(world)
    for name in _SAMPLE_ROOTS.values():
        (world / name).mkdir(parents=True, exist_ok=True)
    _make_repository(world / "repo")
    roots = {name: (world / sub).resolve() for name, sub in _SAMPLE_ROOTS.items()}
    config = folder / "config.toml"
    text = config_text(
        roots, state_dir=(folder / "state").resolve(), mode="ck3lens", playset="Sample Playset"
    )
    write_checked(config, text)
    return config


def _copy(source: Traversable, target: Path, at: tuple[str, ...] = ()) -> None:
    """Copy a resource folder, whether on disk or in a zip, into `target`; leftovers are skipped."""
    target.mkdir(parents=True, exist_ok=True)
    for child in source.iterdir():
        where = (*at, child.name)
        if where[:2] in _LEFTOVERS or child.name == "__pycache__":
            continue
        if child.is_dir():
            _copy(child, target / child.name, where)
        else:
            (target / child.name).write_bytes(child.read_bytes())


def _make_repository(repo: Path) -> None:
    if (repo / ".git").exists():
        return
    from dulwich import porcelain  # noqa: PLC0415 - heavy, and only a new repository needs it

    porcelain.init(str(repo))
    files = sorted(str(path) for path in repo.rglob("*") if path.is_file() and ".git" not in path.parts)
    porcelain.add(str(repo), paths=files)
    identity = b"ck3raven sample <sample@ck3raven>"
    porcelain.commit(str(repo), message=b"Sample repository", author=identity, committer=identity)
