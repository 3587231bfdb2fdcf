"""The mutation score of the law's packages, from the results `mutmut run` left in `mutants/`.

`make mutate` runs mutmut (its default operators: comparison, boolean and arithmetic operators flipped,
conditions and negations dropped, constants, strings and return values replaced, arguments and calls
replaced with None) over the packages of `[tool.mutmut] source_paths` in pyproject.toml, then this
script prints, per package: mutants, killed (a test failed, or the tests ran past mutmut's time limit),
equivalent, not killed, and the score = killed / (mutants - equivalent); then every mutant not killed
with its diff. A mutant not killed is "survived" (the tests that reach it passed) or "no tests" (no test
reaches it): both count against the score.

A mutant is called equivalent only in `docs/mutants-equivalent.toml`, by what it changes rather than by
its number (mutmut numbers the mutants of a function in order, so an edit of the function renumbers
them): each `[[equivalent]]` entry names the `function` mutated (the mutant's name without
`__mutmut_N`), what the mutant takes out of it (`was`: the `-` lines of its diff) and puts in its place
(`line`: the `+` lines), each with every run of whitespace made one space, and `why` no input tells the
mutant apart. An entry holds for the one mutant of its function with that diff, whatever its number. An
entry that matches no mutant of a package the run mutated fails the report, naming the entry, and so does
one that matches two (the same change of the same text, twice in one function): an entry can neither go
stale nor silently come to name another mutant.

The diffs are read from the mutated copies mutmut writes into `mutants/` before it runs a test: beside
each function it writes a copy of the original (`<name>__mutmut_orig`) and each mutant
(`<name>__mutmut_<N>`); a mutant's diff is that of its copy against the original's, as `mutmut show`
prints it.

Usage: python .ci/mutants.py [--min PERCENT] [--no-diffs] [--entry MUTANT ...]. Exits 1 below --min,
or on an entry that matches no mutant, or several. --entry prints the `[[equivalent]]` table of each
mutant named (its `why` left to write) and nothing else.
"""

import argparse
import ast
import difflib
import json
import sys
import tomllib
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "mutants"
EQUIVALENT = ROOT / "docs" / "mutants-equivalent.toml"
KILLED_CODES = {1, 3, 24, -24, 36, 152, 255}  # a test failed, or the run exceeded its time limit
SURVIVED_CODES = {0}
NO_TESTS_CODES = {5, 33}
MARK = "__mutmut_"  # between a function's name and the number of its mutant (or `orig`)
DIFF_LINES = 6  # changed lines shown per mutant not killed


@dataclass(frozen=True)
class Entry:
    """One `[[equivalent]]` entry: the mutant of `function` that puts `line` where `was` stood, and why it
    is equivalent."""

    function: str
    was: str
    line: str
    why: str


@dataclass(frozen=True)
class Equivalence:
    """The entries matched to the run's mutants: each equivalent mutant with its reason; the entries whose
    change no mutant of their function makes (in packages the run mutated), and those two mutants make."""

    why: dict[str, str]
    unmatched: list[Entry]
    ambiguous: list[Entry]


def outcomes(results: Path) -> dict[str, int | None]:
    """Every mutant of the last run and its exit code (None: not run)."""
    found: dict[str, int | None] = {}
    for meta in sorted(results.glob("domain/**/*.py.meta")):
        found.update(json.loads(meta.read_text(encoding="utf-8"))["exit_code_by_key"])
    return found


def package_of(name: str) -> str:
    return ".".join(name.split(".")[:2])


def function_of(mutant: str) -> str:
    """The function a mutant changes, as mutmut names it: the mutant's name without its number."""
    return mutant.rpartition(MARK)[0]


def status(code: int | None) -> str:
    if code in KILLED_CODES:
        return "killed"
    if code in SURVIVED_CODES:
        return "survived"
    if code in NO_TESTS_CODES:
        return "no tests"
    return "not run" if code is None else f"exit {code}"


def entries(path: Path) -> list[Entry]:
    if not path.is_file():
        return []
    with path.open("rb") as file:
        tables = tomllib.load(file).get("equivalent", [])
    return [
        Entry(str(table["function"]), str(table["was"]), str(table["line"]), str(table["why"]))
        for table in tables
    ]


def normalised(text: str) -> str:
    """The text with every run of whitespace, line breaks included, made one space."""
    return " ".join(text.split())


def changed_lines(original: str, mutant: str) -> list[str]:
    """The lines of a mutant's diff against the original function that differ: `-` the original's,
    `+` the mutant's (difflib's matching, as `mutmut show` uses it)."""
    before, after = original.splitlines(), mutant.splitlines()
    lines: list[str] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, before, after).get_opcodes():
        if tag != "equal":
            lines += [f"-{line}" for line in before[i1:i2]] + [f"+{line}" for line in after[j1:j2]]
    return lines


def side(changed: Iterable[str], sign: str) -> str:
    """The text of a diff's `-` lines (what a mutant takes out) or `+` lines (what it puts in their
    place), whitespace normalised."""
    return normalised(" ".join(line[1:] for line in changed if line.startswith(sign)))


def makes(entry: Entry, changed: list[str]) -> bool:
    """Whether a mutant with these changed lines makes the entry's change."""
    return side(changed, "-") == normalised(entry.was) and side(changed, "+") == normalised(entry.line)


def generated_functions(source: str) -> dict[str, str]:
    """The functions mutmut generated in a mutated file (top level or in a class), by name: the text of
    each, its own name in its `def` replaced by `_` so that copies differ only where they were mutated."""
    tree = ast.parse(source)
    lines = source.splitlines()
    members = [node for cls in tree.body if isinstance(cls, ast.ClassDef) for node in cls.body]
    functions: dict[str, str] = {}
    for node in [*tree.body, *members]:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and MARK in node.name:
            text = "\n".join(lines[node.lineno - 1 : node.end_lineno])
            functions[node.name] = text.replace(f"def {node.name}(", "def _(", 1)
    return functions


def diffs(functions: Iterable[str], results: Path) -> dict[str, list[str]]:
    """The changed lines of every mutant of these functions (names as `function_of` gives them), read
    from the mutated copies in `results`; a function of no mutated file has none."""
    by_module: dict[str, set[str]] = {}
    for function in functions:
        module, _, local = function.rpartition(".")
        by_module.setdefault(module, set()).add(local)
    found: dict[str, list[str]] = {}
    for module, locals_ in by_module.items():
        path = results / f"{module.replace('.', '/')}.py"
        copies = generated_functions(path.read_text(encoding="utf-8")) if path.is_file() else {}
        for name, text in copies.items():
            local, _, number = name.rpartition(MARK)
            original = copies.get(f"{local}{MARK}orig")
            if local in locals_ and number.isdigit() and original is not None:
                found[f"{module}.{name}"] = changed_lines(original, text)
    return found


def equivalence(
    results: Mapping[str, int | None], listed: Iterable[Entry], changed: Mapping[str, list[str]]
) -> Equivalence:
    """Match each entry to the mutant of its function that makes its change.

    An entry matching nothing is unmatched only in a package the run mutated: packages may be run one at
    a time, and the entries of the others are then not judged.
    """
    packages = {package_of(name) for name in results}
    why: dict[str, str] = {}
    unmatched: list[Entry] = []
    ambiguous: list[Entry] = []
    for entry in listed:
        matches = [
            name
            for name, lines in changed.items()
            if name in results and function_of(name) == entry.function and makes(entry, lines)
        ]
        if len(matches) == 1:
            why[matches[0]] = entry.why
        elif matches:
            ambiguous.append(entry)
        elif package_of(entry.function) in packages:
            unmatched.append(entry)
    return Equivalence(why, unmatched, ambiguous)


def table(results: Mapping[str, int | None], equivalent: Mapping[str, str]) -> tuple[list[str], float]:
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


def _toml_string(text: str) -> str:
    """A TOML literal string where one can hold the text (nothing in it to unescape when read), else a
    basic string (which a JSON string is)."""
    return f"'{text}'" if "'" not in text and text.isprintable() else json.dumps(text, ensure_ascii=False)


def entry_table(mutant: str, changed: list[str]) -> str:
    """The `[[equivalent]]` table of a mutant, its reason left to write."""
    return "\n".join(
        [
            "[[equivalent]]",
            f"function = {_toml_string(function_of(mutant))}",
            f"was = {_toml_string(side(changed, '-'))}",
            f"line = {_toml_string(side(changed, '+'))}",
            'why = ""',
        ]
    )


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--min", type=float, default=0.0, help="exit 1 when the score is below this")
    parser.add_argument("--no-diffs", action="store_true", help="list the mutants not killed without diffs")
    parser.add_argument("--entry", nargs="+", default=[], help="print the entry of each mutant named")
    args = parser.parse_args(argv)
    if args.entry:
        changed = diffs((function_of(name) for name in args.entry), RESULTS)
        missing = [name for name in args.entry if name not in changed]
        for name in missing:
            print(f"mutants: {name} is no mutant in {RESULTS.name}/", file=sys.stderr)
        print("\n\n".join(entry_table(name, changed[name]) for name in args.entry if name in changed))
        return 1 if missing else 0
    results, listed = outcomes(RESULTS), entries(EQUIVALENT)
    if not results:
        print("mutants: no results in mutants/: run `make mutate`", file=sys.stderr)
        return 1
    lost = {name for name, code in results.items() if status(code) != "killed"}
    changed = diffs({entry.function for entry in listed} | {function_of(name) for name in lost}, RESULTS)
    matched = equivalence(results, listed, changed)
    rows, score = table(results, matched.why)
    print("\n".join(rows))
    shown = [name for name in results if name in lost and name not in matched.why]
    print(f"\nnot killed ({len(shown)}):")
    for name in shown:
        print(f"  {name}: {status(results[name])}")
        if not args.no_diffs:
            print("\n".join(f"      {line}" for line in changed.get(name, [])[:DIFF_LINES]))
    for entry in matched.unmatched:
        print(f"mutants: {EQUIVALENT.name}: no mutant of this run makes {_named(entry)}", file=sys.stderr)
    for entry in matched.ambiguous:
        print(f"mutants: {EQUIVALENT.name}: several mutants make {_named(entry)}", file=sys.stderr)
    return 1 if matched.unmatched or matched.ambiguous or score < args.min else 0


def _named(entry: Entry) -> str:
    return f"the entry of {entry.function} that puts {entry.line!r} where {entry.was!r} stood"


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
