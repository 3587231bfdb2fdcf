"""A governed write (resolve, enforce against the session's open contract, atomic write) with 0, 1,000
and 10,000 other contracts in the state database: the cost must stay flat, since the governing contract
is found by its id. Each is held against the write with none stored, and that one against the same write
through the Files adapter alone (no governance). In process through the real core; the four are taken in
turn every round, medians over the rounds.
"""

import argparse
import statistics
import sys
import tempfile
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from report import Row, table
from timing import Contender, clocked, interleave

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from attrs import evolve

from adapters.local_files import LocalFiles
from adapters.sqlite_state import SqliteState
from app.bootstrap import build_core
from app.config import Settings
from domain.contracts.lifecycle import OpenRequest
from domain.policy.pacing import Rates
from domain.session import Session
from domain.use_cases.contract_work import Open
from domain.use_cases.core import Core
from domain.use_cases.file_access import Write
from domain.vocabulary import Mode, RootCategory
from ports.contracts import TargetRecord
from ports.files import Location


def world(base: Path, stored: int) -> tuple[Core, Session, LocalFiles]:
    """A core over a fresh repo root and state holding `stored` other (closed) contracts, with one open."""
    repo = base / "repo"
    repo.mkdir()
    settings = Settings(
        "bench",
        {RootCategory.ROOT_REPO: repo},
        RootCategory.ROOT_REPO,
        Mode.CK3RAVEN_DEV,
        state_dir=base / "state",
        limits=Rates(0, 0),  # throughput, not pacing
    )
    state = SqliteState(base / "state" / "ck3raven.db")
    core = build_core(settings, stored=state)
    session = core.start_session("bench")
    request = OpenRequest(
        "ROOT_REPO", "bench", ("WRITE",), (TargetRecord("ROOT_REPO:/a.txt", "add"),), "write a", "bench", 60
    )
    opened = core.answer(session, Open(request))
    assert opened.code == "CT-GATE-S-001", opened.code
    record = state.contracts.get(str(session.contract_id))
    assert record is not None
    with state.atomic():
        for number in range(stored):
            state.contracts.put(
                evolve(record, contract_id=f"ct-old{number:05}", session_id="other", status="closed")
            )
    return core, session, LocalFiles({"ROOT_REPO": repo})


def measure(rounds: int) -> list[Row]:
    """A governed write with 0, 1,000 and 10,000 stored contracts, and the Files adapter's write alone,
    taken in turn every round."""
    body = Write("ROOT_REPO:/a.txt", "x" * 100)
    with tempfile.TemporaryDirectory() as folder:
        contenders: dict[str, Contender] = {}
        for stored in (0, 1_000, 10_000):
            base = Path(folder) / str(stored)
            base.mkdir()
            core, session, files = world(base, stored)
            contenders[str(stored)] = clocked(partial(core.answer, session, body))
        floor = partial(files.write, Location("ROOT_REPO", ("a.txt",)), b"x" * 100)
        contenders["floor"] = clocked(floor)
        samples = interleave(contenders, rounds)
    middle = {name: statistics.median(values) for name, values in samples.items()}
    rows = [
        Row(
            "governed write, 0 stored contracts",
            middle["0"],
            "ms",
            "the Files adapter's write alone",
            middle["floor"],
        )
    ]
    rows += [
        Row(
            f"governed write, {stored:,} stored contracts",
            middle[str(stored)],
            "ms",
            "the same write, 0 stored",
            middle["0"],
            samples={"ours": samples[str(stored)], "other": samples["0"]},
        )
        for stored in (1_000, 10_000)
    ]
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=90)
    args = parser.parse_args()
    print(table(measure(args.rounds)))


if __name__ == "__main__":
    main()
