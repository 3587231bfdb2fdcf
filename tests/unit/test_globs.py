"""Glob matching: names at any depth, paths with `**`, sets, case, and no pattern that can stall a call."""

import pytest

from domain.globs import compile_glob


@pytest.mark.parametrize(
    ("pattern", "parts", "expected"),
    [
        ("**/*_l_english.yml", ("localization", "english", "a_l_english.yml"), True),
        ("*.txt", ("common", "traits", "t.txt"), True),
        ("common/**/*.txt", ("common", "t.txt"), True),
        ("common/**/*.txt", ("events", "t.txt"), False),
        ("[!a]*", ("a",), False),
        ("[a-c]x", ("bx",), True),
        ("a*b*c*d", ("aXbYcZ",), False),
        ("x.y", ("xzy",), False),
    ],
)
def test_a_glob_matches_names_and_paths_as_documented(pattern, parts, expected):
    assert compile_glob(pattern).matches(parts) is expected


@pytest.mark.parametrize("pattern", ["[z-a]", "a[b-a]", "[!]", "[", "a[", "[]]"])
def test_a_malformed_set_matches_or_not_but_never_raises(pattern):
    assert compile_glob(pattern).matches(("ab",)) in {True, False}


def test_a_pattern_of_many_stars_against_a_long_name_answers_at_once():
    assert compile_glob("*?" * 12 + "*!").matches(("a" * 200,)) is False


def test_many_stars_still_match_what_they_should():
    assert compile_glob("*a*b*c*d*").matches(("xxaxxbxxcxxdxx",)) is True


def test_case_is_exact_unless_asked():
    assert (
        compile_glob("FOO*").matches(("foo",)),
        compile_glob("FOO*", ignore_case=True).matches(("foo",)),
    ) == (
        False,
        True,
    )


@pytest.mark.parametrize(
    "pattern", ["*.yml", "**/*_l_english.yml", "a?c*", "[!x]*.txt", "***a*b*c", "x/*.txt"]
)
@pytest.mark.parametrize("name", ["a.yml", "x_l_english.yml", "abc", "y.txt", "x.txt", "aXbYc", "A.YML"])
def test_a_name_test_answers_as_the_whole_path_test_does(pattern: str, name: str):
    glob = compile_glob(pattern)
    named = glob.name_matcher()
    if named is None:
        assert "/" in pattern.removeprefix("**/")  # only a pattern of a path has no name test
        return

    assert bool(named(name)) is glob.matches(("common", "deep", name))
    assert compile_glob(pattern, ignore_case=True).name_matcher() is None  # case folding needs the path test
