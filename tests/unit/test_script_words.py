"""A skimmed block's words (domain.ck3.script_words.first_lines): every `[A-Za-z_][\\w.:\\-]*` outside
comments, each with the line of its first place, in the order of those places, whether the text is
ASCII (cut into runs by bytes' translate and split) or not (the regular expression): both equal a plain
search, match by match."""

import re

from hypothesis import example, given, settings
from hypothesis import strategies as st

from domain.ck3.script_words import first_lines

TEXT = st.text(alphabet=st.sampled_from(list("ab_Z09.:-# \t\n\r\"{}=\x01é$[]@|'")), max_size=80)
WORD = re.compile(r"[A-Za-z_][\w.:\-]*")


def searched(text: str) -> list[tuple[str, int]]:
    """The words of `text`, one match at a time: the rule first_lines keeps, written plainly."""
    plain = re.sub(r"#[^\n]*", "", text)
    found: dict[str, int] = {}
    for match in WORD.finditer(plain):
        found.setdefault(match.group(), plain.count("\n", 0, match.start()) + 1)
    return list(found.items())


@settings(max_examples=500, deadline=None)
@given(TEXT)
@example("1abc 9.x -y :z\nabc x")
@example("a\x01b\nc #d e\n\x01f")
@example("9.5 1e3 2_ ._a")
def test_the_words_of_a_text_are_its_matches_each_at_its_first_line_in_order(text: str):
    assert first_lines(text, [(0, len(text), 1)]) == searched(text)


@settings(max_examples=200, deadline=None)
@given(TEXT, TEXT)
def test_blocks_are_read_together_their_words_at_their_lines_in_the_file(first: str, second: str):
    text = f"a = {{{first}}}\nb = {{{second}}}\n"
    start = len("a = {") + len(first) + len("}\nb = {")
    spans = [(5, 5 + len(first), 1), (start, start + len(second), 2 + first.count("\n"))]

    assert first_lines(text, spans) == searched(" " + first + "\n" + second)
