"""What fits in a reply is counted in the bytes the envelope's compact UTF-8 JSON takes (SPEC §16): a string
or a value costs exactly what json.dumps writes for it, and a window of lines holds the most leading lines
whose joined text fits (at least one, so a window always moves on)."""

import json

from hypothesis import given
from hypothesis import strategies as st

from domain.replies.budget import cost, rows_fitting, text_fitting

TEXT = st.text(st.characters(codec=None, exclude_categories=()), max_size=60)
"""Any text, lone surrogates, control characters and line separators included."""


def written(value: object) -> int:
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogatepass"))


@given(TEXT)
def test_a_string_costs_the_bytes_of_its_compact_json(text: str):
    assert cost(text) == written(text)


@given(
    st.recursive(
        st.none() | st.integers() | TEXT, lambda inner: st.lists(inner) | st.dictionaries(TEXT, inner)
    )
)
def test_any_value_costs_the_bytes_of_its_compact_json(value: object):
    assert cost(value) == written(value)


@given(st.lists(TEXT.map(lambda line: line + "\n"), max_size=30), st.integers(min_value=0, max_value=600))
def test_a_window_of_lines_holds_the_most_leading_lines_whose_joined_text_fits(lines: list[str], space: int):
    fits = [count for count in range(len(lines) + 1) if written("".join(lines[:count])) <= space]

    assert text_fitting(lines, space) == (max([1, *fits]) if lines else 0)


@given(
    st.lists(st.dictionaries(TEXT, TEXT, max_size=3) | TEXT, max_size=20),
    st.integers(min_value=0, max_value=400),
)
def test_a_page_of_rows_holds_the_most_leading_rows_that_fit_with_their_commas(
    rows: list[object], space: int
):
    fits = [count for count in range(len(rows) + 1) if sum(written(row) + 1 for row in rows[:count]) <= space]

    assert rows_fitting(rows, space) == (max([1, *fits]) if rows else 0)


@given(st.lists(TEXT, min_size=2, max_size=20))
def test_a_window_one_byte_short_of_its_last_row_or_line_leaves_it_out(texts: list[str]):
    rows = [{"name": text} for text in texts]
    needed = sum(written(row) + 1 for row in rows)
    lines = [text + "\n" for text in texts]
    joined = written("".join(lines))

    assert rows_fitting(rows, needed) == len(rows)
    assert rows_fitting(rows, needed - 1) == len(rows) - 1
    assert text_fitting(lines, joined) == len(lines)
    assert text_fitting(lines, joined - 1) == len(lines) - 1


@given(st.lists(TEXT, max_size=30), st.integers(min_value=0, max_value=600))
def test_a_page_of_names_holds_the_most_leading_names_that_fit_with_their_commas(
    names: list[str], space: int
):
    fits = [count for count in range(len(names) + 1) if written(names[:count]) - 1 <= space]

    assert rows_fitting(names, space) == (max([1, *fits]) if names else 0)
