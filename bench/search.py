"""ck3_search (names, contents) and a filtered ck3_dir list on the CK3-shaped world of bench/run.py, each
against a floor measured in the same run, rounds interleaved (floor, ours, floor, ours, ...). Medians are
printed with their ratio and the target; nothing is asserted about time.

Cases, all below ROOT_GAME:/ (the world's game folder):
  names     `**/*_l_english.yml`, limit 10,000 (898 matches among 40,000 entries). Floor: a sorted
            os.scandir walk matching the same regex on each relative path, building the address strings.
  contents  the literal "tournament_wedding" in `*.txt` (537 lines in 25,000 files), max_files 200,000,
            limit 10,000, max_bytes 2 GiB (the .txt files hold 268 MB, over the 256 MiB default),
            max_seconds 120 (the whole search, past the 2 s default budget).
            Floor: the same walk, each .txt read once (open, read, decode, `in`, the hits' line numbers).
  list      `ck3_dir list` of the 2,000-entry colored_emblems folder, glob `ce_*_01??.dds` (100 kept).
            Floor: os.scandir, lstat of each entry, fnmatch, sorted rows (address, kind, size).

Ours is measured three ways: the core's handler called directly (no MCP), fastmcp's in-memory client,
and over stdio with the bench's raw JSON-RPC client (a `ck3raven serve` child; `make bench` reports this
way, bench/calls.py). Each case's result is checked against its floor's once. `--profile` prints the top
cProfile functions of one direct names and contents search instead.
"""

import argparse
import asyncio
import cProfile
import inspect
import logging
import os
import pstats
import statistics
import sys
import time
from collections.abc import Callable, Mapping
from functools import partial
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import floors
from common import WIDE, Place, ensure_world, ours, scratch_place
from inproc import Direct
from rpc import RawServer
from timing import clocked, interleave

NAMES_GLOB = floors.NAMES_GLOB
LIST_GLOB = floors.LIST_GLOB
UNDER = "ROOT_GAME:/"
CASES: dict[str, tuple[str, dict[str, Any], float]] = {  # tool, arguments, target ratio
    "names": (
        "ck3_search",
        {"command": "names", "glob": NAMES_GLOB, "path": UNDER, "limit": 10_000},
        1.5,
    ),
    "contents": (
        "ck3_search",
        {
            "command": "contents",
            "pattern": floors.LITERAL,
            "glob": "*.txt",
            "path": UNDER,
            "max_files": 200_000,
            "limit": 10_000,
            "max_bytes": 2**31,
            "max_seconds": 120,
        },
        2.0,
    ),
    "list": ("ck3_dir", {"command": "list", "path": f"ROOT_GAME:/{WIDE}", "glob": LIST_GLOB}, 1.5),
}
Data = Mapping[str, Any]
Call = Callable[[str, dict[str, Any]], Any]  # (tool, arguments) -> the reply's Data, or an awaitable of it
Clock = Callable[[str, dict[str, Any]], float]  # (tool, arguments) -> seconds the call took


def floors_of(game: Path) -> dict[str, Callable[[], list[Any]]]:
    return {
        "names": lambda: floors.names(game),
        "contents": lambda: floors.contents(game),
        "list": lambda: floors.filtered_listing(game / WIDE, f"ROOT_GAME:/{WIDE}"),
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


async def measure(
    call: Call, game: Path, rounds: int, clock: Clock | None = None
) -> dict[str, tuple[float, float]]:
    """(ours ms, floor ms) per case for one way of calling; a result unlike its floor's stops the run.
    `clock` times a call itself (over stdio: request to response, bench/rpc.py); else the wall clock."""
    results = {}
    for case, floor in floors_of(game).items():
        tool, args, _ = CASES[case]
        data = call(tool, args)
        data = await data if inspect.isawaitable(data) else data
        if not same(case, data, floor()):
            sys.exit(f"bench: {case} answered differently from its floor: {str(data)[:400]}")
        if clock is None:
            results[case] = await interleaved(partial(call, tool, args), floor, rounds)
        else:
            samples = interleave({"floor": clocked(floor), "ours": partial(clock, tool, args)}, rounds)
            results[case] = (
                statistics.median(samples["ours"]) * 1000,
                statistics.median(samples["floor"]) * 1000,
            )
    return results


def direct(config: Path) -> Call:
    """Calls of the core's handlers, routed from tool arguments as the MCP adapter routes them."""
    core = Direct(config)

    def call(tool: str, args: dict[str, Any]) -> Data:
        return core.answer(tool, args).data

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
            data: Data = (await client.call_tool(tool, args)).structured_content["data"]
            return data

        return await measure(call, game, rounds)


async def over_stdio(place: Place, game: Path, rounds: int) -> dict[str, tuple[float, float]]:
    with RawServer(ours(place), place.errlog("ck3raven")) as server:
        server.initialize()

        def call(tool: str, args: dict[str, Any]) -> Data:
            data: Data = server.call_tool(tool, args).tool_result()["structuredContent"]["data"]
            return data

        def clock(tool: str, args: dict[str, Any]) -> float:
            answer = server.call_tool(tool, args)
            answer.tool_result()
            return answer.seconds

        return await measure(call, game, rounds, clock)


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
    with scratch_place(ensure_world()) as place:
        call = direct(place.config)
        if args.profile:
            profile(call)
            return
        ways = {
            "direct": asyncio.run(measure(call, place.game, args.rounds)),
            "in-memory": asyncio.run(in_memory(place.config, place.game, args.rounds)),
            "stdio": asyncio.run(over_stdio(place, place.game, args.rounds)),
        }
    print(f"{'case':<9} {'via':<10} {'ours ms':>9} {'floor ms':>9} {'ratio':>6}  target")
    for case, (_, _, target) in CASES.items():
        for via, results in ways.items():
            mine, floor = results[case]
            print(f"{case:<9} {via:<10} {mine:>9.2f} {floor:>9.2f} {mine / floor:>6.2f}  <= {target}x")


if __name__ == "__main__":
    main()
