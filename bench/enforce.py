"""Resolve + enforce in process: what a governed write decides before it touches the file. The session's
World Adapter resolves the address to a ref, the governing contract is looked up and verified, the
target's facts are gathered (the protection manifest read afresh) and `enforce` answers S. Here for a
write to ROOT_REPO:/common/a.txt under an open contract that declares it (the full path: every check runs).

Two cores from the public composition (app.bootstrap.build_core), interleaved round by round:
- without filesystem probes: the roots in memory (MemoryFiles) and the state in memory (MemoryState);
- with them: the roots on disk (LocalFiles: each resolve walks the pinned descriptors and lstats the
  target, the manifest is opened) and the state in SQLite, as `ck3raven serve` runs.
Each sample is the mean of a batch of calls; the table shows the median sample, and each step alone.

    python bench/enforce.py [--rounds 9]
"""

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import prepare_checkout_imports
from report import Row, Target, table
from timing import Contender, interleave

prepare_checkout_imports()
from adapters.memory_files import MemoryFiles  # noqa: E402 - the checkout is put on the path first
from adapters.memory_state import MemoryState  # noqa: E402
from adapters.sqlite_state import SqliteState  # noqa: E402
from app.bootstrap import build_core  # noqa: E402
from app.config import Settings  # noqa: E402
from domain.contracts.lifecycle import OpenRequest, active_contract  # noqa: E402
from domain.policy.enforcement import enforce  # noqa: E402
from domain.policy.pacing import Rates  # noqa: E402
from domain.use_cases.contract_work import Open  # noqa: E402
from domain.vocabulary import Mode, Operation, RootCategory  # noqa: E402
from ports.contracts import TargetRecord  # noqa: E402

ADDRESS = "ROOT_REPO:/common/a.txt"
BATCH = 500


class Governed:
    """A core with an open contract for ADDRESS, and the steps of deciding a write to it."""

    def __init__(self, base: Path, *, probes: bool) -> None:
        repo = base / "repo"
        (repo / "common").mkdir(parents=True)
        (repo / "common" / "a.txt").write_text("a = 1\n", encoding="utf-8")
        settings = Settings(
            "bench",
            {RootCategory.ROOT_REPO: repo},
            RootCategory.ROOT_REPO,
            Mode.CK3RAVEN_DEV,
            state_dir=base / "state",
            limits=Rates(0, 0),
        )
        if probes:
            self.core = build_core(settings, stored=SqliteState(base / "state" / "ck3raven.db"))
        else:
            files = MemoryFiles({"ROOT_REPO": {"common": {"a.txt": b"a = 1\n"}}})
            self.core = build_core(settings, files=files, stored=MemoryState())
        self.session = self.core.start_session("bench")
        declared = OpenRequest(
            "ROOT_REPO", "bench", ("WRITE",), (TargetRecord(ADDRESS, "modify"),), "edit a", "bench", 60
        )
        opened = self.core.answer(self.session, Open(declared))
        assert opened.code == "CT-GATE-S-001", (opened.code, dict(opened.data))

    def decide(self) -> None:
        session, services = self.session, self.core.services
        _, ref = session.world.resolve(ADDRESS, session.home, must_exist=False)
        assert ref is not None
        decision = enforce(
            session.mode, Operation.WRITE, session.world.target(ref), active_contract(session, services)
        )
        assert not decision.terminal, decision.code

    def steps(self) -> dict[str, Callable[[], object]]:
        session, services = self.session, self.core.services
        _, ref = session.world.resolve(ADDRESS, session.home, must_exist=False)
        assert ref is not None
        target, contract = session.world.target(ref), active_contract(session, services)
        return {
            "resolve": lambda: session.world.resolve(ADDRESS, session.home, must_exist=False),
            "contract": lambda: active_contract(session, services),
            "target facts": lambda: session.world.target(ref),
            "enforce": lambda: enforce(session.mode, Operation.WRITE, target, contract),
        }


def batched(fn: Callable[[], object]) -> Contender:
    """Seconds per call: the mean over a batch."""

    def run() -> float:
        started = time.perf_counter()
        for _ in range(BATCH):
            fn()
        return (time.perf_counter() - started) / BATCH

    return run


def measure(rounds: int) -> list[Row]:
    with tempfile.TemporaryDirectory(prefix="ck3raven-bench-") as folder:
        memory = Governed(Path(folder) / "memory", probes=False)
        disk = Governed(Path(folder) / "disk", probes=True)
        contenders: dict[str, Contender] = {"memory": batched(memory.decide), "disk": batched(disk.decide)}
        for label, governed in (("memory", memory), ("disk", disk)):
            contenders |= {f"{label} {step}": batched(fn) for step, fn in governed.steps().items()}
        samples = interleave(contenders, rounds)
    middle = {name: statistics.median(values) for name, values in samples.items()}
    rows = []
    for label, case, limit in (
        ("memory", "resolve + enforce, no filesystem probes", 20),
        ("disk", "resolve + enforce, with filesystem probes", 60),
    ):
        steps = ", ".join(
            f"{step} {middle[f'{label} {step}'] * 1e6:.1f} us"
            for step in ("resolve", "contract", "target facts", "enforce")
        )
        ports = "files and state in memory" if label == "memory" else "files on disk, state in SQLite"
        rows.append(
            Row(
                case,
                middle[label],
                "us",
                target=Target("absolute", limit),
                note=f"{ports}; each step alone: {steps}",
                samples={"ours": samples[label]},
            )
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--rounds", type=int, default=9)
    args = parser.parse_args()
    print(table(measure(args.rounds)))


if __name__ == "__main__":
    main()
