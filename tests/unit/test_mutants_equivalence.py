"""The mutation report matches an equivalent entry to its mutant by the mutant's diff, not its number:
an entry follows its mutant when an edit renumbers the function's mutants, and an entry that no mutant of
a package the run mutated makes (or that two make) fails the report, naming it. Each run here is a
`mutants/` folder laid out as mutmut leaves it: a mutated copy of a module, holding a copy of each
function's original and of each mutant, and the exit code of each mutant beside it."""

import json
from pathlib import Path
from typing import Any

import pytest

from tests.ci_scripts import load

report = load("mutants")

ORIGINAL = """\
def x_level__mutmut_orig(n):
    if n > 3:
        return "high"
    return "low"
"""


def _mutant(number: int, condition: str, high: str = "high") -> str:
    return (
        f'def x_level__mutmut_{number}(n):\n    if {condition}:\n        return "{high}"\n    return "low"\n'
    )


def _run(tmp_path: Path, *mutants: str) -> Path:
    """A `mutants/` folder in which mutmut made these mutants of domain.policy.levels.level, none run."""
    results = tmp_path / "mutants"
    module = results / "domain" / "policy" / "levels.py"
    module.parent.mkdir(parents=True)
    module.write_text("\n\n".join([ORIGINAL, *mutants]), encoding="utf-8")
    names = [f"domain.policy.levels.x_level__mutmut_{n + 1}" for n in range(len(mutants))]
    meta = {"exit_code_by_key": dict.fromkeys(names), "hash_by_function_name": {}}
    module.with_name("levels.py.meta").write_text(json.dumps(meta), encoding="utf-8")
    return results


def _entries(tmp_path: Path, *tables: tuple[str, str, str]) -> Path:
    path = tmp_path / "mutants-equivalent.toml"
    path.write_text(
        "".join(
            f'[[equivalent]]\nfunction = "{function}"\nwas = {json.dumps(was)}\nline = {json.dumps(line)}\n'
            'why = "the bound is never reached"\n\n'
            for function, was, line in tables
        ),
        encoding="utf-8",
    )
    return path


def _judged(results: Path, listed: Path) -> Any:
    outcomes, entries = report.outcomes(results), report.entries(listed)
    return report.equivalence(outcomes, entries, report.diffs({e.function for e in entries}, results))


GREATER_OR_EQUAL = ("domain.policy.levels.x_level", "if n > 3:", "if n >= 3:")


def test_an_entry_stays_on_its_mutant_when_an_edit_renumbers_the_functions_mutants(tmp_path: Path):
    listed = _entries(tmp_path, GREATER_OR_EQUAL)
    before = _run(tmp_path / "before", _mutant(1, "n >= 3"), _mutant(2, "n > 4"))
    after = _run(
        tmp_path / "after", _mutant(1, "n > 3", high="HIGH"), _mutant(2, "n > 4"), _mutant(3, "n >= 3")
    )

    assert _judged(before, listed).why == {
        "domain.policy.levels.x_level__mutmut_1": "the bound is never reached"
    }
    assert _judged(after, listed).why == {
        "domain.policy.levels.x_level__mutmut_3": "the bound is never reached"
    }


def test_an_entry_matches_its_mutant_whatever_the_whitespace_of_its_lines(tmp_path: Path):
    listed = _entries(tmp_path, ("domain.policy.levels.x_level", "  if n >  3:", "if   n >= 3: "))

    assert list(_judged(_run(tmp_path, _mutant(1, "n >= 3")), listed).why) == [
        "domain.policy.levels.x_level__mutmut_1"
    ]


def test_an_entry_no_mutant_of_the_run_makes_fails_the_report_naming_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
):
    monkeypatch.setattr(report, "RESULTS", _run(tmp_path, _mutant(1, "n > 4")))
    monkeypatch.setattr(report, "EQUIVALENT", _entries(tmp_path, GREATER_OR_EQUAL))

    code = report.main(["--no-diffs"])

    complaint = capsys.readouterr().err
    assert code == 1
    assert "domain.policy.levels.x_level" in complaint
    assert "'if n >= 3:'" in complaint


def test_an_entry_two_mutants_make_alike_fails_the_report(tmp_path: Path):
    run = _run(tmp_path, _mutant(1, "n >= 3"), _mutant(2, "n >= 3"))
    judged = _judged(run, _entries(tmp_path, GREATER_OR_EQUAL))

    assert (judged.why, judged.ambiguous) == ({}, report.entries(tmp_path / "mutants-equivalent.toml"))


def test_an_entry_of_a_package_the_run_did_not_mutate_is_not_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
):
    monkeypatch.setattr(report, "RESULTS", _run(tmp_path, _mutant(1, "n > 4")))
    monkeypatch.setattr(
        report,
        "EQUIVALENT",
        _entries(tmp_path, ("domain.world.view.x_visible", "return True", "return False")),
    )

    code = report.main(["--no-diffs"])

    assert code == 0
    assert capsys.readouterr().err == ""
