"""The content index (SPEC §15) on the generated CK3 world's game folder (about 31,000 script, GUI and
localisation files, 300 MB):
- cold build: a whole build into a new index file, against a floor that reads every file the index reads
  and runs, with `re.finditer`, the parser's own token pattern over script and GUI files and the
  localisation key pattern over `.yml` files (target: within 4x); also its seconds and the index's size;
- warm start: the same refresh with nothing changed (every file stat-ed, none read), target 1 s;
- key lookup: `ck3_index define` (a trait, kind given) straight on the core, its stat re-check included,
  target 5 ms;
- update: the index's share of a governed write, a 100 KiB script file re-indexed, target 20 ms;
- peak RSS of a process that runs a cold build, target 300 MB.
The cold build and the RSS run in a child process each (a fresh interpreter, as a server's first build).

    python bench/index_build.py [--rounds 3] [--world PATH]
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
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
from domain.ck3 import content_index, definitions, localisation, script  # noqa: E402
from domain.use_cases import content_queries  # noqa: E402
from domain.vocabulary import Mode, RootCategory  # noqa: E402
from domain.world.adapter import WorldAdapter  # noqa: E402

TOPS = tuple(sorted(definitions.TOPS))
BUILD = """
import resource, sys, time
sys.path.insert(0, {checkout!r})
from pathlib import Path
from adapters.local_files import LocalFiles
from adapters.sqlite_index import SqliteIndex
from domain.ck3 import content_index
from domain.vocabulary import Mode, RootCategory
from domain.world.adapter import WorldAdapter, WorldView
files = LocalFiles({{"ROOT_GAME": Path({game!r})}})
world = WorldAdapter(files, WorldView(Mode.CK3RAVEN_DEV, frozenset({{RootCategory.ROOT_GAME}}), ()))
index = SqliteIndex(Path({db!r}))
started = time.perf_counter()
done = content_index.refresh(world, index, content_index.sources_of(world))
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(time.perf_counter() - started, done.seen, done.parsed, peak)
"""


def floor(game: Path) -> None:
    """Read every file the index reads and run the parser's token pattern (script, GUI) or the
    localisation key pattern (.yml) over it with re.finditer."""
    for top in TOPS:
        for folder, _, names in os.walk(game / top):
            for name in names:
                path = Path(folder) / name
                kind = definitions.file_kind(tuple(path.relative_to(game).parts))
                if kind is None:
                    continue
                text = path.read_bytes().decode("utf-8", errors="replace")
                pattern = localisation.KEY if kind == definitions.LOCALISATION else script.TOKEN
                for _ in pattern.finditer(text):
                    pass


def cold(game: Path, scratch: Path) -> tuple[float, int, int, int, int]:
    """One cold build in a child process: (seconds, files, parsed, peak RSS in KiB, index bytes)."""
    db = scratch / f"cold-{time.perf_counter_ns()}.db"
    code = BUILD.format(checkout=str(CHECKOUT), game=str(game), db=str(db))
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    seconds, seen, parsed, rss = out.split()
    size = sum(p.stat().st_size for p in scratch.glob(db.name + "*"))
    return float(seconds), int(seen), int(parsed), int(rss), size


def measure(rounds: int, world: Path | None = None) -> list[Row]:
    game = (world or ensure_world()) / "game"
    rows: list[Row] = []
    with tempfile.TemporaryDirectory(prefix="ck3raven-index-bench-") as folder:
        scratch = Path(folder)
        builds: list[tuple[float, int, int, int, int]] = []

        def build_once() -> float:
            builds.append(cold(game, scratch))
            return builds[-1][0]

        samples = interleave({"build": build_once, "floor": clocked(lambda: floor(game))}, rounds)
        _, seen, parsed, _, size = builds[-1]
        note = f"{seen:,} files, {parsed:,} contents parsed; index {size / 1e6:.0f} MB on disk"
        build, low = median(samples["build"]), median(samples["floor"])
        against = "read + finditer floor"
        rows.append(
            Row("index: cold build of the game", build, "s", against, low, Target("ratio", 4), note=note)
        )
        rows[-1].samples = samples
        peak = max(b[3] for b in builds) / 1024
        rows.append(Row("index: peak RSS of a cold build", peak, "MB", target=Target("absolute", 300)))
        rows += _warm_rows(game, scratch, rounds)
    return rows


def _warm_rows(game: Path, scratch: Path, rounds: int) -> list[Row]:
    db = scratch / "warm" / "content-index.db"
    settings = Settings(
        "bench",
        {RootCategory.ROOT_GAME: game, RootCategory.ROOT_CK3RAVEN_DATA: scratch / "data"},
        RootCategory.ROOT_GAME,
        Mode.CK3RAVEN_DEV,
        None,
        state_dir=db.parent,
    )
    (scratch / "data").mkdir(exist_ok=True)
    core = build_core(settings)
    index = core.services.index
    assert isinstance(index, SqliteIndex)
    world = WorldAdapter(core.services.files, core.defaults.view)
    found = content_index.sources_of(world)
    content_index.refresh(world, index, found)
    warm = interleave({"warm": clocked(lambda: content_index.refresh(world, index, found))}, rounds)
    session = core.start_session("bench")
    request = content_queries.Define("italian_mongol_1", "traits")
    answer = clocked(lambda: core.answer(session, content_queries.define, request))
    lookup = interleave({"lookup": answer}, rounds, most=200)
    reply = core.answer(session, content_queries.define, request)
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
        content_index.after_write(world, index, found, "ROOT_GAME:/common/traits/zz_bench_update.txt")
        return time.perf_counter() - started

    try:
        updates = interleave({"update": update}, rounds, most=50)
    finally:
        target.unlink(missing_ok=True)
        content_index.after_write(world, index, found, "ROOT_GAME:/common/traits/zz_bench_update.txt")
    found_note = f"{reply.code}, {reply.data['count']} definitions"
    rows = [
        Row("index: warm start, nothing changed", median(warm["warm"]), "s", target=Target("absolute", 1)),
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
    args = parser.parse_args()
    rows = measure(args.rounds, args.world)
    print(table(rows))


if __name__ == "__main__":
    main()
