"""ck3_dir benchmark: tree and list on the CK3-shaped world, in process and over stdio, against a floor.

The world comes from ../shared/bench/gen_ck3_world.py (40,000 files, 3,000 folders, fixed seed), made
once under bench/.world. The floor is measured in the same run: an os.scandir walk with lstat that builds
the same result and dumps it as compact JSON. Ratios are medians over repeats.
"""

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from timing import median_async_ms, median_ms

HERE = Path(__file__).resolve().parent
WORLD = HERE / ".world"
GENERATOR = HERE.parent.parent / "shared" / "bench" / "gen_ck3_world.py"
WIDE = "gfx/coat_of_arms/colored_emblems"


def ensure_world() -> Path:
    if not (WORLD / "game").is_dir():
        if not GENERATOR.is_file():
            sys.exit(f"bench: the world generator is missing ({GENERATOR})")
        subprocess.run([sys.executable, str(GENERATOR), str(WORLD)], check=True, stdout=subprocess.DEVNULL)
    return WORLD


# ------------------------------------------------------------------ floors


def floor_tree(root: Path, depth: int) -> str:
    found: list[str] = []

    def walk(folder: str, rel: str, left: int) -> None:
        with os.scandir(folder) as it:
            entries = sorted((e for e in it if e.is_dir(follow_symlinks=False)), key=lambda e: e.name)
        for entry in entries:
            entry.stat(follow_symlinks=False)
            child = f"{rel}/{entry.name}" if rel else entry.name
            found.append("ROOT_GAME:/" + child)
            if left > 1:
                walk(entry.path, child, left - 1)

    walk(str(root), "", depth)
    return json.dumps(found, separators=(",", ":"))


def floor_list(folder: Path) -> str:
    rows = []
    with os.scandir(folder) as it:
        for entry in sorted(it, key=lambda e: e.name):
            info = entry.stat(follow_symlinks=False)
            kind = "dir" if entry.is_dir(follow_symlinks=False) else "file"
            rows.append({"address": f"ROOT_GAME:/{WIDE}/{entry.name}", "kind": kind, "size": info.st_size})
    return json.dumps(rows, separators=(",", ":"))


# ------------------------------------------------------------------ measuring


CASES = {
    "tree whole root": {"command": "tree", "path": "ROOT_GAME:/", "depth": 64},
    "tree depth 3": {"command": "tree", "path": "ROOT_GAME:/", "depth": 3},
    "list 2,000 entries": {"command": "list", "path": f"ROOT_GAME:/{WIDE}"},
}


def floors(game: Path, repeats: int) -> dict[str, float]:
    return {
        "tree whole root": median_ms(lambda: floor_tree(game, 64), repeats),
        "tree depth 3": median_ms(lambda: floor_tree(game, 3), repeats),
        "list 2,000 entries": median_ms(lambda: floor_list(game / WIDE), repeats),
    }


def config_for(world: Path, folder: Path) -> Path:
    config = folder / "config.toml"
    config.write_text(
        f'mode = "ck3raven-dev"\nhome = "ROOT_GAME"\n[roots]\nROOT_GAME = {json.dumps(str(world / "game"))}\n'
        f"ROOT_REPO = {json.dumps(str(folder))}\n"
        "[limits]\nreads_per_minute = 0\nmutations_per_minute = 0\n",  # throughput, not pacing
        encoding="utf-8",
    )
    return config


async def in_process(config: Path, repeats: int) -> dict[str, float]:
    from fastmcp import Client

    from app.bootstrap import build
    from app.config import load

    server = build(load(config, cwd=config.parent))
    async with Client(server) as client:
        return {
            name: await median_async_ms(lambda args=args: client.call_tool("ck3_dir", args), repeats)
            for name, args in CASES.items()
        }


async def over_stdio(config: Path, repeats: int) -> dict[str, float]:
    from mcp import Client, StdioServerParameters

    params = StdioServerParameters(
        command=str(Path(sys.executable).with_name("ck3raven")),
        args=["serve", "--config", str(config)],
        env={"FASTMCP_CHECK_FOR_UPDATES": "off"},
    )
    async with Client(params) as client:
        results = {}
        for name, args in CASES.items():
            await client.call_tool("ck3_dir", args)  # warm the path once
            results[name] = await median_async_ms(
                lambda args=args: client.call_tool("ck3_dir", args), repeats
            )
        return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=15)
    args = parser.parse_args()
    os.environ.setdefault("FASTMCP_ENABLE_RICH_LOGGING", "false")
    os.environ.setdefault("FASTMCP_LOG_LEVEL", "WARNING")
    world = ensure_world()
    with tempfile.TemporaryDirectory() as scratch:
        config = config_for(world, Path(scratch))
        floor = floors(world / "game", args.repeats)
        memory = asyncio.run(in_process(config, args.repeats))
        stdio = asyncio.run(over_stdio(config, args.repeats))
    print(f"{'case':<20} {'floor ms':>9} {'in-proc ms':>11} {'ratio':>6} {'stdio ms':>9} {'ratio':>6}")
    for name in CASES:
        print(
            f"{name:<20} {floor[name]:>9.2f} {memory[name]:>11.2f} {memory[name] / floor[name]:>6.2f}"
            f" {stdio[name]:>9.2f} {stdio[name] / floor[name]:>6.2f}"
        )


if __name__ == "__main__":
    main()
