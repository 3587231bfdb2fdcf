"""Shared test configuration: hypothesis profiles and the FastMCP environment for in-memory servers."""

import itertools
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

os.environ.setdefault("FASTMCP_ENABLE_RICH_LOGGING", "false")
os.environ.setdefault("FASTMCP_SHOW_SERVER_BANNER", "false")
os.environ.setdefault("FASTMCP_CHECK_FOR_UPDATES", "off")
os.environ.setdefault("FASTMCP_MCP_CAMELCASE_COMPAT", "false")
# Nothing a test runs may use the state directory of the user running the tests (the default one under
# ~/.local/state): a fixture wider than one test runs before `state_home` below, so the run has its own.
os.environ["XDG_STATE_HOME"] = tempfile.mkdtemp(prefix="ck3raven-tests-state-")

settings.register_profile("dev", max_examples=60)
settings.register_profile("ci", max_examples=300, derandomize=True, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))


@pytest.fixture(autouse=True)
def state_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Each test's own state directory (the default one, under its own XDG_STATE_HOME)."""
    home = tmp_path_factory.mktemp("xdg")
    monkeypatch.setenv("XDG_STATE_HOME", str(home))
    return home / "ck3raven"


_FOLDERS = itertools.count()


@pytest.fixture(scope="session")
def case_insensitive_mount(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A real folder on a filesystem that ignores case, mounted once for the whole run (tests.casefold);
    the tests that ask for it skip, saying why, where none can be mounted."""
    from tests.casefold import Unavailable, case_insensitive_folder

    try:
        with case_insensitive_folder(tmp_path_factory.mktemp("casefold")) as folder:
            yield folder
    except Unavailable as exc:
        pytest.skip(str(exc))


@pytest.fixture
def folding(case_insensitive_mount: Path) -> Path:
    """An empty folder of its own on the filesystem that ignores case."""
    folder = case_insensitive_mount / f"t{next(_FOLDERS)}"
    folder.mkdir()
    return folder


@pytest.fixture(autouse=True)
def cold_decisions() -> None:
    """Each test starts with no enforcement decision or record identity kept from another: what one test
    made must not answer for the next (and mutation testing sees every decision the code under test makes)."""
    from domain.contracts import records
    from domain.policy.enforcement import _decision

    _decision.cache_clear()
    records._identity.cache_clear()
