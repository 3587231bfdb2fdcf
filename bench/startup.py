"""Start-up over stdio: spawn to the first `tools/list` answer, ck3raven beside a stock FastMCP 4 server
with one tool and the Node reference server (where Node.js and npm are installed), spawns interleaved
(ours, stock, reference, ours, stock, ...), one untimed spawn of each first, ck3raven's modules
byte-compiled before (as stock FastMCP's are by its install). Each spawn is a fresh
process, shut down (end of input) before the next starts; its peak resident set is read just before.

    python bench/startup.py [--rounds 9]
"""

import argparse
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import Place, byte_compiled, ensure_world, ours, reference, reference_entry, scratch_place, stock
from report import Row, Target, table
from rpc import Started, first_tools_list


def measure(place: Place, rounds: int) -> list[Row]:
    peers = reference_entry() is not None
    specs = [ours(place), stock(place)] + ([reference(place)] if peers else [])
    byte_compiled()  # both servers' modules from their bytecode caches, whatever the environment says
    for spec in specs:  # warm the page cache and the import caches (.pyc) alike
        first_tools_list(spec, place.errlog(spec.name))
    started: dict[str, list[Started]] = {spec.name: [] for spec in specs}
    for _ in range(rounds):
        for spec in specs:
            started[spec.name].append(first_tools_list(spec, place.errlog(spec.name)))
    mine, theirs = started[specs[0].name], started[specs[1].name]
    rows = [
        _row(
            "start-up: spawn -> first tools/list",
            mine,
            "stock FastMCP 4, same tools",
            theirs,
            Target("ratio", 1.1),
        ),
        _rss_row("peak RSS after start-up", mine, "stock FastMCP 4", theirs),
    ]
    if peers:
        node = started[specs[2].name]
        rows.insert(
            1, _row("start-up: spawn -> first tools/list", mine, "reference server (Node)", node, None)
        )
        rows.append(_rss_row("peak RSS after start-up", mine, "reference server (Node)", node))
    else:
        rows[0].note = "the reference server is left out: Node.js and npm are not installed"
    return rows


def _row(case: str, mine: list[Started], against: str, theirs: list[Started], target: Target | None) -> Row:
    return Row(
        case,
        statistics.median(s.seconds for s in mine),
        "s",
        against,
        statistics.median(s.seconds for s in theirs),
        target,
        ours_bytes=mine[-1].size,
        other_bytes=theirs[-1].size,
        samples={"ours": [s.seconds for s in mine], "other": [s.seconds for s in theirs]},
    )


def _rss_row(case: str, mine: list[Started], against: str, theirs: list[Started]) -> Row:
    def mib(found: list[Started]) -> float | None:
        values = [s.peak_rss_kib / 1024 for s in found if s.peak_rss_kib is not None]
        return statistics.median(values) if values else None

    return Row(case, mib(mine), "MiB", against, mib(theirs))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--rounds", type=int, default=9)
    args = parser.parse_args()
    with scratch_place(ensure_world()) as place:
        print(table(measure(place, args.rounds)))


if __name__ == "__main__":
    main()
