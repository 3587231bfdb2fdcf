"""What governing every layout costs: the manifest a contract takes at open, the reconciliation at close,
and the journal entry a governed write adds.

A tree of 15,000 files (30 mod folders of 500) is made once under bench/.baselines in three layouts:
`manifest` (no git), `repository` (the root is one repository) and `mixed` (every other mod folder is a
repository of its own). Interleaved round by round:
- open: the baseline (`domain.contracts.baseline.take` and `store`, into SQLite) against a floor that
  walks the same tree with `os.scandir` and lstats every entry;
- close: the reconciliation of an unchanged scope (`domain.contracts.reconciliation.reconcile`) against
  `git status --porcelain` on the repository of the same tree (a fresh git process, as a user runs it);
- a governed 10 KiB write through the core with its journal entry, against the same write with a journal
  that records nothing. The journal's entry is forced to the disk (`synchronous=FULL`) before the file
  changes; marking it done is not forced; the call's audit row is written by the adapter after the reply
  (unforced), not here.

    python bench/baselines.py [--rounds 9]
"""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import CONTENT, GIT_QUIET, HERE, built, prepare_checkout_imports, quiet_git_config
from report import Row, Target, table
from timing import clocked, interleave

prepare_checkout_imports()
from attrs import evolve  # noqa: E402 - the checkout is put on the path first

from adapters.sqlite_state import SqliteState  # noqa: E402
from app.bootstrap import build_core  # noqa: E402
from app.config import Settings  # noqa: E402
from domain.contracts import baseline, reconciliation  # noqa: E402
from domain.contracts.lifecycle import OpenRequest  # noqa: E402
from domain.policy.pacing import Rates  # noqa: E402
from domain.use_cases.commands import HANDLERS  # noqa: E402
from domain.use_cases.contract_work import Open  # noqa: E402
from domain.use_cases.file_access import Write  # noqa: E402
from domain.vocabulary import Mode, RootCategory  # noqa: E402
from ports.contracts import TargetRecord  # noqa: E402
from ports.journal import JournalEntry  # noqa: E402

TREES = HERE / ".baselines"
GIT = shutil.which("git") or "git"
MODS, PER_MOD = 30, 500
LAYOUTS = ("manifest", "repository", "mixed")
TARGET = "mod00/common/d00/f0000.txt"


def git(folder: Path, *args: str) -> None:
    subprocess.run([GIT, "-C", str(folder), *GIT_QUIET, *args], check=True, capture_output=True, text=True)


def _commit(folder: Path) -> None:
    git(folder, "init", "-q")
    quiet_git_config(folder)
    git(folder, "add", "-A")
    git(folder, "-c", "user.name=bench", "-c", "user.email=bench@ck3raven", "commit", "-q", "-m", "tree")


def tree(layout: str) -> Path:
    """The layout's tree, made once (a half-made one is made again)."""
    return built(TREES / layout, lambda root: _fill(root, layout))


def _fill(root: Path, layout: str) -> None:
    for mod in range(MODS):
        for index in range(PER_MOD):
            path = root / f"mod{mod:02}" / "common" / f"d{index % 25:02}" / f"f{index:04}.txt"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(f"key_{mod}_{index} = {{ value = {index} }}\n", encoding="utf-8")
        if layout == "mixed" and mod % 2 == 0:
            _commit(root / f"mod{mod:02}")
    if layout == "repository":
        _commit(root)


def floor_walk(root: Path) -> int:
    """os.scandir over every folder, lstat of every entry: what any survey must at least do."""
    count, pending = 0, [str(root)]
    while pending:
        with os.scandir(pending.pop()) as entries:
            for entry in entries:
                entry.stat(follow_symlinks=False)
                count += 1
                if entry.is_dir(follow_symlinks=False) and entry.name != ".git":
                    pending.append(entry.path)
    return count


class Governed:
    """A core over one layout with a contract open on it (SQLite state, as `ck3raven serve` runs)."""

    def __init__(self, root: Path, state: Path) -> None:
        settings = Settings(
            "bench",
            {RootCategory.ROOT_REPO: root},
            RootCategory.ROOT_REPO,
            Mode.CK3RAVEN_DEV,
            state_dir=state,
            limits=Rates(0, 0),
        )
        self.core = build_core(settings, stored=SqliteState(state / "ck3raven.db"))
        self.session = self.core.start_session("bench")
        target = (TargetRecord(f"ROOT_REPO:/{TARGET}", "modify"),)
        declared = OpenRequest("ROOT_REPO", "bench", ("WRITE",), target, "edit", "bench", 60)
        opened = self.core.answer(self.session, Open(declared))
        assert opened.code == "CT-GATE-S-001", (opened.code, dict(opened.data))
        self.record = self.core.services.contracts.get(str(self.session.contract_id))

    def open(self) -> None:
        taken, _ = baseline.take(self.session, self.core.services, "ROOT_REPO")
        baseline.store(self.core.services, taken)

    def close(self) -> None:
        assert self.record is not None
        found = reconciliation.reconcile(self.session, self.core.services, self.record)
        assert not found.changes, found.changes

    def write(self, *, journal: bool) -> None:
        services = self.core.services if journal else evolve(self.core.services, journal=_Unrecorded())
        request = Write(f"ROOT_REPO:/{TARGET}", CONTENT)
        reply = HANDLERS[Write](self.session, services, request)
        assert reply.code == "WA-WRITE-S-001", reply.code


class _Unrecorded:
    """A journal that records nothing: the write without its entry."""

    def begin(self, _entry: JournalEntry, _content_before: bytes | None) -> None:
        return None

    def settle(self, _entry_id: str, _state: str) -> None:
        return None

    def entries(self, _contract_ids: object = None) -> list[JournalEntry]:
        return []

    def content_before(self, _entry_id: str) -> bytes | None:
        return None


def measure(rounds: int) -> list[Row]:
    roots = {layout: tree(layout) for layout in LAYOUTS}
    with tempfile.TemporaryDirectory(prefix="ck3raven-bench-") as folder:
        governed = {layout: Governed(roots[layout], Path(folder) / layout) for layout in LAYOUTS}
        repo = roots["repository"]
        contenders = {"floor": clocked(lambda: floor_walk(roots["manifest"]))}
        contenders["git status"] = clocked(lambda: git(repo, "status", "--porcelain"))
        for layout, core in governed.items():
            contenders[f"open {layout}"] = clocked(core.open)
            contenders[f"close {layout}"] = clocked(core.close)
        samples = interleave(contenders, rounds)
        writes = interleave(
            {
                "journaled": clocked(lambda: governed["manifest"].write(journal=True)),
                "unjournaled": clocked(lambda: governed["manifest"].write(journal=False)),
            },
            rounds * 20,
        )
    middle = {name: statistics.median(values) for name, values in samples.items()}
    files = floor_walk(roots["manifest"])
    rows = [
        Row(
            f"open's manifest, {layout} ({files:,} entries)",
            middle[f"open {layout}"],
            against="scandir + lstat walk",
            other=middle["floor"],
            target=Target("ratio", 2),
            samples={"ours": samples[f"open {layout}"], "other": samples["floor"]},
        )
        for layout in LAYOUTS
    ]
    rows += [
        Row(
            f"close's reconciliation, {layout}",
            middle[f"close {layout}"],
            against="git status --porcelain",
            other=middle["git status"],
            target=Target("ratio", 2),
            samples={"ours": samples[f"close {layout}"], "other": samples["git status"]},
        )
        for layout in LAYOUTS
    ]
    journaled, bare = statistics.median(writes["journaled"]), statistics.median(writes["unjournaled"])
    rows.append(
        Row(
            "governed 10 KiB write, journaled",
            journaled,
            against="the same write, unjournaled",
            other=bare,
            note="entry forced to disk (synchronous=FULL) before the write; done-mark unforced; "
            "audit row written after the reply, unforced",
            samples={"ours": writes["journaled"], "other": writes["unjournaled"]},
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
