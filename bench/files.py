"""ck3_read and ck3_file write of a 10 KB file over stdio, beside a plain Python read/write of the same file.

The floor: `Path.read_text` and an atomic write (temp file + fsync + rename) in this process, same run.
"""

import argparse
import asyncio
import json
import os
import sys
import tempfile
from pathlib import Path

from mcp import Client, StdioServerParameters

sys.path.insert(0, str(Path(__file__).resolve().parent))
from timing import median_async_ms, median_ms

CONTENT = ("brave = { prowess = 2 }\n" * 430)[:10_240]


def floor_write(path: Path) -> None:
    temp = path.with_name(".tmp")
    with temp.open("w", encoding="utf-8") as handle:
        handle.write(CONTENT)
        handle.flush()
        os.fsync(handle.fileno())
    temp.replace(path)


async def over_stdio(config: Path, repeats: int) -> tuple[float, float]:
    params = StdioServerParameters(
        command=str(Path(sys.executable).with_name("ck3raven")),
        args=["serve", "--config", str(config)],
        env={"FASTMCP_CHECK_FOR_UPDATES": "off"},
    )
    write = {"command": "write", "path": "ROOT_CK3RAVEN_DATA:/wip/bench.txt", "content": CONTENT}
    read = {"path": "ROOT_CK3RAVEN_DATA:/wip/bench.txt"}
    async with Client(params) as client:
        await client.call_tool("ck3_file", write)
        await client.call_tool("ck3_read", read)
        wrote = await median_async_ms(lambda: client.call_tool("ck3_file", write), repeats)
        red = await median_async_ms(lambda: client.call_tool("ck3_read", read), repeats)
    return red, wrote


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=100)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        (folder / "data" / "wip").mkdir(parents=True)
        target = folder / "data" / "wip" / "floor.txt"
        floor_write(target)
        floor_read = median_ms(lambda: target.read_text(encoding="utf-8"), args.repeats)
        floor_wrote = median_ms(lambda: floor_write(target), args.repeats)
        config = folder / "config.toml"
        config.write_text(
            f'mode = "ck3lens"\n[roots]\nROOT_REPO = {json.dumps(scratch)}\n'
            f"ROOT_CK3RAVEN_DATA = {json.dumps(str(folder / 'data'))}\n"
            "[limits]\nreads_per_minute = 0\nmutations_per_minute = 0\n",  # throughput, not pacing
            encoding="utf-8",
        )
        red, wrote = asyncio.run(over_stdio(config, args.repeats))
    print(f"10 KB read    floor {floor_read:.3f} ms   ck3_file over stdio {red:.2f} ms")
    print(f"10 KB write   floor {floor_wrote:.3f} ms   ck3_file over stdio {wrote:.2f} ms")


if __name__ == "__main__":
    main()
