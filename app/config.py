"""Operator configuration (SPEC §10): where it comes from, its strict shape, and the checks made at start.

Order: --config FILE, else $CK3RAVEN_CONFIG, else ~/.ck3raven/config.toml, else the built-in default (the
repository's sample world, with the current directory as ROOT_REPO). Relative root paths are taken from the
current directory; `~` is expanded (this is operator input, never agent input). A config that names an
unknown key, an unknown root or mode, or a root folder that does not exist is refused at start.
"""

import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import TypeVar

from attrs import Factory, evolve, frozen

from adapters.strict_converter import StructureProblems, make_converter, structure
from domain.vocabulary import Mode, RootCategory

_E = TypeVar("_E", Mode, RootCategory)
SAMPLE_WORLD = Path(__file__).resolve().parent.parent / "examples" / "world"


class ConfigError(Exception):
    """The configuration cannot be used; the message names the file and every problem."""


@frozen
class _PlaysetSection:
    active: str | None = None


@frozen
class _ConfigFile:
    mode: str | None = None
    home: str = "ROOT_REPO"
    state_dir: str | None = None
    roots: dict[str, str] = Factory(dict)
    playset: _PlaysetSection = Factory(_PlaysetSection)


@frozen
class Settings:
    """A checked configuration: every root exists and is a folder, mode and home are members of their sets."""

    source: str
    roots: Mapping[RootCategory, Path]
    home: RootCategory
    mode: Mode | None = None
    active_playset: str | None = None
    state_dir: Path | None = None
    """Where the server keeps its own state (outside every root); None: the default for this user."""

    @property
    def data_root(self) -> Path | None:
        return self.roots.get(RootCategory.ROOT_CK3RAVEN_DATA)

    def state_path(self, environ: Mapping[str, str]) -> Path:
        """The state directory: the configured one, else $XDG_STATE_HOME/ck3raven, else
        ~/.local/state/ck3raven."""
        if self.state_dir is not None:
            return self.state_dir
        return Path(environ.get("XDG_STATE_HOME") or "~/.local/state").expanduser() / "ck3raven"

    def with_mode(self, mode: Mode | None) -> "Settings":
        return evolve(self, mode=mode)

    def with_home(self, home: RootCategory) -> "Settings":
        if home not in self.roots:
            raise ConfigError(f"--home {home.value}: that root is not configured")
        return evolve(self, home=home)


def config_path(explicit: str | None, environ: Mapping[str, str]) -> Path | None:
    """The config file to read, or None for the built-in default."""
    if explicit:
        return Path(explicit).expanduser()
    if environ.get("CK3RAVEN_CONFIG"):
        return Path(environ["CK3RAVEN_CONFIG"]).expanduser()
    candidate = Path("~/.ck3raven/config.toml").expanduser()
    return candidate if candidate.is_file() else None


def load(path: Path | None, *, cwd: Path) -> Settings:
    """Read and check the configuration at `path` (None: the built-in default)."""
    if path is None:
        return _check("built-in default", _default_file(), cwd)
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"{path}: cannot be read ({exc.strerror})") from exc
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML ({exc})") from exc
    try:
        parsed = structure(make_converter(), raw, _ConfigFile)
    except StructureProblems as exc:
        details = "; ".join(f"{where}: {what}" for where, what in exc.problems)
        raise ConfigError(f"{path}: {details}") from exc
    return _check(str(path), parsed, cwd)


def _default_file() -> _ConfigFile:
    if not SAMPLE_WORLD.is_dir():
        return _ConfigFile(roots={"ROOT_REPO": "."})
    return _ConfigFile(
        mode=Mode.CK3LENS.value,
        roots={
            "ROOT_REPO": ".",
            "ROOT_GAME": str(SAMPLE_WORLD / "game"),
            "ROOT_STEAM": str(SAMPLE_WORLD / "steam"),
            "ROOT_USER_DOCS": str(SAMPLE_WORLD / "documents"),
            "ROOT_VSCODE": str(SAMPLE_WORLD / "vscode"),
            "ROOT_CK3RAVEN_DATA": str(SAMPLE_WORLD / "ck3raven_data"),
        },
        playset=_PlaysetSection(active="Sample Playset"),
    )


def _check(source: str, raw: _ConfigFile, cwd: Path) -> Settings:
    problems: list[str] = []
    roots: dict[RootCategory, Path] = {}
    for name, text in raw.roots.items():
        root = _member(RootCategory, name, f"roots.{name}: not a root category", problems)
        folder = (cwd / Path(text).expanduser()).resolve()
        if root is None:
            continue
        if not folder.is_dir():
            problems.append(f"roots.{name}: {folder} is not an existing folder")
        roots[root] = folder
    mode = _member(Mode, raw.mode, f"mode: {raw.mode!r} is not a mode", problems) if raw.mode else None
    home = _member(RootCategory, raw.home, f"home: {raw.home!r} is not a root category", problems)
    if home is not None and home not in roots:
        problems.append(f"home: {raw.home} is not configured under [roots]")
    if problems or home is None:
        raise ConfigError(f"{source}: " + "; ".join(problems or ["no home root"]))
    state_dir = (cwd / Path(raw.state_dir).expanduser()).resolve() if raw.state_dir else None
    return Settings(source, roots, home, mode, raw.playset.active, state_dir)


def _member(kind: type[_E], text: str | None, problem: str, problems: list[str]) -> _E | None:
    try:
        return kind(text or "")
    except ValueError:
        problems.append(problem)
        return None
