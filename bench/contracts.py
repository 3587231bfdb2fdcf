"""Contract open (baseline + carry-over status) and close (reconciliation) against the git CLI doing the
same work, on a generated repository: 20,000 files, 200 commits, 100 dirty files. Same run, medians.
"""

import argparse
import random
import shutil
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from timing import median_ms

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from adapters.dulwich_history import DulwichHistory  # noqa: E402 - the checkout is put on the path first

REPO = HERE / ".repo"
GIT = shutil.which("git") or "git"


def git(*args: str) -> str:
    return subprocess.run([GIT, "-C", str(REPO), *args], check=True, capture_output=True, text=True).stdout


def generate(files: int, commits: int, dirty: int) -> None:
    if (REPO / ".git").is_dir():
        return
    rng = random.Random(7)
    REPO.mkdir(parents=True)
    git("init", "-q")
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    generate(files=20_000, commits=200, dirty=100)
    history = DulwichHistory({"ROOT_REPO": REPO})
    baseline = git("rev-parse", "HEAD~100").strip()
    head_sha = git("rev-parse", "HEAD").strip()

    def ours_open() -> None:
        head = history.head("ROOT_REPO")
        assert head is not None
        history.changes_since("ROOT_REPO", head)

    def git_open() -> None:
        git("rev-parse", "HEAD")
        git("status", "--porcelain", "-uall")

    def ours_close() -> None:
        history.changes_since("ROOT_REPO", baseline)

    def git_close() -> None:
        git("diff", "--name-status", "--no-renames", baseline)
        git("ls-files", "--others", "--exclude-standard")

    rows = [
        ("open (HEAD + carry-over status)", ours_open, git_open),
        ("close (reconcile since HEAD~100)", ours_close, git_close),
    ]
    print(f"{'step':<36} {'git CLI ms':>11} {'ck3raven ms':>12} {'ratio':>6} {'cold ms':>9} {'ratio':>6}")
    for name, ours, theirs in rows:
        started = time.perf_counter()
        DulwichHistory({"ROOT_REPO": REPO}).changes_since(
            "ROOT_REPO", baseline if "close" in name else head_sha
        )
        cold = (time.perf_counter() - started) * 1000  # a fresh server: index parsed, trees flattened
        ours()  # warm both once
        theirs()
        mine, floor = median_ms(ours, args.repeats), median_ms(theirs, args.repeats)
        print(
            f"{name:<36} {floor:>11.1f} {mine:>12.1f} {mine / floor:>6.2f} {cold:>9.1f} {cold / floor:>6.2f}"
        )


if __name__ == "__main__":
    main()
