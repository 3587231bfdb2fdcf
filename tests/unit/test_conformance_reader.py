"""The conformance check reads every normative word of a seed and every bullet and normative line of SPEC.md,
and finds one that no entry covers."""

import pytest

from tests.ci_scripts import load

conformance = load("conformance")

WORDS = ["must", "MUST NOT", "shall", "Never", "forbidden", "required", "requires", "mandatory", "only"]
WORDS += ["cannot", "may not", "ALWAYS", "prohibited", "banned", "not allowed", "not permitted"]


@pytest.mark.parametrize("word", WORDS)
def test_a_seed_line_with_any_normative_word_is_read(word: str):
    text = f"A heading\n\nThe tool {word} do it.\nThe tool does it.\n"

    assert conformance.normative_lines(text) == [(3, f"The tool {word} do it.")]


def test_normative_words_are_read_whole_not_inside_other_words():
    text = "Commonly done.\nAn unrequired, mustard-coloured, nevertheless allways thing.\n"

    assert conformance.normative_lines(text) == []


def test_spec_bullets_and_normative_lines_are_read_with_their_section():
    text = "# Title\n\n## 3. Addresses\n- A bullet.\nplain prose\nit is never so.\n## 4. World\n- Another.\n"

    assert conformance.spec_lines(text) == [
        (4, "- A bullet.", "3"),
        (6, "it is never so.", "3"),
        (8, "- Another.", "4"),
    ]


def rule(section: str, *lines: str) -> dict:
    return {"id": "spec-x", "source": [f"SPEC §{section}"], "text": "x", "lines": list(lines)}


def test_a_spec_bullet_is_covered_only_by_an_entry_of_its_own_section():
    text = "## 3. Addresses\n- Reject, never repair.\n## 4. World\n- Reads are free.\n"

    covered = conformance._spec_problems(
        [rule("3", "reject, never repair"), rule("4", "reads are free")], text
    )
    elsewhere = conformance._spec_problems([rule("4", "reject, never repair", "reads are free")], text)

    assert covered == []
    assert elsewhere == [
        "SPEC §3 is cited by no entry",
        "SPEC §3 line 2 is in no entry: '- reject, never repair.'",
    ]
