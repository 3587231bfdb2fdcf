"""A content search reports the first match starting on each line, whatever window of lines the engine
was given at a time: the same lines and columns as Python's `re` searching from each line's start."""

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adapters.re2_patterns import Re2Patterns
from domain import matches

PATTERNS = ["a", "ab", "^b", "a$", "b+a", "(a|b)c", "c[^a]", "^$"]


def reference(text: str, pattern: str) -> list[tuple[int, int]]:
    """(line, column) of the first match starting on each line, searching the whole text from the line's
    start with Python's `re` (a match may run on over the lines after it)."""
    compiled = re.compile(pattern, re.MULTILINE)
    found = []
    begins = [0, *(index + 1 for index, char in enumerate(text) if char == "\n")]
    for number, begin in enumerate(begins, start=1):
        end = text.find("\n", begin)
        match = compiled.search(text, begin)
        if match is not None and match.start() <= (len(text) if end == -1 else end):
            found.append((number, match.start() - begin + 1))
    return found


def hits(
    text: str, pattern: str, window: int = matches.WINDOW, span: int = matches.SPAN
) -> list[tuple[int, int]]:
    matcher = Re2Patterns().compile(pattern, literal=False, ignore_case=False)
    found = matches.hits(text.encode(), matcher, lambda: False, window=window, span=span)
    return [(hit[0], hit[1]) for hit in found if hit is not None]


@settings(max_examples=300, deadline=None)
@given(
    st.text(alphabet="abc\n", max_size=120), st.sampled_from(PATTERNS), st.integers(1, 9), st.integers(1, 9)
)
def test_every_window_size_finds_the_lines_a_line_by_line_search_finds(text, pattern, window, span):
    assert hits(text, pattern, window, span) == reference(text, pattern)


def test_a_match_across_lines_is_reported_on_the_line_it_starts():
    assert hits("x\nfoo\nbar\n", "foo\\nbar") == [(2, 1)]


def test_a_column_counts_characters_not_bytes():
    assert hits("ééx\n", "x") == [(1, 3)]


def test_the_search_stops_when_time_is_up_and_says_so():
    matcher = Re2Patterns().compile("a", literal=False, ignore_case=False)

    found = list(matches.hits(b"a\na\n", matcher, lambda: True))

    assert found == [None]


@pytest.mark.parametrize("pattern", ["(a)\\1", "(?=a)", "(?<=a)b", "a++", "[a-z]{1,600}"])
def test_a_pattern_outside_re2_syntax_is_refused(pattern):
    from ports.patterns import PatternRefused

    with pytest.raises(PatternRefused):
        Re2Patterns().compile(pattern, literal=False, ignore_case=False)
