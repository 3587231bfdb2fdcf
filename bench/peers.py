"""The MCP reference filesystem server (Node, from the npm registry) on the same world and floors as
bench/run.py, in the same run: its `list_directory_with_sizes` of the 2,000-entry folder and its
`directory_tree` of the whole root, over stdio, beside ck3raven's `ck3_dir list` and `tree`; and name
search: its `search_files` for `**/*_l_english.yml` in the game folder against `ck3_search names` over
stdio, both servers up at once and their calls interleaved (target: ck3raven >= 30x faster).
"""

import argparse
import asyncio
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from mcp import Client, StdioServerParameters

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run import WIDE, config_for, ensure_world, floor_list, floor_tree, over_stdio
from search import CASES, NAMES_GLOB, interleaved, stdio_params
from timing import median_async_ms, median_ms

HERE = Path(__file__).resolve().parent
PEERS = HERE / ".peers"
PACKAGE = "@modelcontextprotocol/server-filesystem"


def install() -> Path:
    entry = PEERS / "node_modules" / PACKAGE / "dist" / "index.js"
    if not entry.is_file():
        npm = shutil.which("npm")
        if npm is None:
            sys.exit("bench-peers: npm is needed (Node.js from the system packages)")
        PEERS.mkdir(exist_ok=True)
        subprocess.run(
            [npm, "install", "--silent", "--no-audit", "--no-fund", "--prefix", str(PEERS), PACKAGE],
            check=True,
        )
    return entry


async def peer(entry: Path, game: Path, repeats: int) -> dict[str, float]:
    params = StdioServerParameters(command=shutil.which("node") or "node", args=[str(entry), str(game)])
    cases = {
        "list 2,000 entries": ("list_directory_with_sizes", {"path": str(game / WIDE)}),
        "tree whole root": ("directory_tree", {"path": str(game)}),
    }
    results = {}
    async with Client(params, mode="legacy") as client:
        for name, (tool, args) in cases.items():
            await client.call_tool(tool, args)
            results[name] = await median_async_ms(
                lambda tool=tool, args=args: client.call_tool(tool, args), repeats
            )
    return results


async def name_search(entry: Path, game: Path, config: Path, repeats: int) -> tuple[float, float, int, int]:
    """Median ms of ck3raven's and the reference's name search, interleaved, and how many each found."""
    reference = StdioServerParameters(command=shutil.which("node") or "node", args=[str(entry), str(game)])
    async with Client(reference, mode="legacy") as theirs, Client(stdio_params(config)) as ours:

        async def their_call() -> int:
            found = await theirs.call_tool("search_files", {"path": str(game), "pattern": NAMES_GLOB})
            return len(found.structured_content["content"].splitlines())

        async def our_call() -> int:
            return (await ours.call_tool("ck3_search", CASES["names"][1])).structured_content["data"]["count"]

        counts = await our_call(), await their_call()
        return *await interleaved(our_call, their_call, repeats), *counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=9)
    args = parser.parse_args()
    entry = install()
    world = ensure_world()
    game = world / "game"
    floors = {
        "list 2,000 entries": median_ms(lambda: floor_list(game / WIDE), args.repeats),
        "tree whole root": median_ms(lambda: floor_tree(game, 64), args.repeats),
    }
    theirs = asyncio.run(peer(entry, game, args.repeats))
    with tempfile.TemporaryDirectory() as scratch:
        config = config_for(world, Path(scratch))
        ours = asyncio.run(over_stdio(config, args.repeats))
        named, their_named, our_count, their_count = asyncio.run(
            name_search(entry, game, config, args.repeats)
        )
    print(f"{'case':<20} {'floor ms':>9} {'reference ms':>13} {'ratio':>6} {'ck3raven ms':>12} {'ratio':>6}")
    for name, floor in floors.items():
        print(
            f"{name:<20} {floor:>9.2f} {theirs[name]:>13.2f} {theirs[name] / floor:>6.2f}"
            f" {ours[name]:>12.2f} {ours[name] / floor:>6.2f}"
        )
    print(
        f"name search {NAMES_GLOB}: reference {their_named:.2f} ms ({their_count} found),"
        f" ck3raven {named:.2f} ms ({our_count} found):"
        f" ck3raven {their_named / named:.1f}x faster (target >= 30x)"
    )
    print(json.dumps({"note": "the reference tree lists files too (it has no folders-only mode)"}))


if __name__ == "__main__":
    main()
