"""The mutation report counts a mutant as killed only when a test failed or timed out, holds survivors and
untested mutants against the score, and takes a mutant as equivalent only when the checked-in file says so."""

from collections import Counter

from tests.ci_scripts import load

report = load("mutants")

RESULTS = {
    "domain.policy.enforcement.x_enforce__mutmut_1": 1,  # a test failed
    "domain.policy.enforcement.x_enforce__mutmut_2": 36,  # timed out
    "domain.policy.enforcement.x_enforce__mutmut_3": 0,  # survived
    "domain.policy.enforcement.x_enforce__mutmut_4": 33,  # no test reaches it
    "domain.contracts.opening.x_open__mutmut_1": 0,
    "domain.contracts.opening.x_open__mutmut_2": None,  # not run
}


def test_survivors_untested_and_unrun_mutants_count_against_the_score():
    rows, score = report.table(RESULTS, {})

    assert score == 100.0 * 2 / 6
    assert "| domain.policy | 4 | 2 | 0 | 2 | 50.0% |" in rows


def test_a_mutant_named_equivalent_leaves_the_score_and_is_not_counted_as_lost():
    _, score = report.table(RESULTS, {"domain.policy.enforcement.x_enforce__mutmut_3": "same output"})

    assert score == 100.0 * 2 / 5


def test_each_status_is_read_from_mutmuts_exit_codes():
    assert Counter(report.status(code) for code in RESULTS.values()) == Counter(
        {"killed": 2, "survived": 2, "no tests": 1, "not run": 1}
    )
