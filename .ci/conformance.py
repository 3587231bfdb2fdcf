"""The conformance map: every rule of the seeds and SPEC.md, with the tests that fail when it breaks.

`docs/conformance-map.toml` holds one entry per rule (id, sources, a short quote, a status and pytest node
ids); `docs/conformance.md` is rendered from it. This script holds that:

  1. every id is unique and well formed, and every source names a seed of the map or `SPEC §N`;
  2. a `tested` entry lists at least one test, an `open` one none, a `superseded` one names the SPEC section
     that replaces it (`by`) and a `not-applicable` one says why (`reason`);
  3. every listed test exists: its file is under tests/ and defines a top-level `def test_*` (or
     `async def`) of that name (parametrised tests are named without their brackets);
  4. when the seeds are at hand (`seeds_dir` of the map, or --seeds): every normative seed line (one with a
     normative word — must, must not, shall, never, forbidden, required, requires, mandatory, only, cannot,
     may not, always, word-bounded, or prohibited, banned, not allowed or permitted, in any case — and the
     bullets of a forbidden or prohibited list) is covered by an entry of that seed, whose `text` or one of
     whose `lines` anchors, normalised, is part of the line; every anchor still names a line of its sources;
  5. with SPEC.md beside the seeds: every SPEC section is cited, and every `- ` bullet of SPEC and every SPEC
     line with a normative word is covered by an entry citing that line's section (`SPEC §N` or `§N.x`)
     whose `text` or a `lines` anchor is part of the line;
  6. docs/conformance.md is exactly what `--write` renders.

Usage: python .ci/conformance.py --write | --check [--seeds DIR]. --check exits 1 naming each problem.
"""

import argparse
import ast
import re
import sys
import tomllib
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MAP = ROOT / "docs" / "conformance-map.toml"
DOC = ROOT / "docs" / "conformance.md"
STATUSES = ("tested", "open", "superseded", "not-applicable")
ID = re.compile(r"^[a-z]+(-[a-z0-9.]+)+$")
SOURCE = re.compile(r"^(?P<name>[a-z-]+|SPEC) §(?P<section>[0-9][0-9.]*[a-z]?|[A-Za-z][\w.-]*)$")
NORMATIVE = re.compile(
    r"\b(must|shall|never|required|requires|mandatory|only|cannot|may not|always)\b"
    r"|forbidden|prohibited|banned|not (allowed|permitted)",
    re.IGNORECASE,
)
LIST_HEAD = re.compile(r"forbidden|prohibited", re.IGNORECASE)
BULLET = re.compile(r"^\s*[-*]\s+\S")
SPEC_BULLET = re.compile(r"^- \S")
SPEC_SECTION = re.compile(r"^## (\d+)\.")


def normalise(text: str) -> str:
    text = re.sub(r"[*`\\]", "", text).replace("\u2011", "-").casefold()
    return " ".join(text.split())


def _sections(rule: dict, name: str) -> list[str]:
    return [s.split(" §")[1] for s in rule.get("source", []) if s.split(" §")[0] == name]


def normative_lines(text: str) -> list[tuple[int, str]]:
    """The normative lines of a seed, with the bullets that a forbidden or prohibited list header heads."""
    lines = text.splitlines()
    found: dict[int, str] = {}
    for number, line in enumerate(lines, 1):
        if not NORMATIVE.search(line):
            continue
        found[number] = line
        head = normalise(line)
        if LIST_HEAD.search(line) and (head.endswith(":") or head.startswith("#")):
            for below, item in enumerate(lines[number:], number + 1):
                if BULLET.match(item):
                    found[below] = item
                elif item.strip():
                    break
    return sorted(found.items())


def defined_tests(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    functions = (ast.FunctionDef, ast.AsyncFunctionDef)
    return {node.name for node in tree.body if isinstance(node, functions) and node.name.startswith("test_")}


def _entry_problems(rule: dict, seeds: dict) -> list[str]:
    where, status = f"{rule.get('id', '?')}:", rule.get("status")
    found = [f"{where} no text"] if not rule.get("text") else []
    for source in rule.get("source", []) or [None]:
        match = SOURCE.match(source or "")
        if match is None or (match["name"] != "SPEC" and match["name"] not in seeds):
            found.append(f"{where} source {source!r} is not '<seed> §<section>' or 'SPEC §<n>'")
    if status not in STATUSES:
        found.append(f"{where} status {status!r} is not one of {', '.join(STATUSES)}")
    if status == "tested" and not rule.get("tests"):
        found.append(f"{where} tested, but lists no test")
    if status == "open" and rule.get("tests"):
        found.append(f"{where} open, but lists tests (mark it tested)")
    if status == "superseded" and not str(rule.get("by", "")).startswith("SPEC §"):
        found.append(f"{where} superseded, but `by` names no SPEC section")
    if status == "not-applicable" and not rule.get("reason"):
        found.append(f"{where} not-applicable, but gives no reason")
    return found


def _test_problems(rules: list[dict]) -> list[str]:
    found, known = [], {}
    for rule in rules:
        for node in rule.get("tests", []):
            file, _, name = node.partition("::")
            path = ROOT / file
            if not file.startswith("tests/") or not path.is_file() or not name:
                found.append(f"{rule['id']}: {node} names no test file under tests/")
                continue
            if file not in known:
                known[file] = defined_tests(path)
            if name not in known[file]:
                found.append(f"{rule['id']}: {node} is not a top-level test function of {file}")
    return found


def _anchor(text: str) -> str:
    return normalise(text).rstrip(".:; ")


def spec_lines(text: str) -> list[tuple[int, str, str | None]]:
    """The SPEC lines to cover, with their section: each `- ` bullet and each line with a normative word."""
    found, section = [], None
    for number, line in enumerate(text.splitlines(), 1):
        if heading := SPEC_SECTION.match(line):
            section = heading[1]
        if SPEC_BULLET.match(line) or NORMATIVE.search(line):
            found.append((number, line, section))
    return found


def _anchors(rules: list[dict]) -> list[str]:
    return [a for a in (_anchor(t) for r in rules for t in [r.get("text", ""), *r.get("lines", [])]) if a]


def _coverage_problems(rules: list[dict], seeds: dict, folder: Path) -> list[str]:
    found, texts = [], {n: (folder / s["file"]).read_text(encoding="utf-8") for n, s in seeds.items()}
    for name, text in texts.items():
        anchors = _anchors([r for r in rules if _sections(r, name)])
        for number, line in normative_lines(text):
            if not any(anchor in normalise(line) for anchor in anchors):
                found.append(f"{name} line {number} is in no entry: {normalise(line)[:90]!r}")
    spec = folder.parent / "SPEC.md"
    if spec.is_file():
        texts["SPEC"] = spec.read_text(encoding="utf-8")
        found += _spec_problems(rules, texts["SPEC"])
    for rule in rules:
        lines = [normalise(line) for n in texts if _sections(rule, n) for line in texts[n].splitlines()]
        found += [
            f"{rule.get('id')}: anchor {a!r} names no line of its sources"
            for a in rule.get("lines", [])
            if not any(_anchor(a) in line for line in lines)
        ]
    return found


def _spec_problems(rules: list[dict], text: str) -> list[str]:
    cited: dict[str, list[dict]] = {}
    for rule in rules:
        for section in {s.split(".")[0] for s in _sections(rule, "SPEC")}:
            cited.setdefault(section, []).append(rule)
    sections = re.findall(r"^## (\d+)\.", text, re.MULTILINE)
    found = [f"SPEC §{section} is cited by no entry" for section in sections if section not in cited]
    every = [r for r in rules if _sections(r, "SPEC")]
    for number, line, section in spec_lines(text):
        anchors = _anchors(cited.get(section, []) if section else every)
        if not any(anchor in normalise(line) for anchor in anchors):
            found.append(f"SPEC §{section} line {number} is in no entry: {normalise(line)[:90]!r}")
    return found


def load(path: Path = MAP) -> dict:
    with path.open("rb") as file:
        return tomllib.load(file)


def problems(path: Path = MAP, doc: Path = DOC, seeds_dir: Path | None = None) -> list[str]:
    """Everything wrong with the map, the tests it names, its seed coverage and the rendered markdown."""
    data = load(path)
    rules, seeds = data.get("rule", []), data.get("seeds", {})
    found = [f"id {i!r} is used {n} times" for i, n in Counter(r.get("id") for r in rules).items() if n > 1]
    found += [f"id {r.get('id')!r} is not like law-11.5-a" for r in rules if not ID.match(str(r.get("id")))]
    found += [p for rule in rules for p in _entry_problems(rule, seeds)]
    found += _test_problems(rules)
    folder = seeds_dir or (ROOT / data.get("seeds_dir", "")).resolve()
    if folder.is_dir():
        found += _coverage_problems(rules, seeds, folder)
    else:
        print(f"conformance: no seeds at {folder}: seed coverage not checked", file=sys.stderr)
    if not doc.is_file() or doc.read_text(encoding="utf-8") != render(data):
        found.append(f"{doc.name} is stale: run `python .ci/conformance.py --write`")
    return found


def _cell(text: object) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def _row(rule: dict, name: str) -> str:
    status, others = rule.get("status"), [s for s in rule.get("source", []) if s.split(" §")[0] != name]
    if status == "superseded":
        status = f"superseded by {rule.get('by')}"
    elif status == "not-applicable":
        status = f"not-applicable: {rule.get('reason')}"
    text = _cell(rule.get("text"))
    text += f" *(also {', '.join(others)})*" if others else ""
    text += f" *Note: {_cell(rule['note'])}*" if rule.get("note") else ""
    proof = "<br>".join(f"`{node}`" for node in rule.get("tests", [])) or "-"
    return f"| `{rule.get('id')}` | {', '.join(_sections(rule, name))} | {text} | {_cell(status)} | {proof} |"


def render(data: dict) -> str:
    """docs/conformance.md: a summary, one table per source (seed order, then SPEC), the open rules."""
    rules, seeds = data.get("rule", []), data.get("seeds", {})
    names = [*seeds, "SPEC"]
    titles = {n: f"{n}: {s['title']} (`{s['file']}`)" for n, s in seeds.items()} | {"SPEC": "SPEC.md"}
    out = [
        "# Conformance: the rules of the seeds and SPEC.md, and the tests that prove them",
        "",
        "Generated from `docs/conformance-map.toml` by `python .ci/conformance.py --write`; `make check`",
        "fails when it is stale. A listed test fails when its rule breaks. Do not edit this file by hand.",
        "",
        "| source | rules | " + " | ".join(STATUSES) + " |",
        "|---|---|---|---|---|---|",
    ]
    own = {name: [r for r in rules if _sections(r, name)] for name in names}
    for name, label in [*((n, n) for n in names), ("all", "**all (each rule once)**")]:
        counted = rules if name == "all" else own[name]
        counts = Counter(r.get("status") for r in counted)
        out.append(f"| {label} | {len(counted)} | " + " | ".join(str(counts[s]) for s in STATUSES) + " |")
    for name in names:
        out += ["", f"## {titles[name]}", "", "| id | § | rule | status | tests |", "|---|---|---|---|---|"]
        out += [_row(rule, name) for rule in own[name]]
    out += _mutation_section(data.get("mutation", []))
    out += ["", "## Open: what nothing tests yet", ""]
    out += [
        f"- `{r.get('id')}` ({', '.join(r.get('source', []))}): {_cell(r.get('text'))}"
        for r in rules
        if r.get("status") == "open"
    ]
    return "\n".join(out) + "\n"


def _mutation_section(runs: list[dict]) -> list[str]:
    """The mutation scores `make mutate` measured (`[[mutation]]` entries of the map), each with its date."""
    if not runs:
        return []
    out = ["", "## Mutation score (`make mutate`)", ""]
    out += ["| package | date | commit | tests | mutants | killed | equivalent | not killed | score |"]
    out += ["|---|---|---|---|---|---|---|---|---|"]
    for run in runs:
        judged = run["mutants"] - run["equivalent"]
        score = 100.0 * run["killed"] / judged if judged else 100.0
        lost = judged - run["killed"]
        out.append(
            f"| {run['package']} | {run['date']} | `{run['commit']}` | {_cell(run['tests'])} "
            f"| {run['mutants']} | {run['killed']} | {run['equivalent']} | {lost} | {score:.1f}% |"
        )
    return out


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", action="store_true", help="regenerate docs/conformance.md")
    mode.add_argument("--check", action="store_true", help="exit 1 when the map or the markdown is wrong")
    parser.add_argument("--seeds", type=Path, help="the seeds folder (default: seeds_dir of the map)")
    args = parser.parse_args(argv)
    if args.write:
        DOC.write_text(render(load()), encoding="utf-8")
    found = problems(seeds_dir=args.seeds)
    for problem in found:
        print(f"conformance: {problem}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
