"""In-memory server fixtures: the real FastMCP server built by the composition root, both protocol eras."""

from collections.abc import Iterator
from pathlib import Path

import pytest

from app.config import Settings
from domain.vocabulary import Mode, RootCategory


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(params=["auto", "legacy"])
def era(request: pytest.FixtureRequest) -> str:
    """The MCP protocol era a client negotiates: 2026-07-28 (auto) or the 2025-11-25 handshake."""
    return str(request.param)


@pytest.fixture
def repo_settings(tmp_path: Path) -> Settings:
    repo = tmp_path / "repo"
    repo.mkdir()
    return Settings("test", {RootCategory.ROOT_REPO: repo}, RootCategory.ROOT_REPO, Mode.CK3RAVEN_DEV)


@pytest.fixture
def git_settings(tmp_path: Path) -> Settings:
    """ck3raven-dev over a small git repository (ROOT_REPO, `src/a.py` committed) and an empty data root."""
    from tests.worlds import small_git_repo

    repo, data = small_git_repo(tmp_path)
    roots = {RootCategory.ROOT_REPO: repo, RootCategory.ROOT_CK3RAVEN_DATA: data}
    return Settings("test", roots, RootCategory.ROOT_REPO, Mode.CK3RAVEN_DEV)


@pytest.fixture
def short_base() -> Iterator[Path]:
    """A folder with a short path: the approval socket lives under it, and Unix socket paths are limited."""
    import shutil
    import tempfile

    folder = Path(tempfile.mkdtemp(prefix="ck3", dir="/tmp"))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def lens_config(short_base: Path) -> Path:
    """A config serving a copy of the sample world in ck3lens with the sample playset, state beside it."""
    from tests.e2e.stdio import write_config
    from tests.worlds import sample_world_on_disk

    settings = sample_world_on_disk(short_base)
    roots = {root.value: path for root, path in settings.roots.items()}
    return write_config(short_base, mode="ck3lens", roots=roots, playset="Sample Playset")
