"""The governing contract is read and verified once per version of the state store, and kept in the session:
anything written to the store since, through this server or by another process on the same database,
makes the next call read and verify it again, and its expiry is checked at every call."""

import json
import sqlite3
from pathlib import Path

import pytest
from attrs import evolve

from adapters.memory_state import MemoryState
from adapters.sqlite_state import SqliteState
from app.bootstrap import build_core
from app.config import Settings
from domain.contracts.lifecycle import OpenRequest, active_contract, governing
from domain.policy.pacing import Rates
from domain.session import Session
from domain.use_cases.contract_work import Open
from domain.use_cases.core import Core
from domain.vocabulary import Mode, RootCategory
from ports.contracts import TargetRecord
from tests.fakes import FakeClock

ADDRESS = "ROOT_REPO:/common/a.txt"


def opened(base: Path, stored: SqliteState | MemoryState, clock: FakeClock) -> tuple[Core, Session]:
    repo = base / "repo"
    (repo / "common").mkdir(parents=True)
    (repo / "common" / "a.txt").write_text("a = 1\n", encoding="utf-8")
    settings = Settings(
        "test",
        {RootCategory.ROOT_REPO: repo},
        RootCategory.ROOT_REPO,
        Mode.CK3RAVEN_DEV,
        state_dir=base / "state",
        limits=Rates(0, 0),
    )
    core = build_core(settings, stored=stored, clock=clock)
    session = core.start_session("s")
    declared = OpenRequest("ROOT_REPO", "i", ("WRITE",), (TargetRecord(ADDRESS, "modify"),), "w", "t", 60)
    reply = core.answer(session, Open(declared))
    assert reply.code == "CT-GATE-S-001", reply.code
    assert active_contract(session, core.services) is not None  # verified once, and kept
    return core, session


def test_a_contract_another_process_changed_in_the_database_is_verified_again_and_refused(tmp_path: Path):
    database = tmp_path / "state" / "ck3raven.db"
    stored = SqliteState(database)
    core, session = opened(tmp_path, stored, FakeClock())
    other = sqlite3.connect(database)  # another server on the same state: its commit is seen by data_version
    (text,) = other.execute(
        "SELECT record FROM contracts WHERE contract_id = ?", (session.contract_id,)
    ).fetchone()
    record = json.loads(text)
    record["operations"] = ["WRITE", "DELETE"]  # widened outside the server: its signature no longer holds
    with other:
        other.execute(
            "UPDATE contracts SET record = ? WHERE contract_id = ?", (json.dumps(record), session.contract_id)
        )
    other.close()

    assert active_contract(session, core.services) is None
    assert governing(session, core.services) is None
    stored.close()


@pytest.mark.parametrize("kind", ["sqlite", "memory"])
def test_a_contract_rewritten_through_the_store_is_verified_again(tmp_path: Path, kind: str):
    stored = SqliteState(tmp_path / "state" / "ck3raven.db") if kind == "sqlite" else MemoryState()
    core, session = opened(tmp_path, stored, FakeClock())
    record = core.services.contracts.get(str(session.contract_id))
    assert record is not None
    core.services.contracts.put(evolve(record, state_signature="0" * 64))

    assert active_contract(session, core.services) is None


def test_a_kept_contract_stops_governing_once_it_expires(tmp_path: Path):
    clock = FakeClock()
    core, session = opened(tmp_path, MemoryState(), clock)
    clock.advance(minutes=59)
    assert active_contract(session, core.services) is not None
    clock.advance(minutes=2)  # nothing written to the store: only the expiry has changed

    assert active_contract(session, core.services) is None
    assert governing(session, core.services) is None
