"""The governance session (SPEC §13): one client's mode, home, playset lens and open contract.

Over stdio the server process is one session; over HTTP each MCP session is its own. Nothing one session
holds reaches another: each has its own World Adapter view, and contracts and approvals are bound to the
session id they were made in. A session starts with the operator's mode (or none) and home; until a mode
is initialised, only `ck3_dir pwd` and `ck3_mode` answer, every other command gets `MCP-CFG-I-001`.
"""

from attrs import Factory, define, frozen

from domain.policy.enforcement import ActiveContract
from domain.policy.pacing import Bucket
from domain.replies.builder import Reply, ReplyBuilder
from domain.vocabulary import Mode, RootCategory
from domain.world.adapter import WorldAdapter
from ports.contracts import ContractRecord


@define
class Session:
    """Mutable session state. The home is always a configured root; the mode is None until initialised."""

    session_id: str
    home: RootCategory
    world: WorldAdapter
    """This session's lens on the roots: its mode's visibility and its active playset's mods."""
    playset: str | None = None
    mode: Mode | None = None
    mode_source: str | None = None
    """Who initialised the mode: "operator" (launch flag or config) or "approval:<id>" (a human approved)."""
    mode_seal: str | None = None
    """The Sigil signature over `mode_initialisation(mode, source)`; checked whenever the mode is reported."""
    contract_id: str | None = None
    """The contract this session opened last; it governs only while it verifies, is open and unexpired."""
    allowance: dict[bool, Bucket] = Factory(dict)
    """What is left of this session's rate limits, keyed by whether a call mutates (empty: no limits)."""
    verified: "Verified | None" = None
    """The governing contract as last read and verified, with the store's version then: used again only
    while the store reports that version (nothing written since, here or by another process)."""


@frozen
class Verified:
    """A contract record whose signatures verified and that this session opened, read at `version`."""

    version: object
    record: ContractRecord
    active: ActiveContract


def home_address(root: RootCategory) -> str:
    """The session-absolute address of a root itself."""
    return f"{root.value}:/"


def mode_initialisation(mode: Mode, source: str) -> bytes:
    """The payload a mode initialisation is signed over (docs/design/sigil.md)."""
    return f"mode-init:{mode.value}|{source}".encode()


def mode_required(session: Session, tool: str) -> Reply | None:
    """An Invalid reply when no mode is initialised yet, else None (the call may proceed)."""
    if session.mode is not None:
        return None
    return ReplyBuilder().invalid(
        "MCP-CFG-I-001",
        {"tool": tool, "hint": "Ask the user to start ck3raven with --mode or to approve ck3_mode init."},
    )
