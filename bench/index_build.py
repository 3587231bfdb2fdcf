"""The content index (SPEC §15, Scale) on a game folder: the generated CK3 world's (about 31,000 script, GUI
and localisation files) by default, or a real game's with --world (its folder holding game/):
- cold build: a whole build into a new index file in a fresh process, parsed by worker processes as the
  server's builder does, against a floor that reads every file the index reads (target: 10 s); also the
  index's size on disk, write-ahead log included, as a share of the bytes read (target: 25%);
- warm start: the same refresh with nothing changed (every file stat-ed, none read), target 0.5 s;
- `ck3_dir pwd` while a build runs in a child process: its 99th percentile against the same call's when
  idle (before and after the build, at the same pace: a call every 2 ms), target 2x;
- key lookup: `ck3_playset define` (a trait, kind given) straight on the core, its stat re-check
  included, target 5 ms;
- update: the index's share of a governed write, a 100 KiB script file re-indexed, target 20 ms;
- peak RSS of the building process (its workers apart), target 300 MB;
- with --agree: every file parsed by the fast pass and by the parser alone, and the files where the two
  differ counted (target: none).

    python bench/index_build.py [--rounds 3] [--world PATH] [--agree]
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import CHECKOUT, ensure_world, prepare_checkout_imports
from report import Row, Target, table
from timing import clocked, interleave

prepare_checkout_imports()
from adapters.sqlite_index import SqliteIndex  # noqa: E402
from app.bootstrap import build_core  # noqa: E402
from app.config import Settings  # noqa: E402
from app.parse_workers import processors  # noqa: E402
from domain.ck3 import content_index, definitions  # noqa: E402
from domain.replies.builder import Reply  # noqa: E402
from domain.use_cases import content_queries  # noqa: E402
from domain.use_cases.commands import COMMANDS  # noqa: E402
from domain.vocabulary import Mode, RootCategory  # noqa: E402
from domain.world.adapter import WorldAdapter  # noqa: E402

TOPS = tuple(sorted(definitions.TOPS))
BUILD = """
import resource, sys, time
sys.path.insert(0, {checkout!r})
from pathlib import Path
from adapters.local_files import LocalFiles
from adapters.sqlite_index import SqliteIndex
from adapters.system_clock import SystemClock
from app.collection import stopped
from app.parse_workers import Workers, processors
from domain.use_cases.content_queries import build_into
from domain.vocabulary import Mode, RootCategory
from domain.world.adapter import WorldAdapter, WorldView
if __name__ == "__main__":
    stopped()  # as the server's builder, a process that only builds
    roots = {{"ROOT_GAME": Path({game!r})}}
    view = WorldView(Mode.CK3RAVEN_DEV, frozenset({{RootCategory.ROOT_GAME}}), ())
    world = WorldAdapter(LocalFiles(roots), view)
    index = SqliteIndex(Path({db!r}))
    started = time.perf_counter()
    with Workers(processors(), roots, view) as workers:
        done = build_into(index, SystemClock(), world, "bench", workers)
    seconds = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(seconds, done.files, done.parsed, peak)
"""


def floor(game: Path) -> int:
    """Read every file the index reads; the bytes read."""
    read = 0
    for top in TOPS:
        for folder, _, names in os.walk(game / top):
            for name in names:
                path = Path(folder) / name
                if definitions.file_kind(tuple(p.casefold() for p in path.relative_to(game).parts)):
                    read += len(path.read_bytes())
    return read


def cold(game: Path, scratch: Path) -> tuple[float, int, int, int, int]:
    """One cold build in a child process: (seconds, files, parsed, peak RSS in KiB, index bytes)."""
    db = scratch / f"cold-{time.perf_counter_ns()}.db"
    code = BUILD.format(checkout=str(CHECKOUT), game=str(game), db=str(db))
    script = scratch / "build.py"  # a file: the workers are spawned, and import the main module again
    script.write_text(code, encoding="utf-8")
    out = subprocess.run([sys.executable, str(script)], check=True, capture_output=True, text=True).stdout
    seconds, seen, parsed, rss = out.split()
    size = sum(p.stat().st_size for p in scratch.glob(db.name + "*"))
    return float(seconds), int(seen), int(parsed), int(rss), size


def measure(rounds: int, world: Path | None = None, *, agree: bool = False) -> list[Row]:
    game = (world or ensure_world()) / "game"
    rows: list[Row] = []
    read = floor(game)
    with tempfile.TemporaryDirectory(prefix="ck3raven-index-bench-") as folder:
        scratch = Path(folder)
        builds: list[tuple[float, int, int, int, int]] = []

        def build_once() -> float:
            builds.append(cold(game, scratch))
            return builds[-1][0]

        samples = interleave({"build": build_once, "floor": clocked(lambda: floor(game))}, rounds)
        _, seen, parsed, _, size = builds[-1]
        note = f"{seen:,} files, {read / 1e6:.0f} MB read, {parsed:,} contents parsed, {processors()} workers"
        build, low = median(samples["build"]), median(samples["floor"])
        against = "read every file"
        rows.append(
            Row("index: cold build of the game", build, "s", against, low, Target("absolute", 10), note=note)
        )
        rows[-1].samples = samples
        rows.append(
            Row(
                "index: its size, log included",
                size / 1e6,
                "MB",
                "MB read",
                read / 1e6,
                Target("share", 0.25),
                note=f"{size / read:.1%} of the bytes read",
            )
        )
        peak = max(b[3] for b in builds) / 1024
        rows.append(Row("index: peak RSS of a cold build", peak, "MB", target=Target("absolute", 300)))
        rows += _warm_rows(game, scratch, rounds)
        rows.append(_pwd_row(game, scratch))
    if agree:
        rows.append(_agreement(game))
    return rows


def _agreement(game: Path) -> Row:
    """The files where the fast pass and the parser alone index differently."""
    seen = differ = 0
    for top in TOPS:
        for folder, _, names in os.walk(game / top):
            for name in names:
                path = Path(folder) / name
                parts = path.relative_to(game).parts
                if definitions.file_kind(tuple(p.casefold() for p in parts)) is None:
                    continue
                data = path.read_bytes()
                seen += 1
                fast, slow = (
                    content_index.parse_bytes(parts, data),
                    content_index.parse_bytes(parts, data, fast=False),
                )
                differ += fast != slow
    note = f"{seen:,} files parsed both ways"
    return Row(
        "index: fast pass differs from the parser", differ, "files", target=Target("absolute", 0), note=note
    )


def _pwd_row(game: Path, scratch: Path) -> Row:
    """`ck3_dir pwd` on a core whose index is being built in a child process, against the same when idle."""
    settings = _settings(game, scratch, "pwd")
    core = build_core(settings, index_in_child=True)
    builder = core.services.index_builder
    assert builder is not None
    session = core.start_session("bench")
    request = COMMANDS["ck3_dir"]["pwd"].kind.build({})
    assert not isinstance(request, Reply)

    def pwd() -> float:
        started = time.perf_counter()
        core.answer(session, request)
        return time.perf_counter() - started

    def paced(calls: int) -> list[float]:
        taken = []
        for _ in range(calls):
            taken.append(pwd())
            time.sleep(0.002)  # a client's pace, not a loop that takes a processor of its own
        return taken

    idle = paced(2000)  # at the pace of the calls during the build: a processor idle as long between them
    building = threading.Thread(target=lambda: builder(core.defaults.view, "bench"))
    building.start()
    busy: list[float] = []
    while building.is_alive():
        busy += paced(1)
    building.join()
    idle += paced(2000)  # and after it: the machine's own load moves while a build runs
    ours, other = p99(busy), p99(idle)
    note = f"{len(busy):,} calls during the build, p99 {ours * 1e3:.2f} ms; idle p99 {other * 1e3:.2f} ms"
    return Row(
        "index: pwd p99 while a build runs", ours, "ms", "pwd p99 idle", other, Target("ratio", 2), note=note
    )


def p99(samples: list[float]) -> float:
    return sorted(samples)[int(len(samples) * 0.99)]


def _settings(game: Path, scratch: Path, name: str) -> Settings:
    (scratch / "data").mkdir(exist_ok=True)
    return Settings(
        "bench",
        {RootCategory.ROOT_GAME: game, RootCategory.ROOT_CK3RAVEN_DATA: scratch / "data"},
        RootCategory.ROOT_GAME,
        Mode.CK3RAVEN_DEV,
        None,
        state_dir=scratch / name,
    )


def _warm_rows(game: Path, scratch: Path, rounds: int) -> list[Row]:
    core = build_core(_settings(game, scratch, "warm"))
    index = core.services.index
    assert isinstance(index, SqliteIndex)
    world = WorldAdapter(core.services.files, core.defaults.view)
    found = content_index.sources_of(world)
    content_index.refresh(world, index, found)
    warm = interleave({"warm": clocked(lambda: content_index.refresh(world, index, found))}, rounds)
    session = core.start_session("bench")
    request = content_queries.Define("italian_mongol_1", "traits")
    answer = clocked(lambda: core.answer(session, request))
    lookup = interleave({"lookup": answer}, rounds, most=200)
    reply = core.answer(session, request)
    target = game / "common" / "traits" / "zz_bench_update.txt"
    # about 1 KiB a definition, as in the game's own trait files (00_traits.txt: some 300 in 300 KB)
    inner = "\tmodifier = {{ scheme_opinion = 11 }}\n\tai_chance = {{ base = 19 }}\n" * 14
    body = "bench_trait_{} = {{\n\tcategory = personality\n\topposites = {{ craven }}\n" + inner + "}}\n"
    step = [0]

    def update() -> float:
        step[0] += 1
        text = "".join(body.format(f"{step[0]}_{n}") for n in range(120))[: 100 * 1024]
        target.write_text(text, encoding="utf-8")
        started = time.perf_counter()
        content_index.after_write(world, index, "ROOT_GAME:/common/traits/zz_bench_update.txt")
        return time.perf_counter() - started

    try:
        updates = interleave({"update": update}, rounds, most=50)
    finally:
        target.unlink(missing_ok=True)
        content_index.after_write(world, index, "ROOT_GAME:/common/traits/zz_bench_update.txt")
    found_note = f"{reply.code}, {reply.data['count']} definitions"
    rows = [
        Row("index: warm start, nothing changed", median(warm["warm"]), "s", target=Target("absolute", 0.5)),
        Row("index: key lookup (define, kind given)", median(lookup["lookup"]), "ms", note=found_note),
        Row("index: update for a 100 KiB write", median(updates["update"]), "ms"),
    ]
    rows[1].target, rows[2].target = Target("absolute", 5), Target("absolute", 20)
    for row, taken in zip(rows, (warm, lookup, updates), strict=True):
        row.samples = taken
    return rows


def median(samples: list[float]) -> float:
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--world", type=Path, help="a world folder with game/ (default: the generated one)")
    parser.add_argument("--agree", action="store_true", help="count the files the fast pass reads otherwise")
    args = parser.parse_args()
    rows = measure(args.rounds, args.world, agree=args.agree)
    print(table(rows))


if __name__ == "__main__":
    main()
