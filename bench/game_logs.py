"""`ck3_search log` (the summary, SPEC §17 size) on a generated error.log of 100 MB, against a floor measured
in the same run, rounds interleaved (floor, ours, floor, ours, ...). Medians are printed with their ratio
and the 3 s the specification asks for; the peak resident memory the summary added is printed beside the
log's size (it streams: the memory it holds does not grow with the log). Nothing is asserted.

The log is made of the forms the game writes (domain.ck3.game_log): script errors with their indented
`Error:` and `Script location: file: X line: N` lines, a file without its byte order mark, a key defined
in two files, a culture reference that fails to read, a missing texture named by a Windows host path, and
a line that matches no form; names and numbers vary so that templates repeat as in a real log.

Floor: the same file read in 1 MiB chunks, split into lines, each line tested for a header (`[`), the
least any streaming summary must do. Ours: the core's handler called directly (no MCP), bench/inproc.py,
with the garbage collector set as a started server sets it (app.collection: start-up's objects frozen,
the youngest collected every 10,000 allocations; `--collector-as-built` leaves Python's own setting).

    .venv/bin/python bench/game_logs.py [--megabytes 100] [--rounds 3]
"""

import argparse
import json
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from inproc import Direct

from app.collection import resumed

DOCS = r"C:\Users\Ada\Documents\Paradox Interactive\Crusader Kings III"
TARGET_SECONDS = 3.0


def _block(n: int) -> str:
    second = f"{n // 3600 % 24:02}:{n // 60 % 60:02}:{n % 60:02}"
    return (
        f"[{second}][jomini_script_system.cpp:{300 + n % 9}]: Script system error!\n"
        f"  Error: has_trait trigger [ Unknown trait 'trait_{n % 500}' ]\n"
        f"  Script location: file: events/event_file_{n % 700}.txt line: {n % 2000}"
        f" (ev.{n % 90}:trigger)\n"
        f"[{second}][E][lexer.cpp:299]: File 'common/traits/t_{n % 300}.txt' should be in utf8-bom encoding\n"
        f"[{second}][pdx_localize.cpp:194]: Duplicate localization key. Key 'key_{n % 800}' is defined in "
        f"both 'localization/english/a_{n % 40}_l_english.yml' and 'localization/english/b_l_english.yml'.\n"
        f"[{second}][characterhistory.cpp:921]: Failed to read culture reference c_{n % 60} from database"
        f"  file: history/characters/{n % 900}_x.txt line: {n % 400}\n"
        f"[{second}][texturehandler.cpp:181]: Couldn't find texture file: "
        f"{DOCS}\\mod\\M\\gfx\\t_{n % 50}.dds\n"
        f"a line that matches no form {n}\n"
    )


def generate(path: Path, megabytes: int) -> int:
    """Write a log of about `megabytes` MB, a block at a time (never held whole); its size."""
    wanted, size, n = megabytes * 1_000_000, 0, 0
    with path.open("w", encoding="utf-8", newline="\n") as out:
        while size < wanted:
            chunk = "".join(_block(n + k) for k in range(1000))
            out.write(chunk)
            size += len(chunk.encode())
            n += 1000
    return size


def floor(path: Path) -> int:
    headers = 0
    carry = b""
    with path.open("rb") as log:
        while chunk := log.read(1 << 20):
            lines = (carry + chunk).split(b"\n")
            carry = lines.pop()
            headers += sum(1 for line in lines if line.startswith(b"["))
    return headers


def _config(base: Path) -> Path:
    for name in ("docs/logs", "game", "data/wip", "repo", "state"):
        (base / name).mkdir(parents=True, exist_ok=True)
    config = base / "config.toml"
    roots = {"ROOT_USER_DOCS": "docs", "ROOT_GAME": "game", "ROOT_CK3RAVEN_DATA": "data", "ROOT_REPO": "repo"}
    config.write_text(
        'mode = "ck3lens"\nhome = "ROOT_GAME"\n'
        f"state_dir = {json.dumps(str(base / 'state'))}\n[roots]\n"
        + "".join(f"{root} = {json.dumps(str(base / rel))}\n" for root, rel in roots.items())
        + "[limits]\nreads_per_minute = 0\nmutations_per_minute = 0\n",
        encoding="utf-8",
    )
    return config


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--megabytes", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--collector-as-built",
        action="store_true",
        help="leave the collector as Python starts it, not as a server",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="ck3raven-bench-logs-") as folder:
        base = Path(folder)
        config = _config(base)
        log = base / "docs" / "logs" / "error.log"
        size = generate(log, args.megabytes)
        direct = Direct(config)
        if not args.collector_as_built:
            resumed(started=True)  # the collector as a started server sets it (app.serving)
        ask = {"command": "log", "path": "ROOT_USER_DOCS:/logs/error.log"}
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        floors, ours, cpu = [], [], []
        for _ in range(args.rounds):
            started = time.perf_counter()
            floor(log)
            floors.append(time.perf_counter() - started)
            started, used = time.perf_counter(), time.process_time()
            reply = direct.answer("ck3_search", ask)
            ours.append(time.perf_counter() - started)
            cpu.append(time.process_time() - used)
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    assert reply.code == "WA-LOG-S-001", reply.code
    floor_s, ours_s = statistics.median(floors), statistics.median(ours)
    print(f"log {size / 1e6:.0f} MB, {reply.data['emissions']} emissions, {reply.data['line_count']} lines")
    ratio = ours_s / floor_s
    print(f"floor {floor_s:.2f} s, summary {ours_s:.2f} s, ratio {ratio:.1f}x (target {TARGET_SECONDS} s)")
    print(f"summary CPU time {statistics.median(cpu):.2f} s (one core)")
    print(f"peak memory added by the summary: {peak / 1024:.1f} MB (the log: {size / 1e6:.0f} MB)")


if __name__ == "__main__":
    main()
