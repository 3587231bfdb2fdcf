"""kill -9 during file writes, on both write paths (an anonymous O_TMPFILE file renamed in; where that is
missing, a named temporary file — forced here by hiding O_TMPFILE from the child), then check the file:
old content or new, never a mix, and no temporary file an agent could see. --trials per path (≥ 50).
"""

import argparse
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parent.parent
SIZE = 256 * 1024

CHILD = r"""
import os, sys
if sys.argv[3] == "named":
    del os.O_TMPFILE  # as on macOS: the named temporary file path
sys.path.insert(0, sys.argv[1])
from pathlib import Path
from adapters.local_files import LocalFiles
from ports.files import Location
files = LocalFiles({"ROOT_REPO": Path(sys.argv[2])})
where = Location("ROOT_REPO", ("f.bin",))
size = int(sys.argv[4])
print("ready", flush=True)
turn = 0
while True:
    turn += 1
    files.write(where, (b"A" if turn % 2 else b"B") * size)
"""


def trial(path_kind: str, rng: random.Random) -> list[str]:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        (root / "f.bin").write_bytes(b"B" * SIZE)
        child = subprocess.Popen(
            [sys.executable, "-c", CHILD, str(CHECKOUT), str(root), path_kind, str(SIZE)],
            stdout=subprocess.PIPE,
        )
        assert child.stdout is not None
        child.stdout.readline()
        time.sleep(rng.uniform(0.005, 0.2))
        os.kill(child.pid, signal.SIGKILL)
        child.wait()
        problems = []
        data = (root / "f.bin").read_bytes()
        if data not in (b"A" * SIZE, b"B" * SIZE):
            problems.append(f"torn: {len(data)} bytes, {len(set(data))} distinct")
        sys.path.insert(0, str(CHECKOUT))
        from adapters.local_files import LocalFiles
        from domain.vocabulary import Mode, RootCategory
        from domain.world.adapter import WorldAdapter
        from domain.world.view import WorldView

        world = WorldAdapter(
            LocalFiles({"ROOT_REPO": root}), WorldView(Mode.CK3RAVEN_DEV, frozenset({RootCategory.ROOT_REPO}))
        )
        _, top = world.resolve("ROOT_REPO:/", RootCategory.ROOT_REPO)
        assert top is not None
        seen = [entry.name for entry in world.list_dir(top)]
        if seen != ["f.bin"]:
            problems.append(f"an agent sees {seen}")
        return problems


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--trials", type=int, default=50)
    args = parser.parse_args()
    rng = random.Random(5)
    failed = False
    print(f"{'write path':<12} {'trials':>6} {'torn or seen':>13}")
    for path_kind in ("anonymous", "named"):
        bad = 0
        for _ in range(args.trials):
            problems = trial(path_kind, rng)
            if problems:
                bad += 1
                failed = True
                print(f"  {path_kind}: {'; '.join(problems)}")
        print(f"{path_kind:<12} {args.trials:>6} {bad:>13}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
