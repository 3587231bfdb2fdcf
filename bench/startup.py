"""Start-up and per-call overhead over stdio: ck3raven beside a stock FastMCP server, in the same run.

Prints: spawn to first `tools/list` answer (median of several spawns) and the median round trip of a
trivial call (`ck3_dir pwd` vs the stock server's `pwd`), with the difference.
"""

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

from mcp import Client, StdioServerParameters

HERE = Path(__file__).resolve().parent
ENV = {
    "FASTMCP_CHECK_FOR_UPDATES": "off",
    "FASTMCP_LOG_LEVEL": "WARNING",
    "FASTMCP_SHOW_SERVER_BANNER": "false",
}


def ck3raven(config: Path) -> StdioServerParameters:
    return StdioServerParameters(
        command=str(Path(sys.executable).with_name("ck3raven")),
        args=["serve", "--config", str(config)],
        env=ENV,
    )


def stock() -> StdioServerParameters:
    return StdioServerParameters(command=sys.executable, args=[str(HERE / "stock_server.py")], env=ENV)


async def first_answer(params: StdioServerParameters) -> float:
    started = time.perf_counter()
    async with Client(params, mode="legacy") as client:
        await client.list_tools()
        return time.perf_counter() - started


async def round_trip(params: StdioServerParameters, tool: str, args: dict[str, str], calls: int) -> float:
    async with Client(params) as client:
        for _ in range(10):
            await client.call_tool(tool, args)
        samples = []
        for _ in range(calls):
            started = time.perf_counter()
            await client.call_tool(tool, args)
            samples.append(time.perf_counter() - started)
    return statistics.median(samples) * 1000


async def measure(config: Path, spawns: int, calls: int) -> None:
    ours = [await first_answer(ck3raven(config)) for _ in range(spawns)]
    theirs = [await first_answer(stock()) for _ in range(spawns)]
    ours_call = await round_trip(ck3raven(config), "ck3_dir", {"command": "pwd"}, calls)
    stock_call = await round_trip(stock(), "pwd", {}, calls)
    print(
        f"spawn -> first answer   ck3raven {statistics.median(ours):.2f} s   stock FastMCP "
        f"{statistics.median(theirs):.2f} s"
    )
    print(
        f"trivial call (median)   ck3raven {ours_call:.2f} ms   stock FastMCP {stock_call:.2f} ms   "
        f"difference {ours_call - stock_call:+.2f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--spawns", type=int, default=5)
    parser.add_argument("--calls", type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        config = Path(scratch) / "config.toml"
        config.write_text(
            f'mode = "ck3lens"\n[roots]\nROOT_REPO = {json.dumps(scratch)}\n'
            "[limits]\nreads_per_minute = 0\nmutations_per_minute = 0\n",
            encoding="utf-8",
        )
        asyncio.run(measure(config, args.spawns, args.calls))


if __name__ == "__main__":
    main()
