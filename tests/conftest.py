"""Shared test configuration: hypothesis profiles and the FastMCP environment for in-memory servers."""

import os
from pathlib import Path

import pytest
from hypothesis import settings

os.environ.setdefault("FASTMCP_ENABLE_RICH_LOGGING", "false")
os.environ.setdefault("FASTMCP_SHOW_SERVER_BANNER", "false")
os.environ.setdefault("FASTMCP_CHECK_FOR_UPDATES", "off")
os.environ.setdefault("FASTMCP_MCP_CAMELCASE_COMPAT", "false")

settings.register_profile("dev", max_examples=60)
settings.register_profile("ci", max_examples=300, derandomize=True, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))


@pytest.fixture(autouse=True)
def state_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Each test's own state directory (the default one, under its own XDG_STATE_HOME)."""
    home = tmp_path_factory.mktemp("xdg")
    monkeypatch.setenv("XDG_STATE_HOME", str(home))
    return home / "ck3raven"
