"""Contract open (HEAD + carry-over status) and close (reconciliation since HEAD~100) through the History
adapter, against the git CLI doing the same work, on a generated repository: 20,000 files, 200 commits,
100 dirty files (made once under bench/.repo).

Cold: the first call of a fresh process (the adapter built and called once; the interpreter's start and
imports are not counted), one process per sample, sampled every round; git is a fresh process every time
anyway. Warm: the same adapter called again in this process. Every round takes git and ours in turn.

    python bench/contracts.py [--rounds 9]
"""

import argparse
import json
import random
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import CHECKOUT, GIT_QUIET, HERE, built, prepare_checkout_imports, quiet_git_config
from report import Row, Target, table
from timing import Contender, clocked, interleave

prepare_checkout_imports()
from adapters.dulwich_history import DulwichHistory  # noqa: E402 - the checkout is put on the path first

REPO = HERE / ".repo"
GIT = shutil.which("git") or "git"

COLD = r"""
import json, sys, time
sys.path.insert(0, sys.argv[1])
from adapters.dulwich_history import DulwichHistory
repo, step, baseline = sys.argv[2], sys.argv[3], sys.argv[4]
started = time.perf_counter()
history = DulwichHistory({"ROOT_REPO": repo})
if step == "open":
    head = history.head("ROOT_REPO")
    history.changes_since("ROOT_REPO", head)
else:
    history.changes_since("ROOT_REPO", baseline)
print(json.dumps(time.perf_counter() - started))
"""


def git(*args: str) -> str:
    return subprocess.run(
        [GIT, "-C", str(REPO), *GIT_QUIET, *args], check=True, capture_output=True, text=True
    ).stdout


def generate(files: int, commits: int, dirty: int) -> None:
    """The repository, made once (gc off: a long run of commits no longer dies on git's automatic gc),
    and made again from scratch when an earlier run left it half-made."""
    built(REPO, lambda _: _fill(files, commits, dirty))


def _fill(files: int, commits: int, dirty: int) -> None:
    rng = random.Random(7)
    REPO.mkdir(parents=True)
    git("init", "-q")
    quiet_git_config(REPO)
    git("config", "user.email", "bench@ck3raven")
    git("config", "user.name", "bench")
    paths = [f"common/d{i % 400:03}/f{i:05}.txt" for i in range(files)]
    for path in paths:
        (REPO / path).parent.mkdir(parents=True, exist_ok=True)
        (REPO / path).write_text(f"value = {rng.random()}\n" * 20, encoding="utf-8")
    git("add", "-A")
    git("commit", "-q", "-m", "commit 0")
    for number in range(1, commits):
        for path in rng.sample(paths, 10):
            (REPO / path).write_text(f"value = {rng.random()}\n" * 20, encoding="utf-8")
        git("commit", "-q", "-am", f"commit {number}")
    chosen = rng.sample(paths, dirty)
    for path in chosen[: dirty // 2]:
        (REPO / path).write_text("edited\n", encoding="utf-8")
    for path in chosen[dirty // 2 : dirty * 3 // 4]:
        (REPO / path).unlink()
    for index in range(dirty - dirty * 3 // 4):
        (REPO / "common" / f"new{index}.txt").write_text("new\n", encoding="utf-8")
    git("status", "--porcelain")  # refresh the index stat cache once, for both sides alike


def cold(step: str, baseline: str) -> Contender:
    """A fresh process's first call, timed inside that process."""

    def run() -> float:
        printed = subprocess.run(
            [sys.executable, "-c", COLD, str(CHECKOUT), str(REPO), step, baseline],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        return float(json.loads(printed))

    return run


def measure(rounds: int) -> list[Row]:
    generate(files=20_000, commits=200, dirty=100)
    baseline = git("rev-parse", "HEAD~100").strip()
    history = DulwichHistory({"ROOT_REPO": REPO})

    def ours_open() -> None:
        head = history.head("ROOT_REPO")
        assert head is not None
        history.changes_since("ROOT_REPO", head)

    def git_open() -> None:
        git("rev-parse", "HEAD")
        git("status", "--porcelain", "-uall")

    def git_close() -> None:
        git("diff", "--name-status", "--no-renames", baseline)
        git("ls-files", "--others", "--exclude-standard")

    samples = interleave(
        {
            "git open": clocked(git_open),
            "open cold": cold("open", baseline),
            "open warm": clocked(ours_open),
            "git close": clocked(git_close),
            "close cold": cold("close", baseline),
            "close warm": clocked(lambda: history.changes_since("ROOT_REPO", baseline)),
        },
        rounds,
    )
    middle = {name: statistics.median(values) for name, values in samples.items()}
    target = Target("ratio", 3.0)
    rows = []
    for step, git_label in (
        ("open", "git rev-parse + status -uall"),
        ("close", "git diff + ls-files --others"),
    ):
        for heat in ("cold", "warm"):
            name = f"{step} {heat}"
            rows.append(
                Row(
                    f"contract {step}, {heat}",
                    middle[name],
                    "ms",
                    git_label,
                    middle[f"git {step}"],
                    target,
                    samples={"ours": samples[name], "other": samples[f"git {step}"]},
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
