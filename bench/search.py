"""ck3_search (names, contents) and a filtered ck3_dir list on the CK3-shaped world of bench/run.py, each
against a floor measured in the same run, rounds interleaved (floor, ours, floor, ours, ...). Medians are
printed with their ratio and the target; nothing is asserted about time.

Cases, all below ROOT_GAME:/ (the world's game folder):
  names     `**/*_l_english.yml`, max_results 10,000 (898 matches among 40,000 entries). Floor: a sorted
            os.scandir walk matching the same regex on each relative path, building the address strings.
  contents  the literal "tournament_wedding" in `*.txt` (537 lines in 25,000 files), max_files 200,000,
            max_hits 10,000, max_bytes 2 GiB (the .txt files hold 268 MB, over the 256 MiB default).
            Floor: the same walk, each .txt read once (open, read, decode, `in`, the hits' line numbers).
  list      `ck3_dir list` of the 2,000-entry colored_emblems folder, glob `ce_*_01??.dds` (100 kept).
            Floor: os.scandir, lstat of each entry, fnmatch, sorted rows (address, kind, size).

Ours is measured three ways: the core's handler called directly (no MCP), fastmcp's in-memory client,
and over stdio with the official mcp client (a `ck3raven serve` child). Each case's result is checked
against its floor's once. `--profile` prints the top cProfile functions of one direct names and contents
search instead.
"""

import argparse
import asyncio
import cProfile
import fnmatch
import inspect
import logging
import os
import pstats
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Mapping
from operator import attrgetter
from pathlib import Path
from typing import Any, TextIO

from mcp import StdioServerParameters

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run import WIDE, config_for, ensure_world

NAMES_GLOB = "**/*_l_english.yml"
NAMES_REGEX = re.compile(r"(?:.*/)?[^/]*_l_english\.yml")  # what the glob means on a relative path
LITERAL = "tournament_wedding"
LIST_GLOB = "ce_*_01??.dds"
UNDER = "ROOT_GAME:/"
CASES: dict[str, tuple[str, dict[str, Any], float]] = {  # tool, arguments, target ratio
    "names": (
        "ck3_search",
        {"command": "names", "glob": NAMES_GLOB, "under": UNDER, "max_results": 10_000},
        1.5,
    ),
    "contents": (
        "ck3_search",
        {
            "command": "contents",
            "pattern": LITERAL,
            "glob": "*.txt",
            "under": UNDER,
            "max_files": 200_000,
            "max_hits": 10_000,
            "max_bytes": 2**31,
        },
        2.0,
    ),
    "list": ("ck3_dir", {"command": "list", "path": f"ROOT_GAME:/{WIDE}", "glob": LIST_GLOB}, 1.5),
}
Data = Mapping[str, Any]
Call = Callable[[str, dict[str, Any]], Any]  # (tool, arguments) -> the reply's Data, or an awaitable of it


# ------------------------------------------------------------------ floors


def floor_names(game: Path) -> list[str]:
    found: list[str] = []

    def walk(folder: str, rel: str) -> None:
        with os.scandir(folder) as it:
            entries = sorted(it, key=attrgetter("name"))
        for entry in entries:
            child = rel + entry.name
            if NAMES_REGEX.fullmatch(child):
                found.append("ROOT_GAME:/" + child)
            if entry.is_dir(follow_symlinks=False):
                walk(entry.path, child + "/")

    walk(str(game), "")
    return found


def floor_contents(game: Path) -> list[dict[str, object]]:
    hits: list[dict[str, object]] = []

    def walk(folder: str, rel: str) -> None:
        with os.scandir(folder) as it:
            entries = sorted(it, key=attrgetter("name"))
        for entry in entries:
            child = rel + entry.name
            if entry.is_dir(follow_symlinks=False):
                walk(entry.path, child + "/")
            elif fnmatch.fnmatchcase(entry.name, "*.txt"):
                with open(entry.path, "rb") as fh:  # noqa: PTH123 - a floor: no Path object per file
                    text = fh.read().decode("utf-8")
                if LITERAL in text:
                    for number, line in enumerate(text.split("\n"), 1):
                        if (column := line.find(LITERAL)) >= 0:
                            hit = {"line": number, "column": column + 1, "text": line}
                            hits.append({"address": "ROOT_GAME:/" + child, **hit})

    walk(str(game), "")
    return hits


def floor_list(folder: Path) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    with os.scandir(folder) as it:
        for entry in sorted(it, key=attrgetter("name")):
            info = entry.stat(follow_symlinks=False)
            if fnmatch.fnmatchcase(entry.name, LIST_GLOB):
                kind = "dir" if entry.is_dir(follow_symlinks=False) else "file"
                address = f"ROOT_GAME:/{WIDE}/{entry.name}"
                rows.append({"address": address, "kind": kind, "size": info.st_size})
    return rows


def floors(game: Path) -> dict[str, Callable[[], list[Any]]]:
    return {
        "names": lambda: floor_names(game),
        "contents": lambda: floor_contents(game),
        "list": lambda: floor_list(game / WIDE),
    }


def same(case: str, data: Data, floor: list[Any]) -> bool:
    """Whether our reply's data holds what the floor built (addresses, and lines for hits)."""
    if case == "names":
        return [m["address"] for m in data["matches"]] == floor
    if case == "contents":
        return [(h["address"], h["line"]) for h in data["hits"]] == [(h["address"], h["line"]) for h in floor]
    return [dict(entry) for entry in data["entries"]] == floor


# ------------------------------------------------------------------ measuring


async def _timed(fn: Callable[[], object]) -> float:
    started = time.perf_counter()
    result = fn()
    if inspect.isawaitable(result):
        await result
    return time.perf_counter() - started


async def interleaved(
    ours: Callable[[], object], other: Callable[[], object], rounds: int
) -> tuple[float, float]:
    """Median ms of `ours` and of `other` (each sync or async), timed in turn: other, ours, other, ours..."""
    mine, theirs = [], []
    for _ in range(rounds):
        theirs.append(await _timed(other))
        mine.append(await _timed(ours))
    return statistics.median(mine) * 1000, statistics.median(theirs) * 1000


async def measure(call: Call, game: Path, rounds: int) -> dict[str, tuple[float, float]]:
    """(ours ms, floor ms) per case for one way of calling; a result unlike its floor's stops the run."""
    results = {}
    for case, floor in floors(game).items():
        tool, args, _ = CASES[case]
        data = call(tool, args)
        data = await data if inspect.isawaitable(data) else data
        if not same(case, data, floor()):
            sys.exit(f"bench: {case} answered differently from its floor: {str(data)[:400]}")
        results[case] = await interleaved(lambda tool=tool, args=args: call(tool, args), floor, rounds)
    return results


def direct(config: Path) -> Call:
    """Calls of the core's handlers, routed from tool arguments as the MCP adapter routes them."""
    from adapters.tool_routes import ROUTES
    from app.bootstrap import build_core
    from app.config import load

    core = build_core(load(config, cwd=config.parent))
    session = core.start_session("bench")

    def call(tool: str, args: dict[str, Any]) -> Data:
        rest = {name: value for name, value in args.items() if name != "command"}
        route = ROUTES[tool][args["command"]]
        return core.answer(session, route.handler, route.request(args["command"], rest)).data

    return call


async def in_memory(config: Path, game: Path, rounds: int) -> dict[str, tuple[float, float]]:
    import structlog
    from fastmcp import Client

    from app.bootstrap import build
    from app.config import load

    # unconfigured, structlog prints each call's log line on stdout, through the table
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    async with Client(build(load(config, cwd=config.parent))) as client:

        async def call(tool: str, args: dict[str, Any]) -> Data:
            return (await client.call_tool(tool, args)).structured_content["data"]

        return await measure(call, game, rounds)


def stdio_params(config: Path) -> StdioServerParameters:
    return StdioServerParameters(
        command=str(Path(sys.executable).with_name("ck3raven")),
        args=["serve", "--config", str(config)],
        env={"FASTMCP_CHECK_FOR_UPDATES": "off", "FASTMCP_LOG_LEVEL": "WARNING"},
    )


async def over_stdio(config: Path, game: Path, rounds: int, errlog: TextIO) -> dict[str, tuple[float, float]]:
    from mcp import Client
    from mcp.client.stdio import stdio_client

    async with Client(stdio_client(stdio_params(config), errlog=errlog)) as client:

        async def call(tool: str, args: dict[str, Any]) -> Data:
            return (await client.call_tool(tool, args)).structured_content["data"]

        return await measure(call, game, rounds)


def profile(call: Call) -> None:
    for case in ("names", "contents"):
        tool, args, _ = CASES[case]
        call(tool, args)  # warm, as the timed rounds are
        profiler = cProfile.Profile()
        profiler.runcall(call, tool, args)
        print(f"\n--- cProfile, direct {case} search: top 10 by cumulative time")
        pstats.Stats(profiler, stream=sys.stdout).sort_stats("cumulative").print_stats(10)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--profile", action="store_true", help="profile one direct names and contents search")
    args = parser.parse_args()
    os.environ.setdefault("FASTMCP_ENABLE_RICH_LOGGING", "false")
    os.environ.setdefault("FASTMCP_LOG_LEVEL", "WARNING")
    game = ensure_world() / "game"
    # the stdio server's log lines (its stderr) would bury the table
    with tempfile.TemporaryDirectory() as scratch, Path(os.devnull).open("w") as quiet:
        config = config_for(game.parent, Path(scratch))
        call = direct(config)
        if args.profile:
            profile(call)
            return
        ways = {
            "direct": asyncio.run(measure(call, game, args.rounds)),
            "in-memory": asyncio.run(in_memory(config, game, args.rounds)),
            "stdio": asyncio.run(over_stdio(config, game, args.rounds, quiet)),
        }
    print(f"{'case':<9} {'via':<10} {'ours ms':>9} {'floor ms':>9} {'ratio':>6}  target")
    for case, (_, _, target) in CASES.items():
        for via, results in ways.items():
            ours, floor = results[case]
            print(f"{case:<9} {via:<10} {ours:>9.2f} {floor:>9.2f} {ours / floor:>6.2f}  <= {target}x")


if __name__ == "__main__":
    main()
