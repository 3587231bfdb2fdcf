"""The composition root: wires real adapters to the core. No process-global effects here."""

from importlib.metadata import PackageNotFoundError, version
from threading import RLock

from fastmcp import FastMCP

from adapters.dulwich_history import DulwichHistory
from adapters.fastmcp_server import build_server
from adapters.hmac_signer import HmacSigner
from adapters.json_playsets import JsonPlaysets
from adapters.json_state import JsonApprovals, JsonContracts, JsonLedger
from adapters.local_files import LocalFiles
from adapters.serial_toolbox import SerialToolbox
from adapters.system_clock import RandomIds, SystemClock
from adapters.unix_approval_channel import ApprovalChannel
from app.config import ConfigError, Settings
from domain.policy.approvals import Authority
from domain.policy.modes import initialise
from domain.replies.builder import Reply
from domain.replies.leaks import LeakGate
from domain.session import Session
from domain.use_cases.toolbox import Toolbox
from domain.world.adapter import WorldAdapter, WorldView
from domain.world.catalog import Catalog
from domain.world.playsets import ModFolder, mod_folders
from ports.files import Files
from ports.playsets import PlaysetStore
from ports.signer import Signer


def leak_gate(settings: Settings) -> LeakGate:
    """The leak gate for this configuration: generic host-path patterns plus every root's real path."""
    return LeakGate(tuple(str(path) for path in settings.roots.values()))


def build_toolbox(settings: Settings, *, files: Files | None = None, signer: Signer | None = None) -> Toolbox:
    """The core's use cases over a fresh session for `settings` (real local files and a fresh Sigil unless
    given)."""
    files = files or LocalFiles({root.value: path for root, path in settings.roots.items()})
    store = JsonPlaysets(files)
    view = WorldView(settings.mode, frozenset(settings.roots), active_mods(store, settings.active_playset))
    session = Session(home=settings.home, mode=settings.mode)
    authority = contracts = ledger = None
    if settings.data_root is not None:
        approvals = JsonApprovals(settings.data_root / "state" / "approvals")
        authority = Authority(approvals, SystemClock(), RandomIds(), signer or HmacSigner())
        contracts = JsonContracts(settings.data_root / "state" / "contracts")
        ledger = JsonLedger(settings.data_root / "state" / "carry_over.json")
    history = DulwichHistory({root.value: path for root, path in settings.roots.items()})
    if settings.mode is not None and authority is not None:
        initialise(session, settings.mode, "operator", authority)  # the operator's launch flag is a human act
    world = WorldAdapter(files, view)
    return Toolbox(session, world, store, settings.active_playset, authority, contracts, history, ledger)


def approval_channel(settings: Settings, toolbox: Toolbox, lock: RLock) -> ApprovalChannel | None:
    """The operator's approval socket for this server (None without a data root); it decides under `lock`."""
    if settings.data_root is None or toolbox.authority is None:
        return None
    return ApprovalChannel(settings.data_root / "state" / "approvals.sock", toolbox.authority, lock)


def active_mods(store: PlaysetStore, name: str | None) -> tuple[ModFolder, ...]:
    """The enabled mod folders of the named playset; a ConfigError when it is missing or invalid."""
    if name is None:
        return ()
    record = Catalog(tuple(store.load()), name).usable(name)
    if isinstance(record, Reply):
        raise ConfigError(f"playset {name!r}: {record.message()} {dict(record.data)}")
    return mod_folders(record)


def build(settings: Settings, *, toolbox: Toolbox | None = None, lock: "RLock | None" = None) -> FastMCP:
    """The MCP server for `settings`, ready to run or to be driven in memory by a test client. Tool calls
    reach the core one at a time, under `lock` (shared with the approval channel)."""
    serial = SerialToolbox(toolbox or build_toolbox(settings), lock)
    return build_server(serial, leak_gate(settings), version=_version())


def _version() -> str:
    try:
        return version("ck3raven")
    except PackageNotFoundError:  # pragma: no cover - running from a bare checkout
        return "0"
