"""The content index's questions (SPEC §15, Scale) on a game folder: `define`, `mentions` and `which`
(target: 50 ms at the 99th percentile), `conflicts` and `missing` over the whole playset (target: 2 s
a page, the first page and one reached by cursor), each asked twice: in a playset of two stand-in mods,
and in the world of the game alone (no playset: a playset of no mods).

The stand-in mods are copies of the game's own files, made once in the scratch folder: "Patch A"
ships every 30th file the index reads at its own path (an override) and every 60th again under a
`zz_patch_` name beside it (so its keys are defined at two paths: key conflicts); "Patch B" ships every
90th at its own path (the same paths as Patch A: file conflicts). The index is built once, before any
timing (its build is bench/index_build.py's), and kept in the scratch folder for the next run.

The floor, measured in the same run, is the read of every file the index reads (open, read): what any
answer that looked at the files themselves would pay at least.

Each question is answered by the core in this process (admitted and decided, as the MCP adapter
makes it: `Core.answer`), its stat re-check of the folders it concerns included; that re-check alone
(nothing changed) has rows of its own, as it is a share of every answer.

    python bench/index_queries.py [--game PATH] [--scratch PATH] [--rounds N]
"""

import argparse
import json
import os
import shutil
import statistics
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import HERE, ensure_world, prepare_checkout_imports
from report import Row, Target, table

prepare_checkout_imports()
from app.bootstrap import build_core  # noqa: E402
from app.config import Rates, Settings  # noqa: E402
from domain.ck3 import content_index, definitions  # noqa: E402
from domain.replies.builder import Reply  # noqa: E402
from domain.use_cases.core import Core  # noqa: E402
from domain.vocabulary import Mode, RootCategory  # noqa: E402
from domain.world.adapter import WorldAdapter  # noqa: E402

R = RootCategory
MODS = ("Patch A", "Patch B")
KEY_QUESTIONS = 200
"""Samples of each key question: the 99th percentile of 200 is the second slowest."""
AFTER_EDITS = 20
"""Key questions asked right after an edit of a file they concern."""


def indexed_files(game: Path) -> list[str]:
    """The game-relative paths of every file the index reads, sorted."""
    found = []
    for top in sorted(definitions.TOPS):
        for folder, _, names in os.walk(game / top):
            for name in names:
                relative = (Path(folder) / name).relative_to(game)
                if definitions.file_kind(tuple(p.casefold() for p in relative.parts)):
                    found.append(relative.as_posix())
    return sorted(found)


def make_mods(game: Path, docs: Path) -> None:
    """The two stand-in mods (see the docstring), made once."""
    done = docs / ".mods.done"
    if done.exists():
        return
    shutil.rmtree(docs, ignore_errors=True)
    paths = indexed_files(game)
    plan = {
        "Patch A": [(p, p) for p in paths[::30]] + [(p, _renamed(p)) for p in paths[::60]],
        "Patch B": [(p, p) for p in paths[::90]],
    }
    for name, copies in plan.items():
        folder = docs / "mod" / name.replace(" ", "")
        for source, target in copies:
            (folder / target).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(game / source, folder / target)
        (folder / "descriptor.mod").write_text(f'name="{name}"\nsupported_version="1.*"\n', encoding="utf-8")
    done.touch()


def _renamed(path: str) -> str:
    folder, _, name = path.rpartition("/")
    return f"{folder}/zz_patch_{name}"


def settings(game: Path, scratch: Path, playset: str | None) -> Settings:
    data, docs = scratch / "data", scratch / "docs"
    entries = [
        {"name": name, "folder": f"ROOT_USER_DOCS:/mod/{name.replace(' ', '')}", "enabled": True}
        | {"load_order": order}
        for order, name in enumerate(MODS)
    ]
    (data / "playsets").mkdir(parents=True, exist_ok=True)
    (data / "playsets" / "bench.json").write_text(json.dumps({"name": "Bench", "mods": entries}), "utf-8")
    roots = {R.ROOT_GAME: game, R.ROOT_USER_DOCS: docs, R.ROOT_CK3RAVEN_DATA: data}
    return Settings(
        "bench",
        roots,
        R.ROOT_GAME,
        Mode.CK3RAVEN_DEV,
        playset,
        state_dir=scratch / "state",
        limits=Rates(0, 0),
    )


def asker(core: Core) -> Callable[[Mapping[str, Any]], Reply]:
    """A question to `ck3_playset` answered by the core, admitted and decided as any host's call."""
    session = core.start_session("bench")

    def ask(args: Mapping[str, Any]) -> Reply:
        command = str(args["command"])
        given = {k: v for k, v in args.items() if k != "command"}
        request = core.admit(session, "ck3_playset", command, given)
        return request if isinstance(request, Reply) else core.answer(session, request, paced=True)

    return ask


def timed(ask: Callable[[Mapping[str, Any]], Reply], args: Mapping[str, Any], rounds: int) -> list[float]:
    """Seconds of `rounds` answers to `args`, after one untimed; each must be a success."""
    reply = ask(args)
    if reply.reply_type != "S":
        sys.exit(f"bench: {args} answered {reply.code} {reply.data}")
    samples = []
    for _ in range(rounds):
        started = time.perf_counter()
        ask(args)
        samples.append(time.perf_counter() - started)
    return samples


def p99(samples: list[float]) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]


def floor(game: Path, paths: list[str]) -> float:
    started = time.perf_counter()
    for path in paths:
        with (game / path).open("rb") as handle:
            handle.read()
    return time.perf_counter() - started


def _after_edits(label: str, ask: Callable[[Mapping[str, Any]], Reply], touched: Path) -> list[Row]:
    """`define` with no kind and `mentions`, each asked right after the file `touched` of a mod's
    `common/traits/` was touched (outside the server): what a question pays when change notification says
    its folder changed (the game's own files are never touched)."""
    touched.parent.mkdir(parents=True, exist_ok=True)
    touched.write_text("bench_touched_trait = {\n}\n", encoding="utf-8")
    rows = []
    for name, args in (
        ("define, no kind", {"command": "define", "key": "brave"}),
        ("mentions", {"command": "mentions", "key": "brave"}),
    ):
        samples = []
        for _ in range(AFTER_EDITS):
            os.utime(touched)
            started = time.perf_counter()
            ask(args)
            samples.append(time.perf_counter() - started)
        note = f"median {statistics.median(samples) * 1e3:.1f} ms; the slowest of {AFTER_EDITS}"
        row = Row(f"{label}: {name}, right after an edit", max(samples), "ms", note=note)
        row.target = Target("absolute", 50)
        row.samples = {"ours": samples}
        rows.append(row)
    return rows


def world_rows(
    label: str, ask: Callable[[Mapping[str, Any]], Reply], rounds: int, low: float, touched: Path | None
) -> list[Row]:
    """The rows of one world: the key questions (p99 of KEY_QUESTIONS) and the whole-playset ones (the
    slowest of `rounds`, first page and a page by cursor)."""
    rows: list[Row] = []
    keys = [
        ("define, kind given", {"command": "define", "key": "brave", "kind": "traits"}),
        ("define, no kind", {"command": "define", "key": "brave"}),
        ("mentions", {"command": "mentions", "key": "brave"}),
        ("which (a file)", {"command": "which", "path": "common/traits/00_traits.txt"}),
    ]
    for name, args in keys:
        samples = timed(ask, args, KEY_QUESTIONS)
        note = f"median {statistics.median(samples) * 1e3:.1f} ms; {_counted(ask(args))}"
        row = Row(f"{label}: {name}", p99(samples), "ms", target=Target("absolute", 50), note=note)
        row.samples = {"ours": samples}
        rows.append(row)
    if touched is not None:
        rows += _after_edits(label, ask, touched)
    whole = [
        ("conflicts", {"command": "conflicts"}),
        ("missing french", {"command": "missing", "language": "french"}),
    ]
    for name, args in whole:
        first = ask(args)
        cursor = first.data.get("next_cursor")
        pages = [("first page", args)]
        if cursor:
            pages.append(("page by cursor", {**args, "cursor": str(cursor)}))
        for page, asked in pages:
            samples = timed(ask, asked, rounds)
            note = f"median {statistics.median(samples):.2f} s; {_counted(first)}"
            row = Row(f"{label}: {name}, {page}", max(samples), "s", "read every file", low, note=note)
            row.target = Target("absolute", 2)
            row.samples = {"ours": samples}
            rows.append(row)
    return rows


def _counted(reply: Reply) -> str:
    data = reply.data
    if "total" in data:
        return f"{data['total']:,} rows in all, {data['count']} on the page"
    if "count" in data:
        return f"{data['count']} definitions"
    return reply.code


def measure(rounds: int, game: Path | None = None, scratch: Path | None = None) -> list[Row]:
    game = game or ensure_world() / "game"
    scratch = scratch or HERE / ".index_queries"
    make_mods(game, scratch / "docs")
    paths = indexed_files(game)
    rows: list[Row] = []
    for label, playset in (("playset of 2 mods", "Bench"), ("game alone", None)):
        core = build_core(settings(game, scratch, playset))
        index = core.services.index
        assert index is not None
        world = WorldAdapter(core.services.files, core.defaults.view)
        started = time.perf_counter()
        done = content_index.refresh(world, index, content_index.sources_of(world))
        print(f"{label}: index refreshed in {time.perf_counter() - started:.1f} s ({done})", file=sys.stderr)
        low = statistics.median(floor(game, paths) for _ in range(3))
        touched = scratch / "docs" / "mod" / "PatchA" / "common" / "traits" / "zz_bench_touched.txt"
        rows += world_rows(label, asker(core), rounds, low, touched if playset else None)
        for folders in (tuple(sorted(definitions.TOPS)), ("localization",), ("common", "events", "gui")):
            found = content_index.sources_of(world)
            samples = []
            for _ in range(rounds):
                started = time.perf_counter()
                content_index.refresh(world, index, found, folders, budget=content_index.INLINE)
                samples.append(time.perf_counter() - started)
            case = f"{label}: the stat re-check alone, {', '.join(folders)}"
            rows.append(Row(case, statistics.median(samples), "ms", note="part of every answer above"))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--game", type=Path, help="a game folder (default: the generated world's)")
    parser.add_argument("--scratch", type=Path, help="where the mods, playset and index are kept")
    args = parser.parse_args()
    before = os.getloadavg()[0]
    rows = measure(args.rounds, args.game, args.scratch)
    print(table(rows))
    print(f"load average: {before:.2f} before, {os.getloadavg()[0]:.2f} after")


if __name__ == "__main__":
    main()
