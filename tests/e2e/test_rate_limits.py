"""Rate limits per session, lower for mutations: over the limit a call is EN-EXEC-D-001 with
data.retry_after_ms, changes nothing, and other sessions are untouched."""

from pathlib import Path

import pytest
from attrs import evolve
from fastmcp import Client

from app.bootstrap import build
from app.config import Settings
from domain.policy.pacing import Rates
from domain.vocabulary import Mode, RootCategory

pytestmark = pytest.mark.anyio


@pytest.fixture
def paced(tmp_path: Path) -> Settings:
    """Two mutations and twenty reads a minute per session, over a data root whose wip takes writes."""
    (tmp_path / "data" / "wip").mkdir(parents=True)
    roots = {RootCategory.ROOT_CK3RAVEN_DATA: tmp_path / "data"}
    settings = Settings("test", roots, RootCategory.ROOT_CK3RAVEN_DATA, Mode.CK3RAVEN_DEV)
    return evolve(settings, limits=Rates(reads_per_minute=20, mutations_per_minute=2))


def write(n: int) -> dict[str, object]:
    return {"command": "write", "path": "wip/a.txt", "content": f"version {n}"}


async def test_the_mutation_past_the_limit_is_denied_with_a_retry_time_and_changes_nothing(paced: Settings):
    async with Client(build(paced)) as client:
        for n in range(2):
            await client.call_tool("ck3_file", write(n))
        third = (await client.call_tool("ck3_file", write(2), raise_on_error=False)).structured_content

    assert third["code"] == "EN-EXEC-D-001"
    assert 0 < third["data"]["retry_after_ms"] <= 30_000
    assert (paced.roots[RootCategory.ROOT_CK3RAVEN_DATA] / "wip" / "a.txt").read_text() == "version 1"


async def test_reads_go_on_when_mutations_are_over_their_limit(paced: Settings):
    async with Client(build(paced)) as client:
        for n in range(3):
            await client.call_tool("ck3_file", write(n), raise_on_error=False)
        read = (await client.call_tool("ck3_read", {"path": "wip/a.txt"})).structured_content

    assert read["code"] == "WA-READ-S-003"
