"""The one CK3 parser: script and localisation, on hand-written cases, generated files and the sample
world's own files; a broken file yields what parsed and findings with lines, never an exception."""

import re
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from domain.ck3 import definitions, localisation, script
from domain.ck3 import parse_findings as pf
from tests.worlds import SAMPLE

SCRIPT_TEXT = st.text(alphabet=st.sampled_from(list('ab_1.:@[]{}={}<>!?"#\n\t \r\ufeff\x00é')), max_size=400)
KEYS = st.from_regex(r"[a-z_][a-z0-9_.]{0,8}", fullmatch=True).filter(lambda k: k != "namespace")


def codes(found: tuple[pf.ParseFinding, ...]) -> list[str]:
    return [finding.code for finding in found]


def test_top_level_keys_operators_tagged_blocks_and_variables_are_statements():
    parsed = script.parse(
        "\ufeff@cost = 5\r\nbrave = {\r\n\tcolor = hsv { 0.5 0.5 0.5 }\r\n}\r\n"
        'x >= 3\nname = "Lady # not a comment"  # a comment\nwindow { }\n'
    )

    assert [(s.key, s.op, s.value, s.line) for s in parsed.top()] == [
        ("@cost", "=", "5", 1),
        ("brave", "=", None, 2),
        ("x", ">=", "3", 5),
        ("name", "=", "Lady # not a comment", 6),
        ("window", "", None, 7),
    ]
    assert parsed.findings == ()


def test_a_missing_closing_brace_keeps_what_parsed_and_names_the_line_of_the_block():
    parsed = script.parse("good = { a = 1 }\nbroken = {\n\tb = 2\n")

    assert [s.key for s in parsed.top()] == ["good", "broken"]
    assert [(f.code, f.line) for f in parsed.findings] == [(pf.NEVER_CLOSED, 2)]


def test_a_stray_closing_brace_and_an_open_string_are_findings_with_their_lines():
    parsed = script.parse('a = 1\n}\nb = "open\nc = 2\n')

    assert [(f.code, f.line) for f in parsed.findings] == [
        (pf.NOT_CLOSED_BY_ANYTHING, 2),
        (pf.OPEN_STRING, 3),
    ]
    assert [s.key for s in parsed.top()] == ["a", "b", "c"]


def test_fifty_thousand_open_braces_are_findings_not_an_error():
    parsed = script.parse("deep = " + "{ a = " * 50_000 + "1" + " }" * 49_000)

    assert codes(parsed.findings) == [pf.LIMIT, pf.NEVER_CLOSED]
    assert [s.key for s in parsed.top()] == ["deep"]


def test_a_key_starting_a_line_inside_a_block_is_suspected_of_a_missing_brace():
    parsed = script.parse("first = {\n\ta = 1\nsecond = {\n\tb = 2\n}\n")

    assert (pf.BRACE_SUSPECT, 3) in [(f.code, f.line) for f in parsed.findings]


def test_the_words_of_a_file_are_kept_with_their_first_line_for_mentions():
    parsed = script.parse("a = {\n\thas_trait = brave\n\tadd_trait = trait:craven\n}\n", words=True)

    assert (parsed.words["brave"], parsed.words["trait:craven"]) == (2, 3)


def test_a_words_first_line_is_its_first_place_as_a_word_never_inside_a_longer_word_or_a_comment():
    text = "a = {\n\t# brave here\n\thas_trait = brave_x\n\tb = brave\n}\nc = { d = brave_x }\n"

    assert script.parse(text, words=True).words == {"has_trait": 3, "brave_x": 3, "b": 4, "brave": 4, "d": 6}


def test_the_words_of_two_blocks_on_one_line_stay_two_words():
    assert script.parse("a={x}b={y}\nc = { z }\n", words=True).words == {"x": 1, "y": 1, "z": 2}


def test_a_block_nested_deeper_than_one_search_reads_is_still_read_to_its_closing_brace():
    deep = "a = { " + "b = { " * 40 + "brave = yes " + "} " * 40 + "}\nc = { d = 1 }\n"

    parsed = script.parse(deep, words=True)

    assert ([s.key for s in parsed.top()], parsed.findings, parsed.words["brave"]) == (["a", "c"], (), 1)


@settings(max_examples=400, deadline=None)
@given(SCRIPT_TEXT)
def test_a_skimmed_block_matched_whole_reads_as_it_does_a_brace_at_a_time(text):
    whole = script.parse(text, keep=1, words=True)
    original = script._CLOSED
    script._CLOSED = re.compile(r"(?!)")  # never matches: every block read a brace at a time
    try:
        braced = script.parse(text, keep=1, words=True)
    finally:
        script._CLOSED = original

    assert (whole.statements, whole.words, whole.findings) == (
        braced.statements,
        braced.words,
        braced.findings,
    )


@settings(max_examples=300, deadline=None)
@given(SCRIPT_TEXT)
def test_any_text_parses_without_raising_and_findings_name_lines_of_the_file(text):
    parsed = script.parse(text, keep=2, words=True)

    lines = text.count("\n") + 1
    assert all(1 <= finding.line <= lines for finding in parsed.findings)
    assert all(1 <= statement.line <= lines for statement in parsed.statements)


@st.composite
def well_formed(draw):
    """A script of top-level definitions with nested blocks and values, and its top-level keys."""
    keys = draw(st.lists(KEYS, min_size=1, max_size=6))
    body = draw(st.lists(st.tuples(KEYS, st.sampled_from(["=", "<=", ">", "?="]), KEYS), max_size=4))
    inner = " ".join(f"{k} {op} {v}" for k, op, v in body)
    lines = [f"{key} = {{\n\t{inner}\n\tnested = {{ {inner} }}\n}}" for key in keys]
    return "\r\n".join(lines) if draw(st.booleans()) else "\n".join(lines), keys


@settings(max_examples=200, deadline=None)
@given(well_formed())
def test_a_well_formed_file_gives_exactly_its_top_level_keys_in_order_and_no_finding(case):
    text, keys = case

    parsed = script.parse(text)

    assert ([s.key for s in parsed.top()], parsed.findings) == (keys, ())


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.tuples(KEYS, st.text(alphabet="ab $[]é.", max_size=12)), max_size=8, unique_by=lambda e: e[0])
)
def test_generated_localisation_entries_read_back_with_their_values(entries):
    text = "\ufeffl_english:\n" + "".join(f' {key}:0 "{value}"\n' for key, value in entries)

    parsed = localisation.parse(text)

    assert (parsed.language, [(e.key, e.value) for e in parsed.entries], parsed.findings) == (
        "english",
        entries,
        (),
    )


def test_a_localisation_file_without_header_and_with_a_bad_line_yields_its_entries_and_findings():
    parsed = localisation.parse(' a:0 "x"\n not an entry\n a:1 "y"\n')

    assert [e.key for e in parsed.entries] == ["a", "a"]
    assert [(f.code, f.line) for f in parsed.findings] == [
        (pf.HEADER, 1),
        (pf.NOT_AN_ENTRY, 2),
        (pf.DUPLICATE, 3),
    ]


def test_every_ck3_file_of_the_sample_world_parses_without_a_finding():
    read = 0
    for path in sorted(SAMPLE.rglob("*")):
        game = definitions.game_path(path.relative_to(SAMPLE).parts) if path.is_file() else None
        if game is None or definitions.file_kind(game) is None:
            continue
        content = definitions.read(game, path.read_bytes().decode("utf-8"))
        assert content is not None, path
        assert content.findings == (), path
        read += 1
    assert read >= 8


def test_the_sample_world_defines_its_traits_events_and_localisation_by_kind():
    def defined(relative: str) -> set[tuple[str, str]]:
        path = SAMPLE / relative
        content = definitions.read(definitions.game_path(Path(relative).parts) or (), path.read_text("utf-8"))
        return {(d.kind, d.key) for d in content.definitions} if content else set()

    assert defined("game/common/traits/00_traits.txt") == {("traits", "brave"), ("traits", "craven")}
    assert defined("game/events/birth_events.txt") == {("namespace", "birth"), ("event", "birth.0001")}
    assert ("localisation", "trait_brave") in defined("game/localization/english/traits_l_english.yml")


def test_what_a_file_defines_is_the_same_read_with_or_without_its_words():
    compared = 0
    for path in sorted(SAMPLE.rglob("*")):
        game = definitions.game_path(path.relative_to(SAMPLE).parts) if path.is_file() else None
        content = definitions.read(game, path.read_bytes().decode("utf-8")) if game else None
        if game is None or content is None:
            continue
        text = path.read_bytes().decode("utf-8")
        expected = () if content.kind == definitions.LOCALISATION else content.definitions
        assert definitions.defined(game, text) == expected, path
        compared += bool(expected)
    assert compared >= 4


def test_a_value_awaited_across_a_comment_or_a_line_is_the_next_word_and_a_value_before_a_brace_tags_it():
    text = (
        'x = {\n\ta = b = c\n\td =\ne = { f = g }\n\th = "i" # note\n\t{ j }\n\tk = hsv { 1 }\n'
        "\tl = # m\nn = o\n\tp = # q\n\tr = { s }\n}\n"
    )

    parsed = script.parse(text, keep=3, words=True)

    assert [(s.key, s.op, s.value, s.line, s.depth, s.tagged) for s in parsed.statements] == [
        ("x", "=", None, 1, 0, False),
        ("a", "=", "b", 2, 1, False),
        ("c", "", "", 2, 1, False),
        ("d", "=", "e", 3, 1, False),
        ("f", "=", "g", 4, 2, False),
        ("h", "=", "i", 5, 1, True),
        ("j", "", "", 6, 2, False),
        ("k", "=", "hsv", 7, 1, True),
        ("1", "", "", 7, 2, False),
        ("l", "=", "n", 8, 1, False),
        ("o", "", "", 9, 1, False),
        ("p", "=", "r", 10, 1, False),
        ("s", "", "", 11, 2, False),
    ]
    assert [(f.code, f.line) for f in parsed.findings] == [(pf.NO_VALUE, n) for n in (2, 4, 9, 11)]
    assert (parsed.words["c"], parsed.words["e"], parsed.words["n"], parsed.words["o"]) == (2, 4, 9, 9)
