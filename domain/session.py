"""The session: one server process's mode and home root, and the replies that report them.

A session starts with the operator's mode (or none) and home. Until a mode is initialised, only `ck3_dir
pwd` and `ck3_mode` answer; every other tool gets `MCP-CFG-I-001`.
"""

from attrs import define

from domain.replies.builder import Reply, ReplyBuilder
from domain.vocabulary import Mode, RootCategory


@define
class Session:
    """Mutable session state. The home is always a configured root; the mode is None until initialised."""

    home: RootCategory
    mode: Mode | None = None
    mode_source: str | None = None
    """Who initialised the mode: "operator" (launch flag or config) or "approval:<id>" (a human approved)."""
    mode_seal: str | None = None
    """The Sigil signature over `mode_initialisation(mode, source)`; checked whenever the mode is reported."""


def home_address(root: RootCategory) -> str:
    """The session-absolute address of a root itself."""
    return f"{root.value}:/"


def pwd(session: Session) -> Reply:
    """Report the session home. Touches no filesystem and needs no mode."""
    return ReplyBuilder().success(
        "MCP-CFG-S-001", {"home": session.home.value, "address": home_address(session.home)}
    )


def mode_initialisation(mode: Mode, source: str) -> bytes:
    """The payload a mode initialisation is signed over (docs/design/sigil.md)."""
    return f"mode-init:{mode.value}|{source}".encode()


def mode_status(session: Session, *, sealed: bool) -> Reply:
    """Report the session mode (None until initialised), who initialised it and whether its seal holds."""
    mode = session.mode.value if session.mode else None
    return ReplyBuilder().success(
        "MCP-CFG-S-002",
        {"mode": mode, "initialised": mode is not None, "source": session.mode_source, "sealed": sealed},
    )


def mode_required(session: Session, tool: str) -> Reply | None:
    """An Invalid reply when no mode is initialised yet, else None (the call may proceed)."""
    if session.mode is not None:
        return None
    return ReplyBuilder().invalid(
        "MCP-CFG-I-001",
        {"tool": tool, "hint": "Ask the user to start ck3raven with --mode or to approve ck3_mode init."},
    )
