"""kill -9 at random points while the real core opens and closes contracts and decides approvals, then
check the state database: it opens cleanly (integrity check, schema) and holds each decision whole —
every closed contract has its close evidence and the reverse, every record in a final state has its
ended-id row and the reverse. Trials per operation are set with --trials (at least 50 for the figures).
"""

import argparse
import os
import random
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parent.parent

CHILD = r"""
import sys
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from adapters.sqlite_state import SqliteState
from app.bootstrap import build_core
from app.config import Settings
from domain.policy.pacing import Rates
from domain.contracts.lifecycle import OpenRequest
from domain.policy import approvals
from domain.use_cases.contract_work import Close, Open
from domain.vocabulary import Mode, RootCategory
from ports.contracts import TargetRecord

base, operation = Path(sys.argv[2]), sys.argv[3]
(base / "repo").mkdir(exist_ok=True)
settings = Settings("kill", {RootCategory.ROOT_REPO: base / "repo"}, RootCategory.ROOT_REPO,
                    Mode.CK3RAVEN_DEV, state_dir=base / "state", limits=Rates(0, 0))
core = build_core(settings, stored=SqliteState(base / "state" / "ck3raven.db"))
session = core.start_session("kill")
target = (TargetRecord("ROOT_REPO:/a.txt", "add"),)
request = OpenRequest("ROOT_REPO", "kill", ("WRITE",), target, "w", "k", 60)
authority = core.services.authority
print("ready", flush=True)
number = 0
while True:
    number += 1
    if operation == "approval":
        payload = f"mode:{number}".encode()
        asked = approvals.request(authority, "mode", b"session:kill\n" + payload, "switch")
        approvals.human_decision(authority, asked.approval_id, approve=True)
        approvals.settle(authority, "mode", payload, "switch", session_id="kill")
    else:
        core.answer(session, Open(request))
        if operation == "close":
            core.answer(session, Close())
        else:
            session.contract_id = None  # the next open is not refused as a second one
"""


def check(database: Path) -> list[str]:
    """What is wrong with the database after the kill (empty: whole)."""
    problems = []
    with sqlite3.connect(database) as db:
        if db.execute("PRAGMA integrity_check").fetchone()[0] != "ok":
            problems.append("integrity check failed")
        closed = {row[0] for row in db.execute("SELECT contract_id FROM contracts WHERE status = 'closed'")}
        evidence = {row[0] for row in db.execute("SELECT name FROM evidence WHERE kind = 'close'")}
        if closed != evidence:
            problems.append(f"closes without evidence or evidence without a close: {closed ^ evidence}")
        final = {
            row[0]
            for row in db.execute(
                "SELECT approval_id FROM approvals WHERE state IN ('consumed', 'declined') "
                "UNION SELECT contract_id FROM contracts WHERE status != 'open'"
            )
        }
        ended = {row[0] for row in db.execute("SELECT record_id FROM ended")}
        if final != ended:
            problems.append(f"final records and ended ids differ: {final ^ ended}")
    sys.path.insert(0, str(CHECKOUT))
    from adapters.sqlite_state import SqliteState

    SqliteState(database).close()  # opens cleanly: schema known, migrations applied
    return problems


def trial(operation: str, rng: random.Random) -> tuple[list[str], int]:
    with tempfile.TemporaryDirectory() as folder:
        base = Path(folder)
        child = subprocess.Popen(
            [sys.executable, "-c", CHILD, str(CHECKOUT), str(base), operation],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        assert child.stdout is not None
        child.stdout.readline()  # ready: the core is built
        time.sleep(rng.uniform(0.01, 0.4))
        os.kill(child.pid, signal.SIGKILL)
        child.wait()
        database = base / "state" / "ck3raven.db"
        with sqlite3.connect(database) as db:
            decisions = db.execute("SELECT COUNT(*) FROM contracts").fetchone()[0]
            decisions += db.execute("SELECT COUNT(*) FROM approvals").fetchone()[0]
        return check(database), decisions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--trials", type=int, default=50)
    args = parser.parse_args()
    rng = random.Random(11)
    print(f"{'operation':<10} {'trials':>6} {'torn':>5} {'records written (median)':>25}")
    failed = False
    for operation in ("open", "close", "approval"):
        torn, written = 0, []
        for _ in range(args.trials):
            problems, count = trial(operation, rng)
            written.append(count)
            if problems:
                torn += 1
                failed = True
                print(f"  {operation}: {'; '.join(problems)}")
        written.sort()
        print(f"{operation:<10} {args.trials:>6} {torn:>5} {written[len(written) // 2]:>25}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
