"""`make bench` and `make bench-peers`: every bench in one run, one table at the end, and the same rows
as JSON (every sample included) in bench/results/.

Groups, in this order (each can be run alone with --only, or as its own script):
  startup    spawn -> first tools/list, ck3raven beside stock FastMCP 4 and the Node reference server
             (bench/startup.py)
  calls      calls over stdio against floors and the stock server (bench/calls.py)
  http       calls per second over HTTP with 8 and 32 clients, ck3raven beside the stock server, and
             their p99 latencies (bench/http_load.py)
  enforce    resolve + enforce in process (bench/enforce.py)
  contracts  contract open and close against the git CLI, cold and warm (bench/contracts.py)
  stored     a governed write with 0 to 10,000 stored contracts (bench/stored_contracts.py)
  baselines  the manifest at open, the reconciliation at close in every layout, the journal's cost on a
             governed write (bench/baselines.py)
  layouts    contract open and close as whole calls on a 15,000-file documents folder in five layouts,
             against git status and a scandir walk (bench/contract_calls.py)
  index      the content index: cold build against a read-and-tokenise floor, warm start, key lookup,
             a governed write's update, peak RSS (bench/index_build.py)
With --peers, the Node reference server joins the calls too, and only the start-up and the calls run
(unless --only names others).

Nothing here asserts a time: each row says whether its target was met in this run, on this machine.
"""

import argparse
import datetime as dt
import importlib
import os
import platform
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import CHECKOUT, HERE, Place, ensure_world, install_reference, scratch_place
from report import Row, dump, table

RESULTS = HERE / "results"
GROUPS = ("startup", "calls", "http", "enforce", "contracts", "stored", "baselines", "layouts", "index")
PEER_GROUPS = ("startup", "calls")


_PLAIN: dict[str, tuple[str, Callable[[int], int]]] = {
    "enforce": ("enforce", lambda rounds: rounds),
    "contracts": ("contracts", lambda rounds: rounds),
    "stored": ("stored_contracts", lambda rounds: rounds * 10),
    "baselines": ("baselines", lambda rounds: rounds),
    "layouts": ("contract_calls", lambda rounds: max(6, rounds // 3)),
}
"""The groups whose module's `measure` takes only its rounds (a multiple of the run's, or a share)."""


def run_group(name: str, place: Place, args: argparse.Namespace, problems: list[str]) -> list[Row]:
    rounds = args.rounds
    if name in _PLAIN:
        module, scaled = _PLAIN[name]
        measured: list[Row] = importlib.import_module(module).measure(scaled(rounds))
        return measured
    if name == "startup":
        import startup

        return startup.measure(place, rounds)
    if name == "calls":
        import calls

        rows, found = calls.measure(place, rounds, peers=args.peers)
        problems += found
        return rows
    if name == "http":
        import http_load

        return http_load.measure(place, rounds)
    import index_build

    return index_build.measure(max(1, rounds // 3), place.game.parent)


def meta(args: argparse.Namespace, started: float, loads: tuple[float, float]) -> dict[str, object]:
    def quiet(*command: str) -> str:
        try:
            done = subprocess.run(command, cwd=CHECKOUT, capture_output=True, text=True, check=False)
        except OSError:
            return ""
        return done.stdout.strip()

    return {
        "when": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "commit": quiet("git", "rev-parse", "HEAD"),
        "changed_files": len(quiet("git", "status", "--porcelain").splitlines()),
        "host": platform.node(),
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "node": quiet("node", "--version") or None,
        "rounds": args.rounds,
        "groups": args.only,
        "peers": args.peers,
        "seconds": round(time.perf_counter() - started, 1),
        "load_average_before_after": loads,
    }


def parse() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument(
        "--rounds", type=int, default=20, help="rounds per case (at least 20 for the figures)"
    )
    parser.add_argument("--peers", action="store_true", help="add the Node reference server")
    parser.add_argument("--only", help=f"comma-separated groups, of: {', '.join(GROUPS)}")
    parser.add_argument(
        "--json", help="where the JSON goes: a file, or - for stdout (default: bench/results/)"
    )
    args = parser.parse_args()
    wanted = args.only.split(",") if args.only else list(PEER_GROUPS if args.peers else GROUPS)
    unknown = set(wanted) - set(GROUPS)
    if unknown:
        parser.error(f"unknown groups: {', '.join(sorted(unknown))}")
    args.only = [name for name in GROUPS if name in wanted]
    return args


def main() -> None:
    args = parse()
    started = time.perf_counter()
    load_before = os.getloadavg()[0]
    if args.peers:
        install_reference()
    rows: list[Row] = []
    problems: list[str] = []
    with scratch_place(ensure_world()) as place:
        for name in args.only:
            _say(f"bench: {name} ...")
            group_started = time.perf_counter()
            rows += run_group(name, place, args, problems)
            _say(f"bench: {name} took {time.perf_counter() - group_started:.0f} s")
    info = meta(args, started, (load_before, os.getloadavg()[0]))
    title = "ck3raven bench" + (" with the reference server" if args.peers else "")
    print(
        f"\n{title}: {info['when']}, {args.rounds} rounds, {info['seconds']} s, load average "
        f"{load_before:.1f} -> {os.getloadavg()[0]:.1f} on {info['cpus']} CPUs"
    )
    print(table(rows))
    for problem in problems:
        print(f"! {problem}")
    _write(args.json, dump(rows, {**info, "problems": problems}), peers=args.peers)


def _write(where: str | None, text: str, *, peers: bool) -> None:
    if where == "-":
        print(text)
        return
    if where is None:
        RESULTS.mkdir(exist_ok=True)
        stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%SZ")
        path = RESULTS / f"bench{'-peers' if peers else ''}-{stamp}.json"
    else:
        path = Path(where)
    path.write_text(text + "\n", encoding="utf-8")
    print(f"(the rows as JSON, every sample included: {path})")


_say: Callable[[str], object] = lambda text: print(text, file=sys.stderr, flush=True)  # noqa: E731


if __name__ == "__main__":
    main()
