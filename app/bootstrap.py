"""The composition root: wires real adapters to the core. No process-global effects here."""

from importlib.metadata import PackageNotFoundError, version

from fastmcp import FastMCP

from adapters.fastmcp_server import build_server
from app.config import Settings
from domain.leaks import LeakGate
from domain.session import Session
from domain.toolbox import Toolbox


def leak_gate(settings: Settings) -> LeakGate:
    """The leak gate for this configuration: generic host-path patterns plus every root's real path."""
    return LeakGate(tuple(str(path) for path in settings.roots.values()))


def build_toolbox(settings: Settings) -> Toolbox:
    """The core's use cases over a fresh session for `settings`."""
    return Toolbox(Session(home=settings.home, mode=settings.mode))


def build(settings: Settings) -> FastMCP:
    """The MCP server for `settings`, ready to run or to be driven in memory by a test client."""
    return build_server(build_toolbox(settings), leak_gate(settings), version=_version())


def _version() -> str:
    try:
        return version("ck3raven")
    except PackageNotFoundError:  # pragma: no cover - running from a bare checkout
        return "0"
