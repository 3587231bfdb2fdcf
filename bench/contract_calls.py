"""Contract open and close as whole calls (`ck3_contract open` and `close` through the FastMCP server, in
memory) on a documents folder of 15,000 files, in every layout modders use, against `git status
--porcelain` and a scandir walk of the same tree measured in the same rounds.

The trees (30 mod folders of 500 files under `mod/`, made once under bench/.contract_calls):
- `no git`: no repository anywhere;
- `every mod`: each mod folder its own repository;
- `mix`: every other mod folder a repository;
- `one repository`: the documents folder itself one repository;
- `touched`: every mod a repository whose files were all touched after the commit (same bytes, newer
  times), so the index's stat data match no file: the index git itself would refresh;
- `ck3lens`: the `no git` tree served in ck3lens mode, the 30 mods its active playset (the modder's
  mode: the scope is the playset's mod folders, each file spelled `mod:<name>:/...`).
Each round runs, in turn (the order reversed every other round), `git status --porcelain` on the
`one repository` tree (a fresh git process, as a user runs it), the scandir walk (an lstat of every entry)
of the `no git` tree, and for each layout one open then one close of a contract declaring one file, the
scope unchanged. A row holds a layout's open or close against `git status`, its target 2x at most, and
beside it the processor time each took (getrusage: this process's for a call, the child's for `git
status`), which a loaded machine moves less than the wall clock. With `--moved`, one file of the layout's
tree (not the declared one) is given a new modification time, an hour old, before each open: every open
then takes a baseline of its own, as a modder's next contract does after the last one changed files.
The untimed first round is each server's first open and close, whose survey lists every folder (and
marks each, where inotify can: later surveys list again only the folders where something happened); the
note of each row gives that first call's time.

    python bench/contract_calls.py [--rounds 6] [--moved]
"""

import argparse
import asyncio
import contextlib
import json
import logging
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import GIT_QUIET, HERE, built, prepare_checkout_imports, quiet_git_config
from report import Row, Target, table

prepare_checkout_imports()
import structlog  # noqa: E402 - the checkout is put on the path first
from fastmcp import Client  # noqa: E402

from app.bootstrap import build  # noqa: E402
from app.config import Settings  # noqa: E402
from domain.policy.pacing import Rates  # noqa: E402
from domain.vocabulary import Mode, RootCategory  # noqa: E402

TREES = HERE / ".contract_calls"
GIT = shutil.which("git") or "git"
MODS, PER_MOD = 30, 500
TREES_MADE = ("no git", "every mod", "mix", "one repository", "touched")
LAYOUTS = (*TREES_MADE, "ck3lens")
TARGET = "ROOT_USER_DOCS:/mod/mod00/common/d00/f0000.txt"
MOVED = Path("mod") / "mod29" / "common" / "d24" / "f0499.txt"
"""The file `--moved` gives a new modification time before each open."""
OPEN = {
    "command": "open",
    "root_category": "ROOT_USER_DOCS",
    "intent": "bench",
    "work_declaration": "one file",
    "operations": ["WRITE"],
    "targets": [{"path": TARGET, "edit_kind": "modify"}],
}
OPEN_LENS = {**OPEN, "targets": [{"path": "mod:mod00:/common/d00/f0000.txt", "edit_kind": "modify"}]}


def git(folder: Path, *args: str) -> None:
    subprocess.run([GIT, "-C", str(folder), *GIT_QUIET, *args], check=True, capture_output=True, text=True)


def _commit(folder: Path) -> None:
    git(folder, "init", "-q")
    quiet_git_config(folder)
    git(folder, "add", "-A")
    git(folder, "-c", "user.name=bench", "-c", "user.email=bench@ck3raven", "commit", "-q", "-m", "tree")


def tree(layout: str) -> Path:
    """The layout's documents folder, made once (a half-made one is made again)."""
    return built(TREES / layout.replace(" ", "-"), lambda root: _fill(root, layout))


def _fill(root: Path, layout: str) -> None:
    for mod in range(MODS):
        folder = root / "mod" / f"mod{mod:02}"
        for index in range(PER_MOD):
            path = folder / "common" / f"d{index % 25:02}" / f"f{index:04}.txt"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(f"key_{mod}_{index} = {{ value = {index} }}\n", encoding="utf-8")
        if layout in {"every mod", "touched"} or (layout == "mix" and mod % 2 == 0):
            _commit(folder)
    if layout == "one repository":
        _commit(root)
    if layout == "touched":
        later = time.time_ns() + 10_000_000_000
        for folder, subfolders, files in os.walk(root):
            subfolders[:] = [name for name in subfolders if name != ".git"]
            for name in files:
                os.utime(Path(folder) / name, ns=(later, later))


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


async def _call(client: Client, arguments: dict[str, Any], code: str) -> None:
    result = await client.call_tool("ck3_contract", arguments, raise_on_error=False)
    answered = dict(result.structured_content or {})
    assert answered.get("code") == code, answered


def _clients(roots: dict[str, Path], state: Path) -> dict[str, Client]:
    """An in-memory client of a server of its own over each layout's documents folder."""
    clients = {}
    for layout, root in roots.items():
        folders = {RootCategory.ROOT_USER_DOCS: root}
        if layout == "ck3lens":  # the playset names every mod of the tree
            data = state / "ck3lens-data"
            (data / "playsets").mkdir(parents=True, exist_ok=True)
            mods = [
                {
                    "name": f"mod{n:02}",
                    "folder": f"ROOT_USER_DOCS:/mod/mod{n:02}",
                    "enabled": True,
                    "load_order": n,
                }
                for n in range(MODS)
            ]
            (data / "playsets" / "bench.json").write_text(json.dumps({"name": "Bench", "mods": mods}))
            folders[RootCategory.ROOT_CK3RAVEN_DATA] = data
        settings = Settings(
            "bench",
            folders,
            RootCategory.ROOT_USER_DOCS,
            Mode.CK3LENS if layout == "ck3lens" else Mode.CK3RAVEN_DEV,
            "Bench" if layout == "ck3lens" else None,
            state_dir=state / layout.replace(" ", "-"),
            limits=Rates(0, 0),
        )
        clients[layout] = Client(build(settings))
    return clients


def _cpu(who: int = resource.RUSAGE_SELF) -> float:
    used = resource.getrusage(who)
    return used.ru_utime + used.ru_stime


async def measure_async(rounds: int, state: Path, *, moved: bool = False) -> dict[str, list[float]]:
    """Each contender's seconds per round (wall clock, and processor time as `cpu <name>`), after one
    untimed round."""
    # unconfigured, structlog prints each call's log line on stdout, through the table
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    roots = {layout: tree(layout) for layout in TREES_MADE}
    roots["ck3lens"] = roots["no git"]
    clients = _clients(roots, state)
    names = ["git status", "walk", *(f"{step} {layout}" for layout in LAYOUTS for step in ("open", "close"))]
    keys = [key for name in names for key in (name, f"cpu {name}")]
    samples: dict[str, list[float]] = {key: [] for name in keys for key in (name, f"first {name}")}
    steps = ["git status", "walk", *LAYOUTS]
    async with contextlib.AsyncExitStack() as stack:
        for client in clients.values():
            await stack.enter_async_context(client)
        for number in range(rounds + 1):
            for step in steps if number % 2 == 0 else reversed(steps):
                if moved and step in clients:
                    _move(roots[step] / MOVED, number)
                taken = await _step(step, roots, clients)
                for name, seconds in taken.items():
                    # the untimed round holds each server's first open and close: every folder listed
                    samples[name if number else f"first {name}"].append(seconds)
    return samples


def _move(path: Path, number: int) -> None:
    """A new modification time for `path`, an hour old (never racily clean), another each round."""
    then = time.time_ns() - 3_600_000_000_000 + number
    os.utime(path, ns=(then, then))


async def _step(step: str, roots: dict[str, Path], clients: dict[str, Client]) -> dict[str, float]:
    started, cpu = time.perf_counter(), _cpu()
    if step == "git status":
        child = _cpu(resource.RUSAGE_CHILDREN)
        git(roots["one repository"], "status", "--porcelain")
        return {step: time.perf_counter() - started, f"cpu {step}": _cpu(resource.RUSAGE_CHILDREN) - child}
    if step == "walk":
        floor_walk(roots["no git"])
        return {step: time.perf_counter() - started, f"cpu {step}": _cpu() - cpu}
    await _call(clients[step], OPEN_LENS if step == "ck3lens" else OPEN, "CT-GATE-S-001")
    opened, cpu_opened = time.perf_counter(), _cpu()
    await _call(clients[step], {"command": "close"}, "CT-GATE-S-002")
    return {
        f"open {step}": opened - started,
        f"close {step}": time.perf_counter() - opened,
        f"cpu open {step}": cpu_opened - cpu,
        f"cpu close {step}": _cpu() - cpu_opened,
    }


def measure(rounds: int, *, moved: bool = False) -> list[Row]:
    with tempfile.TemporaryDirectory(prefix="ck3raven-bench-") as folder:
        samples = asyncio.run(measure_async(rounds, Path(folder), moved=moved))
    middle = {name: statistics.median(values) for name, values in samples.items()}
    files = floor_walk(tree("no git"))
    rows = []
    for layout in LAYOUTS:
        for step in ("open", "close"):
            name = f"{step} {layout}"
            walk = middle[name] / middle["walk"]
            cpu, cpu_git = middle[f"cpu {name}"], middle["cpu git status"]
            rows.append(
                Row(
                    f"contract {step} call, {layout} ({files:,} entries)",
                    middle[name],
                    against="git status --porcelain",
                    other=middle["git status"],
                    target=Target("ratio", 2),
                    note=f"{walk:.1f}x the scandir walk ({middle['walk'] * 1000:.0f} ms); processor time "
                    f"{cpu * 1000:.0f} ms, {cpu / cpu_git:.1f}x git status's ({cpu_git * 1000:.0f} ms); "
                    f"the server's first {step} {middle[f'first {name}'] * 1000:.0f} ms",
                    samples={"ours": samples[name], "other": samples["git status"]},
                )
            )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--moved", action="store_true", help="a file moved before each open")
    args = parser.parse_args()
    print(table(measure(args.rounds, moved=args.moved)))


if __name__ == "__main__":
    main()
