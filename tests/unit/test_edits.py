"""How edits match and what they keep (domain.edits)."""

from hypothesis import given
from hypothesis import strategies as st

from domain.edits import Missed, Replacement, apply, diff_lines


def test_replacements_apply_in_order_each_to_the_text_the_one_before_left():
    assert apply("a", (Replacement("a", "b"), Replacement("b", "c"))) == ("c", ["exact", "exact"])


def test_an_ambiguous_old_text_is_a_miss_counting_its_occurrences():
    assert apply("x x x", (Replacement("x", "y"),)) == Missed(1, 3)


def test_trailing_blanks_are_disregarded_only_when_the_exact_text_is_missing():
    assert apply("key = 1 \t\nnext\n", (Replacement("key = 1\nnext", "k = 2\nn"),)) == (
        "k = 2\nn\n",
        ["tolerant"],
    )


def test_a_tolerant_match_that_is_ambiguous_is_a_miss():
    assert apply("a \nb\na\t\nb\n", (Replacement("a\nb", "c"),)) == Missed(1, 2)


def test_a_file_with_mixed_line_endings_takes_the_new_text_as_given():
    assert apply("a\r\nb\nc\n", (Replacement("b", "x\ny"),)) == ("a\r\nx\ny\nc\n", ["exact"])


def test_the_diff_of_a_change_names_the_address_and_the_changed_lines():
    diff = "".join(diff_lines("ROOT_REPO:/a.py", "x\ny\n", "x\nz\n"))

    assert diff.splitlines()[:2] == ["--- ROOT_REPO:/a.py", "+++ ROOT_REPO:/a.py"]
    assert ("-y" in diff.splitlines(), "+z" in diff.splitlines()) == (True, True)


lines = st.lists(st.text(alphabet="ab =\t", max_size=6), min_size=1, max_size=6)


@given(lines, st.sampled_from(["\n", "\r\n"]))
def test_any_uniform_crlf_or_lf_file_keeps_its_ending_after_a_tolerant_edit(body, ending):
    text = "".join(f"{line}{ending}" for line in ["start", *body, "end"])

    result = apply(text, (Replacement("start\n", "begin\n"),))

    assert not isinstance(result, Missed)
    assert result[0] == text.replace("start", "begin", 1)


def test_a_tolerant_match_never_ends_inside_a_line():
    assert apply("max_level = 10\n", (Replacement("max_level = 1 ", "max_level = 2"),)) == Missed(1, 0)


def test_a_tolerant_match_never_starts_inside_a_line():
    assert apply("x = 1\nfoo\n", (Replacement("  \nfoo", "bar"),)) == Missed(1, 0)


def test_a_tolerant_match_finds_the_first_line_of_a_file_that_starts_with_a_byte_order_mark():
    text = "\ufeffalpha\r\nbeta\r\n"

    assert apply(text, (Replacement("alpha\nbeta\n", "gamma\n"),)) == ("\ufeffgamma\r\n", ["tolerant"])
