"""The composition root: wires real adapters to the core. No process-global effects here."""

import functools
import os
import tempfile
import threading
import time
from collections.abc import Callable, Mapping
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Final, Protocol

from fastmcp import FastMCP
from starlette.types import ASGIApp

from adapters import tiger_validator
from adapters.background_work import BackgroundWork
from adapters.call_facts import ServerCalls
from adapters.client_tokens import ClientTokens, ClientVerifier
from adapters.fastmcp_server import build_server
from adapters.hmac_signer import HmacSigner
from adapters.http_answers import Framing, OneBody, TalksBack
from adapters.http_door import LOOPBACK, Door, new_token
from adapters.inotify_changes import InotifyChanges
from adapters.json_playsets import JsonPlaysets
from adapters.lazy_history import LazyHistory
from adapters.local_files import LocalFiles
from adapters.lxe_files import LxeFiles
from adapters.mcp_tools import ASKS_HUMAN, REPORTS_PROGRESS
from adapters.re2_patterns import Re2Patterns
from adapters.ruff_linter import RuffLinter
from adapters.server_lock import running
from adapters.sqlite_index import SqliteIndex
from adapters.sqlite_state import SqliteState
from adapters.system_clock import RandomIds, SystemClock
from adapters.tiger_validator import TigerValidator
from adapters.unix_approval_channel import ApprovalChannel
from app.config import ConfigError, Settings
from domain.ck3.rechecks import Rechecks
from domain.leaks import LeakGate
from domain.policy.approvals import Authority
from domain.policy.capabilities import WRITABLE
from domain.replies.refusal import Refused
from domain.services import Services
from domain.use_cases import content_queries
from domain.use_cases.core import Core, Defaults
from domain.vocabulary import RootCategory
from domain.world.catalog import Catalog
from domain.world.playsets import ModFolder, mod_folders
from domain.world.view import HIDDEN, WorldView
from ports.approvals import ApprovalStore
from ports.audit import AuditLog
from ports.clock import Clock
from ports.content_index import Build, ContentIndex
from ports.contracts import ContractStore
from ports.errors import PortError
from ports.evidence import EvidenceStore
from ports.files import Files
from ports.journal import Journal
from ports.ledger import Ledger
from ports.playsets import PlaysetStore
from ports.servers import Servers
from ports.signer import Signer
from ports.transactions import Transactions

DEFAULT_APPROVE: Final = "ck3raven approve {id}"
WARM_AFTER: Final = 1.0
"""Seconds from start-up to warming the history: past building the server and its first answers."""


class StateStores(Transactions, Protocol):
    """Every state store over one transaction scope: the SQLite adapter, or the in-memory one."""

    @property
    def approvals(self) -> ApprovalStore: ...
    @property
    def contracts(self) -> ContractStore: ...
    @property
    def ledger(self) -> Ledger: ...
    @property
    def evidence(self) -> EvidenceStore: ...
    @property
    def audit(self) -> AuditLog: ...
    @property
    def journal(self) -> Journal: ...


def leak_gate(settings: Settings, approve_command: str = DEFAULT_APPROVE) -> LeakGate:
    """The leak gate for this configuration: the system prefixes, every root's real path, the state
    directory, and this machine's home and temp directories; the approve command's parts are told."""
    common = [tempfile.gettempdir(), os.environ.get("HOME", "")]
    return LeakGate(_own_places(settings), tuple(common), (approve_command,))


def _own_places(settings: Settings) -> tuple[str, ...]:
    """The server's own host places: every root's real path and the state directory."""
    return (*(str(path) for path in settings.roots.values()), str(state_folder(settings)))


def state_folder(settings: Settings, environ: Mapping[str, str] | None = None) -> Path:
    """The state directory for `settings` (contracts, approvals, evidence, the socket, the log)."""
    return settings.state_path(os.environ if environ is None else environ)


def _validator(settings: Settings) -> TigerValidator | None:
    """ck3-tiger where the operator has it: the configured executable, else `ck3-tiger` on PATH."""
    executable = tiger_validator.find(settings.validators.ck3_tiger)
    if executable is None:
        return None
    roots = {root.value: path for root, path in settings.roots.items()}
    return TigerValidator(executable, roots, settings.roots.get(RootCategory.ROOT_GAME))


def _content_index(state: Path) -> SqliteIndex | None:
    """The playset's content index in the state directory; none where it cannot be kept (a read-only or
    full state directory): its answers then say so, and no governed call waits on it (SPEC §15)."""
    try:
        return SqliteIndex(state / "content-index.db")
    except PortError:
        return None


def _child_builder(
    settings: Settings, files: Files, index: SqliteIndex | None
) -> Callable[[WorldView, str], Build | None] | None:
    """Builds of the content index in a child process, where the files are local and the index is kept."""
    if index is None or not isinstance(files, LocalFiles):
        return None
    from app.index_child import build_in_child  # noqa: PLC0415 - the child's machinery, for a server alone

    return functools.partial(build_in_child, settings, index.path)


def build_core(  # noqa: PLR0913 - the settings, and what a test or an embedder stands in
    settings: Settings,
    *,
    files: Files | None = None,
    signer: Signer | None = None,
    approve_command: str = DEFAULT_APPROVE,
    stored: "StateStores | None" = None,
    clock: Clock | None = None,
    same_config: bool = False,
    index_in_child: bool = False,
    servers: Servers | None = None,
) -> Core:
    """The core for `settings`: real local files, stores in the state directory and a fresh Sigil unless
    given. Sessions start at the operator's home, mode and playset. Approval hints name `approve_command`
    (`{id}` stands for the approval id), and ask for the server's own `--config` when `same_config` (it is
    not the default one); `clock` stands in for the system clock (tests). With `index_in_child` (a
    server), the content index of local files is built in a child process (app.index_child)."""
    files = files or LocalFiles({root.value: path for root, path in settings.roots.items()}, marked=True)
    state = state_folder(settings)
    playsets = JsonPlaysets(files)
    stores: StateStores = stored or SqliteState(
        state / "ck3raven.db", busy_timeout=settings.store.busy_timeout_seconds
    )
    clock = clock or SystemClock()
    index = _content_index(state)
    authority = Authority(
        stores.approvals,
        clock,
        RandomIds(),
        signer or HmacSigner(),
        approve_command,
        same_config=same_config,
    )
    services = Services(
        files=files,
        playsets=playsets,
        authority=authority,
        contracts=stores.contracts,
        history=LazyHistory(
            {root.value: path for root, path in settings.roots.items()}, tree_cache=state / "git-trees"
        ),
        ledger=stores.ledger,
        evidence=stores.evidence,
        leaks=leak_gate(settings, approve_command),
        transactions=stores,
        audit=stores.audit,
        linter=RuffLinter(state / "lint-ruleset.json"),
        tokens=LxeFiles(files),
        journal=stores.journal,
        patterns=Re2Patterns(),
        clock=clock,
        index=index,
        background=BackgroundWork(),
        index_builder=_child_builder(settings, files, index) if index_in_child else None,
        rechecks=_rechecks(settings, files, index),
        budget=settings.budget_kib * 1024,
        language=settings.language,
        validator=_validator(settings),
        validator_seconds=settings.validators.ck3_tiger_seconds,
        servers=servers,
    )
    mods = active_mods(playsets, settings.active_playset)
    view = WorldView(settings.mode, frozenset(settings.roots), mods, (*HIDDEN, *settings.hidden))
    defaults = Defaults(settings.home, settings.mode, settings.active_playset, view, settings.limits)
    return Core(services, defaults)


def _rechecks(settings: Settings, files: Files, index: ContentIndex | None) -> Rechecks | None:
    """Change notification for the index's questions, over the host folders of local files only."""
    if index is None or not isinstance(files, LocalFiles):
        return None
    return Rechecks(InotifyChanges({root.value: path for root, path in settings.roots.items()}))


def sweep_in_background(core: Core, *, after: float = WARM_AFTER, read_only: bool = False) -> None:
    """Remove, off the request path and `after` seconds from now (past the client's first requests: the
    walk is Python, sharing the interpreter), temporary files left by writes a crash or a kill interrupted,
    in the roots a write can change; and warm the repositories' history and build the content index the
    same way (see warm_in_background, index_in_background). A `read_only` server removes nothing, not even
    a write's leftovers, and warms no history for contracts it cannot open; it builds the index, in its own
    state, as every server does."""
    if not read_only:
        files = core.services.files
        if isinstance(files, LocalFiles):
            # only where a write can happen: never the game's install or the workshop, the largest trees
            writable = {root.value for root in WRITABLE}
            _later("ck3raven-sweep", after, lambda: files.sweep(roots=writable))
        warm_in_background(core, after=after)
    index_in_background(core, after=after)


def index_in_background(core: Core, *, after: float = WARM_AFTER) -> None:
    """Build the content index of the operator's playset off the request path, `after` seconds from now
    (SPEC §15: the server builds it at start; `MCP-DB-S-001` in the log when done); in a child process
    where the core was built with one (`build_core(index_in_child=True)`)."""
    services, defaults = core.services, core.defaults
    playset = defaults.playset or ""
    _later("ck3raven-index", after, lambda: content_queries.in_background(services, defaults.view, playset))


def warm_in_background(core: Core, *, after: float = WARM_AFTER) -> None:
    """Parse each repository's index and flatten its HEAD tree on a daemon thread, `after` seconds from
    now, so the first contract call runs at the warm cost. The wait keeps that work (Python, so it would
    share the interpreter) clear of building the server and answering the client's first requests; a
    call that comes sooner does the work itself, and one that comes meanwhile waits for it rather than
    repeating it. Failures are only logged."""
    history = core.services.history
    if isinstance(history, LazyHistory):
        _later("ck3raven-warm", after, history.warm)


def _later(name: str, after: float, work: Callable[[], object]) -> None:
    """Run `work` on a daemon thread of its own, `after` seconds from now."""

    def run() -> None:
        time.sleep(after)
        work()

    threading.Thread(target=run, name=name, daemon=True).start()


def approval_channel(socket: Path, core: Core) -> ApprovalChannel:
    """The operator's approval channel for this server, at `socket` (its own, in the state directory)."""
    return ApprovalChannel(socket, core.human_authority())


def active_mods(store: PlaysetStore, name: str | None) -> tuple[ModFolder, ...]:
    """The enabled mod folders of the named playset; a ConfigError when it is missing or invalid."""
    if name is None:
        return ()
    try:
        record = Catalog(tuple(store.load()), name).usable(name)
    except Refused as refused:
        raise ConfigError(f"playset {name!r}: {refused.reply.message()} {dict(refused.data)}") from None
    return mod_folders(record)


def build(  # noqa: PLR0913 - the settings, and what a test or the command line stands in
    settings: Settings,
    *,
    core: Core | None = None,
    token: str | None = None,
    calls: ServerCalls | None = None,
    clients: ClientTokens | None = None,
    one_client: bool = False,
) -> FastMCP:
    """The MCP server for `settings`, ready to run or to be driven in memory by a test client; with a
    `token`, HTTP requests must carry it (or a token of one of `clients`) as their bearer token; `calls`
    numbers its calls for the audit; `one_client`: it will serve a single client (stdio)."""
    core = core or build_core(settings)
    auth = ClientVerifier(token, clients) if token is not None else None
    return build_server(
        core,
        core.services.leaks,
        version=_version(),
        auth=auth,
        read_only=settings.read_only,
        calls=calls,
        one_client=one_client,
        session_idle_seconds=settings.http.session_idle_minutes * 60,
    )


def client_tokens(core: Core) -> ClientTokens | None:
    """The clients' HTTP tokens, in the core's state database (none for a state kept elsewhere)."""
    stores = core.services.transactions
    return ClientTokens(stores) if isinstance(stores, SqliteState) else None


def http_app(settings: Settings, server: FastMCP) -> ASGIApp:
    """The streamable HTTP app behind the door: Host and Origin first (403), then the bearer token (401).
    FastMCP's own Host/Origin guard stays on in strict mode behind it. Idle sessions are closed after
    `[http] session_idle_minutes`, and at most `[http] max_sessions` of one token live at once. A request is
    answered with one JSON body when nothing else can come back while it runs, else as a stream
    (`adapters.http_answers`)."""
    door = settings.http
    inner = server.http_app(
        host_origin_protection=True,
        allowed_hosts=[*LOOPBACK, *door.allowed_hosts],
        allowed_origins=list(door.allowed_origins),
        session_idle_timeout=door.session_idle_minutes * 60,
        # the SDK only asks whether it holds, request by request: see adapters.http_answers
        json_response=OneBody(),  # type: ignore[arg-type]
    )
    guarded = Door(inner, door.allowed_hosts, door.allowed_origins, max_sessions=door.max_sessions)
    return Framing(guarded, TalksBack(ASKS_HUMAN, REPORTS_PROGRESS))


def http_token(settings: Settings) -> tuple[str, bool]:
    """The bearer token, and whether this server made it: the configured one, else the one another live
    HTTP server of this state directory made, else a fresh one kept 0600 in the state directory (for
    `ck3raven doctor` and the operator's clients) for as long as this server runs."""
    if settings.http.token is not None:
        return settings.http.token, False
    state = state_folder(settings)
    others = [s for s in running(state) if s.get("pid") != os.getpid() and str(s.get("transport")) != "stdio"]
    kept = state / "http_token"
    if others and kept.is_file():
        try:
            return kept.read_text(encoding="utf-8").strip(), False
        except OSError:
            pass
    return new_token(kept), True


def _version() -> str:
    try:
        return version("ck3raven")
    except PackageNotFoundError:  # pragma: no cover - running from a bare checkout
        return "0"
