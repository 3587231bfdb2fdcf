"""The mutation score of the law's packages, from the results `mutmut run` left in `mutants/`.

`make mutate` runs mutmut (its default operators: comparison, boolean and arithmetic operators flipped,
conditions and negations dropped, constants, strings and return values replaced, arguments and calls
replaced with None) over the packages of `[tool.mutmut] source_paths` in pyproject.toml, then this
script prints, per package: mutants, killed (a test failed, or the tests ran past mutmut's time limit),
equivalent, not killed, and the score = killed / (mutants - equivalent); then every mutant not killed
with its diff. A mutant not killed is "survived" (the tests that reach it passed) or "no tests" (no test
reaches it): both count against the score.

A mutant is called equivalent only in `docs/mutants-equivalent.toml` (`"<mutant name>" = "<why no input
tells it apart>"`); an entry naming no mutant of a package the run mutated is reported, so the file
cannot go stale.

Usage: python .ci/mutants.py [--min PERCENT] [--no-diffs]. Exits 1 below --min, or on a stale entry.
"""

import argparse
import json
import subprocess
import sys
import tomllib
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "mutants"
EQUIVALENT = ROOT / "docs" / "mutants-equivalent.toml"
KILLED_CODES = {1, 3, 24, -24, 36, 152, 255}  # a test failed, or the run exceeded its time limit
SURVIVED_CODES = {0}
NO_TESTS_CODES = {5, 33}


def outcomes() -> dict[str, int | None]:
    """Every mutant of the last run and its exit code (None: not run)."""
    found: dict[str, int | None] = {}
    for meta in sorted(RESULTS.glob("domain/**/*.py.meta")):
        found.update(json.loads(meta.read_text(encoding="utf-8"))["exit_code_by_key"])
    return found


def package_of(mutant: str) -> str:
    return ".".join(mutant.split(".")[:2])


def status(code: int | None) -> str:
    if code in KILLED_CODES:
        return "killed"
    if code in SURVIVED_CODES:
        return "survived"
    if code in NO_TESTS_CODES:
        return "no tests"
    return "not run" if code is None else f"exit {code}"


def equivalents() -> dict[str, str]:
    if not EQUIVALENT.is_file():
        return {}
    with EQUIVALENT.open("rb") as file:
        return {str(name): str(why) for name, why in tomllib.load(file).items()}


def table(results: dict[str, int | None], equivalent: dict[str, str]) -> tuple[list[str], float]:
    rows = ["| package | mutants | killed | equivalent | not killed | score |", "|---|---|---|---|---|---|"]
    totals: Counter[str] = Counter()
    for package in sorted({package_of(name) for name in results}):
        names = [name for name in results if package_of(name) == package]
        counts = Counter("equivalent" if name in equivalent else status(results[name]) for name in names)
        counts["mutants"] = len(names)
        totals.update(counts)
        rows.append(_row(package, counts))
    rows.append(_row("**all**", totals))
    return rows, _score(totals)


def _score(counts: Counter[str]) -> float:
    judged = counts["mutants"] - counts["equivalent"]
    return 100.0 * counts["killed"] / judged if judged else 100.0


def _row(label: str, counts: Counter[str]) -> str:
    lost = counts["mutants"] - counts["killed"] - counts["equivalent"]
    return (
        f"| {label} | {counts['mutants']} | {counts['killed']} | {counts['equivalent']} | {lost} "
        f"| {_score(counts):.1f}% |"
    )


def stale_entries(results: dict[str, int | None], equivalent: dict[str, str]) -> list[str]:
    """Entries naming no mutant of a package the run mutated (packages may be run one at a time)."""
    packages = {package_of(name) for name in results}
    return sorted(name for name in set(equivalent) - set(results) if package_of(name) in packages)


def diff(mutant: str) -> str:
    shown = subprocess.run(
        [sys.executable, "-m", "mutmut", "show", mutant],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    lines = [
        line
        for line in shown.stdout.splitlines()
        if line.startswith(("-", "+")) and line[:3] not in {"---", "+++"}
    ]
    return "\n".join(f"      {line}" for line in lines[:6])


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--min", type=float, default=0.0, help="exit 1 when the score is below this")
    parser.add_argument("--no-diffs", action="store_true", help="list the mutants not killed without diffs")
    args = parser.parse_args(argv)
    results, equivalent = outcomes(), equivalents()
    if not results:
        print("mutants: no results in mutants/: run `make mutate`", file=sys.stderr)
        return 1
    rows, score = table(results, equivalent)
    print("\n".join(rows))
    stale = stale_entries(results, equivalent)
    lost = [name for name, code in results.items() if name not in equivalent and status(code) != "killed"]
    print(f"\nnot killed ({len(lost)}):")
    for name in lost:
        print(f"  {name}: {status(results[name])}")
        if not args.no_diffs:
            print(diff(name))
    for name in stale:
        print(f"mutants: {EQUIVALENT.name} names {name}, which is no mutant of this run", file=sys.stderr)
    return 1 if stale or score < args.min else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
