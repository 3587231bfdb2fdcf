"""Operator configuration (SPEC §10): where it comes from, its strict shape, and the checks made at start.

Order: --config FILE, else $CK3RAVEN_CONFIG, else ~/.ck3raven/config.toml; there is no implicit root, so
with none of them the server does not start (`ck3raven init` writes a config). Relative paths are taken
from the config file's folder; `~` is expanded (this is operator input, never agent input). A config that
names an unknown key, an unknown root or mode, a root folder that does not exist, or roots that overlap
each other or the state directory is refused at start.
"""

import os
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import TypeVar

from attrs import Factory, evolve, frozen

from adapters.strict_converter import StructureProblems, make_converter, structure
from domain.compliance.ck3_checks import LANGUAGES
from domain.policy.pacing import Rates
from domain.vocabulary import Mode, RootCategory

_E = TypeVar("_E", Mode, RootCategory)


class ConfigError(Exception):
    """The configuration cannot be used; the message names the file and every problem."""


@frozen
class _PlaysetSection:
    active: str | None = None
    language: str = "english"


@frozen
class _RepliesSection:
    budget_kib: int = 32


@frozen
class HttpSettings:
    """The HTTP door (SPEC §10): loopback by default; Host and Origin checked against loopback names plus
    these; a bearer token, made at start unless configured."""

    host: str = "127.0.0.1"
    port: int = 8765
    allowed_hosts: list[str] = Factory(list)
    allowed_origins: list[str] = Factory(list)
    token: str | None = None
    session_idle_minutes: float = 30.0
    """An MCP session without a request for this long is closed and its memory freed."""
    max_sessions: int = 64
    """Live MCP sessions per credential (token) at most; one more of that credential is refused (503, "Too
    many open sessions"); other tokens keep theirs."""


@frozen
class StoreSettings:
    """The shared state database: how long a write waits for another server's transaction before it fails
    (a governed change is then refused, nothing changed)."""

    busy_timeout_seconds: float = 10.0


@frozen
class ValidatorSettings:
    """External validators close runs where installed (SPEC §14): ck3-tiger, by this path or found on PATH
    (`ck3-tiger`); each run is cut after `ck3_tiger_seconds`."""

    ck3_tiger: str | None = None
    ck3_tiger_seconds: float = 120.0


@frozen
class RetentionSettings:
    """How many days audit rows and evidence are kept (0: for ever); pruning leaves a checkpoint row."""

    audit_days: int = 365
    evidence_days: int = 365
    log_megabytes: int = 16
    """The operator log is rotated at start once it is larger than this."""
    log_files: int = 4
    """Rotated log files kept (`ck3raven.log.1` the newest)."""


@frozen
class _ConfigFile:
    mode: str | None = None
    read_only: bool = False
    home: str = "ROOT_REPO"
    state_dir: str | None = None
    hidden: list[str] = Factory(list)
    roots: dict[str, str] = Factory(dict)
    playset: _PlaysetSection = Factory(_PlaysetSection)
    http: HttpSettings = Factory(HttpSettings)
    limits: Rates = Factory(Rates)
    replies: _RepliesSection = Factory(_RepliesSection)
    store: StoreSettings = Factory(StoreSettings)
    retention: RetentionSettings = Factory(RetentionSettings)
    validators: ValidatorSettings = Factory(ValidatorSettings)


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
    hidden: tuple[str, ...] = ()
    """The operator's own patterns of secret names, invisible beside the built-in ones."""
    http: HttpSettings = HttpSettings()
    read_only: bool = False
    """Serve the read and session tools only: no tool offered can change a file."""
    limits: Rates = Factory(Rates)
    """Per-session rate limits (calls per minute, 0: none); over one, a call is EN-EXEC-D-001."""
    budget_kib: int = 32
    """The size of one reply's envelope a read, list, tree or search keeps to unless the call asks for
    more (`[replies] budget_kib`; 10 suits Codex)."""
    store: StoreSettings = StoreSettings()
    retention: RetentionSettings = RetentionSettings()
    language: str = "english"
    """The playset's reference language (`[playset] language`): close looks for a new key's localisation
    in it."""
    validators: ValidatorSettings = ValidatorSettings()

    @property
    def data_root(self) -> Path | None:
        return self.roots.get(RootCategory.ROOT_CK3RAVEN_DATA)

    def state_path(self, environ: Mapping[str, str]) -> Path:
        """The state directory: the configured one, else $XDG_STATE_HOME/ck3raven, else
        ~/.local/state/ck3raven. A relative $XDG_STATE_HOME is ignored, as the XDG base directory
        specification says (it would name a folder under whatever directory the server started in)."""
        if self.state_dir is not None:
            return self.state_dir
        xdg = environ.get("XDG_STATE_HOME") or ""
        return Path(xdg if Path(xdg).is_absolute() else "~/.local/state").expanduser() / "ck3raven"

    def with_read_only(self) -> "Settings":
        return evolve(self, read_only=True)

    def with_mode(self, mode: Mode | None) -> "Settings":
        return evolve(self, mode=mode)

    def with_home(self, home: RootCategory) -> "Settings":
        if home not in self.roots:
            raise ConfigError(f"--home {home.value}: that root is not configured")
        return evolve(self, home=home)


def config_path(explicit: str | None, environ: Mapping[str, str]) -> Path | None:
    """The config file to read, or None when there is none."""
    if explicit:
        return Path(explicit).expanduser()
    if environ.get("CK3RAVEN_CONFIG"):
        return Path(environ["CK3RAVEN_CONFIG"]).expanduser()
    candidate = Path("~/.ck3raven/config.toml").expanduser()
    return candidate if candidate.is_file() else None


MIN_TOKEN = 32
MIN_BUDGET_KIB = 4
MAX_BUDGET_KIB = 1024
MAX_BUSY = 600.0
MAX_PORT = 65535
SEARCHED = "--config, $CK3RAVEN_CONFIG, ~/.ck3raven/config.toml"


def load(path: Path | None, *, cwd: Path) -> Settings:
    """Read and check the configuration at `path`; None (nothing found) is refused: no implicit root."""
    if path is None:
        raise ConfigError(
            f"no configuration found (looked at {SEARCHED}); `ck3raven init` writes one, "
            "`ck3raven init --sample DIR` one serving a copy of the sample world"
        )
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"{path}: cannot be read ({exc.strerror})") from exc
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not UTF-8 text (byte {exc.start})") from exc
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML ({exc})") from exc
    try:
        parsed = structure(make_converter(), raw, _ConfigFile)
    except StructureProblems as exc:
        details = "; ".join(f"{where}: {what}" for where, what in exc.problems)
        raise ConfigError(f"{path}: {details}") from exc
    return _check(str(path), parsed, cwd)


def _check(source: str, raw: _ConfigFile, cwd: Path) -> Settings:
    problems: list[str] = []
    roots = _roots(raw.roots, cwd, problems)
    if min(raw.limits.reads_per_minute, raw.limits.mutations_per_minute) < 0:
        problems.append("limits: a rate is 0 (unlimited) or more calls per minute")
    if not MIN_BUDGET_KIB <= raw.replies.budget_kib <= MAX_BUDGET_KIB:
        problems.append(f"replies.budget_kib: from {MIN_BUDGET_KIB} to {MAX_BUDGET_KIB}")
    problems += _number_problems(raw) + _validation_problems(raw)
    if raw.http.token is not None and len(raw.http.token) < MIN_TOKEN:
        problems.append(f"http.token: at least {MIN_TOKEN} characters")
    mode = _member(Mode, raw.mode, f"mode: {raw.mode!r} is not a mode", problems) if raw.mode else None
    home = _member(RootCategory, raw.home, f"home: {raw.home!r} is not a root category", problems)
    if home is not None and home not in roots:
        problems.append(f"home: {raw.home} is not configured under [roots]")
    if problems or home is None:
        raise ConfigError(f"{source}: " + "; ".join(problems or ["no home root"]))
    state_dir = (cwd / Path(raw.state_dir).expanduser()).resolve() if raw.state_dir else None
    settings = Settings(
        source,
        roots,
        home,
        mode,
        raw.playset.active,
        state_dir,
        tuple(raw.hidden),
        raw.http,
        raw.read_only,
        raw.limits,
        raw.replies.budget_kib,
        raw.store,
        raw.retention,
        raw.playset.language,
        raw.validators,
    )
    overlaps = overlapping(settings, os.environ)
    if overlaps:
        raise ConfigError(f"{source}: " + "; ".join(overlaps))
    return settings


def _validation_problems(raw: _ConfigFile) -> list[str]:
    """The reference language and the external validator's bound."""
    problems = []
    if raw.playset.language not in LANGUAGES:
        problems.append(f"playset.language: one of {', '.join(LANGUAGES)}")
    if not raw.validators.ck3_tiger_seconds > 0:
        problems.append("validators.ck3_tiger_seconds: more than 0")
    return problems


def _number_problems(raw: _ConfigFile) -> list[str]:
    """Numbers out of their range: a busy timeout, retention days, the HTTP port."""
    problems = []
    if not 0 < raw.store.busy_timeout_seconds <= MAX_BUSY:
        problems.append(f"store.busy_timeout_seconds: more than 0, at most {MAX_BUSY}")
    if min(raw.retention.audit_days, raw.retention.evidence_days) < 0:
        problems.append("retention: days are 0 (keep for ever) or more")
    if raw.retention.log_megabytes < 1 or raw.retention.log_files < 1:
        problems.append("retention: log_megabytes and log_files are 1 or more")
    if not raw.http.session_idle_minutes > 0 or raw.http.max_sessions < 1:
        problems.append("http: session_idle_minutes is more than 0 and max_sessions at least 1")
    if not 1 <= raw.http.port <= MAX_PORT:
        problems.append(f"http.port: {raw.http.port} is not a port (1 to {MAX_PORT})")
    return problems


def _roots(configured: Mapping[str, str], cwd: Path, problems: list[str]) -> dict[RootCategory, Path]:
    roots: dict[RootCategory, Path] = {}
    for name, text in configured.items():
        root = _member(RootCategory, name, f"roots.{name}: not a root category", problems)
        folder = (cwd / Path(text).expanduser()).resolve()
        if root is None:
            continue
        if not folder.is_dir():
            problems.append(f"roots.{name}: {folder} is not an existing folder")
        roots[root] = folder
    return roots


def overlapping(settings: Settings, environ: Mapping[str, str]) -> list[str]:
    """Every pair of roots (and the state directory) where one is, or lies inside, the other, compared by
    real path and by device and inode, so a bind mount or a link that joins two folders counts."""
    places = {f"roots.{root.value}": path for root, path in settings.roots.items()}
    places["state_dir"] = settings.state_path(environ).expanduser().resolve()
    names = sorted(places)
    return [
        f"{inner} ({places[inner]}) lies inside {outer} ({places[outer]}): roots and the state directory "
        "must be disjoint"
        for outer in names
        for inner in names
        if inner != outer
        and _inside(places[inner], places[outer])
        and (inner < outer or not _inside(places[outer], places[inner]))
    ]


def _inside(inner: Path, outer: Path) -> bool:
    if inner == outer or outer in inner.parents:
        return True
    identity = _identity(outer)
    return identity is not None and any(_identity(folder) == identity for folder in (inner, *inner.parents))


def _identity(folder: Path) -> tuple[int, int] | None:
    try:
        info = folder.stat()
    except OSError:
        return None
    return info.st_dev, info.st_ino


def _member(kind: type[_E], text: str | None, problem: str, problems: list[str]) -> _E | None:
    try:
        return kind(text or "")
    except ValueError:
        problems.append(problem)
        return None
