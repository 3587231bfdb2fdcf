"""docs/conformance.md is rendered from docs/conformance-map.toml, whose rules are well formed, name only
tests that exist and, with the seeds at hand, cover each normative seed line: the page cannot go stale."""

from tests.ci_scripts import load

conformance = load("conformance")


def test_the_conformance_map_is_valid_and_its_markdown_is_current():
    assert conformance.problems() == []
