"""The composition root: wires real adapters to the core. No process-global effects here."""

import os
import tempfile
from collections.abc import Mapping
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from fastmcp import FastMCP

from adapters.dulwich_history import DulwichHistory
from adapters.fastmcp_server import Routes, build_server
from adapters.hmac_signer import HmacSigner
from adapters.json_playsets import JsonPlaysets
from adapters.json_state import JsonApprovals, JsonContracts, JsonEvidence, JsonLedger
from adapters.local_files import LocalFiles
from adapters.system_clock import RandomIds, SystemClock
from adapters.tool_routes import ROUTES
from adapters.unix_approval_channel import ApprovalChannel
from app.config import ConfigError, Settings
from domain.leaks import LeakGate
from domain.policy.approvals import Authority
from domain.replies.builder import Reply
from domain.services import Services
from domain.use_cases.core import Core, Defaults
from domain.world.adapter import HIDDEN, WorldView
from domain.world.catalog import Catalog
from domain.world.playsets import ModFolder, mod_folders
from ports.files import Files
from ports.playsets import PlaysetStore
from ports.signer import Signer


def leak_gate(settings: Settings) -> LeakGate:
    """The leak gate for this configuration: the system prefixes, every root's real path, the state
    directory, and this machine's home and temp directories."""
    own = (*(str(path) for path in settings.roots.values()), str(state_folder(settings)))
    common = [tempfile.gettempdir(), os.environ.get("HOME", "")]
    return LeakGate(own, tuple(common))


def state_folder(settings: Settings, environ: Mapping[str, str] | None = None) -> Path:
    """The state directory for `settings` (contracts, approvals, evidence, the socket, the log)."""
    return settings.state_path(os.environ if environ is None else environ)


def build_core(settings: Settings, *, files: Files | None = None, signer: Signer | None = None) -> Core:
    """The core for `settings`: real local files, stores in the state directory and a fresh Sigil unless
    given. Sessions start at the operator's home, mode and playset."""
    files = files or LocalFiles({root.value: path for root, path in settings.roots.items()})
    state = state_folder(settings)
    playsets = JsonPlaysets(files)
    authority = Authority(
        JsonApprovals(state / "approvals"), SystemClock(), RandomIds(), signer or HmacSigner()
    )
    services = Services(
        files=files,
        playsets=playsets,
        authority=authority,
        contracts=JsonContracts(state / "contracts"),
        history=DulwichHistory({root.value: path for root, path in settings.roots.items()}),
        ledger=JsonLedger(state / "carry_over.json"),
        evidence=JsonEvidence(state / "evidence"),
        leaks=leak_gate(settings),
    )
    mods = active_mods(playsets, settings.active_playset)
    view = WorldView(settings.mode, frozenset(settings.roots), mods, (*HIDDEN, *settings.hidden))
    return Core(services, Defaults(settings.home, settings.mode, settings.active_playset, view))


def approval_channel(settings: Settings, core: Core) -> ApprovalChannel:
    """The operator's approval socket for this server, in the state directory."""
    return ApprovalChannel(state_folder(settings) / "approvals.sock", core.services.authority)


def active_mods(store: PlaysetStore, name: str | None) -> tuple[ModFolder, ...]:
    """The enabled mod folders of the named playset; a ConfigError when it is missing or invalid."""
    if name is None:
        return ()
    record = Catalog(tuple(store.load()), name).usable(name)
    if isinstance(record, Reply):
        raise ConfigError(f"playset {name!r}: {record.message()} {dict(record.data)}")
    return mod_folders(record)


def build(settings: Settings, *, core: Core | None = None, routes: Routes = ROUTES) -> FastMCP:
    """The MCP server for `settings`, ready to run or to be driven in memory by a test client."""
    core = core or build_core(settings)
    return build_server(core, core.services.leaks, routes=routes, version=_version())


def _version() -> str:
    try:
        return version("ck3raven")
    except PackageNotFoundError:  # pragma: no cover - running from a bare checkout
        return "0"
