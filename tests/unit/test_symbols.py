"""The semantic validator's analysers on the sample world's own CK3 and Python files."""

from pathlib import Path

from domain.compliance.symbols import (
    FileSymbols,
    added,
    event_symbols,
    kind_of,
    localisation_symbols,
    python_symbols,
    script_symbols,
)
from tests.worlds import SAMPLE

GAME = SAMPLE / "game"


def text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def test_top_level_trait_definitions_are_the_symbols_of_a_traits_file():
    assert script_symbols(text(GAME / "common" / "traits" / "00_traits.txt")) == {"brave", "craven"}


def test_scripted_effects_are_named_by_their_top_level_keys_not_their_inner_ones():
    found = script_symbols(text(GAME / "common" / "scripted_effects" / "00_sample_effects.txt"))

    assert found == {"add_brave_effect", "remove_craven_effect"}


def test_an_events_file_gives_its_namespace_and_event_ids():
    assert event_symbols(text(GAME / "events" / "birth_events.txt")) == {"namespace:birth", "birth.0001"}


def test_localisation_keys_are_symbols_and_the_language_header_is_not():
    found = localisation_symbols(text(GAME / "localization" / "english" / "traits_l_english.yml"))

    assert found == {"trait_brave", "trait_craven"}


def test_module_level_functions_classes_and_names_are_python_symbols():
    source = (
        text(SAMPLE / "repo" / "src" / "greeting.py") + "\nclass Greeter:\n    inner = 1\nWORDS: list = []\n"
    )

    assert python_symbols(source) == {"greet", "Greeter", "WORDS"}


def test_a_symbol_is_new_only_when_the_baseline_lacked_it():
    before = text(GAME / "common" / "traits" / "00_traits.txt")

    found = added(
        "ROOT_GAME:/common/traits/00_traits.txt", "ck3-script", before, before + "\nzealous = {\n}\n"
    )

    assert found.added == ("zealous",)


def test_a_file_that_does_not_parse_is_reported_not_raised():
    found = added("ROOT_REPO:/a.py", "python", None, "def broken(:\n")

    assert (found.added, found.problem is not None) == ((), True)


def test_unbalanced_braces_make_a_script_file_unparsable():
    assert (
        added("x", "ck3-script", None, "brave = {\n").problem
        == "unparsable: line 1: an opening brace is never closed"
    )


def test_the_file_kind_comes_from_its_folders_and_suffix():
    assert [
        kind_of(("mod", "common", "traits", "t.txt")),
        kind_of(("events", "e.txt")),
        kind_of(("localization", "english", "a_l_english.yml")),
        kind_of(("src", "a.py")),
        kind_of(("README.md",)),
    ] == ["ck3-script", "ck3-events", "ck3-localisation", "python", None]


def test_a_path_of_no_analysers_kind_has_none_and_each_kind_needs_its_suffix_and_folder():
    assert [
        kind_of(()),
        kind_of(("common", "x.yml")),
        kind_of(("localization", "english", "x.txt")),
        kind_of(("data", "x_l_english.yml")),
        kind_of(("Mod", "LOCALISATION", "english", "X_L_ENGLISH.YML")),
        kind_of(("common", "x.py")),
    ] == [None, None, None, None, "ck3-localisation", "python"]


def test_every_symbol_of_a_new_file_is_new_and_nothing_is_said_of_a_known_baseline():
    assert added("ROOT_REPO:/a.py", "python", None, "def f():\n    pass\nB = 1\n") == FileSymbols(
        "ROOT_REPO:/a.py", "python", ("B", "f"), None
    )


def test_when_the_baseline_is_unknown_or_does_not_parse_every_symbol_counts_as_new():
    unknown = added("ROOT_REPO:/a.py", "python", "f = 1\n", "f = 1\ng = 2\n", known=False)
    broken = added("ROOT_REPO:/a.py", "python", "f = (\n", "f = 1\ng = 2\n")

    assert unknown == FileSymbols(
        "ROOT_REPO:/a.py",
        "python",
        ("g",),
        "its content before the work is unknown, so every symbol counts as new",
    )
    assert broken == FileSymbols("ROOT_REPO:/a.py", "python", ("f", "g"), None)


def test_a_file_that_does_not_parse_says_where_or_what_stopped_the_parser():
    def problem(source: str) -> FileSymbols:
        return added("ROOT_REPO:/a.py", "python", None, source)

    assert problem("a = 1\n\ndef broken(:\n") == FileSymbols(
        "ROOT_REPO:/a.py", "python", (), "unparsable: line 3: invalid syntax"
    )
    assert problem("x = " + "-" * 200_000 + "1\n").problem == "unparsable: line ?: MemoryError"


def test_a_byte_order_mark_before_python_source_is_no_syntax_error():
    assert python_symbols("\ufeffdef f():\n    pass\n") == {"f"}


def test_names_bound_in_every_branch_of_top_level_blocks_are_python_symbols():
    source = """
A = 1
if A:
    B = 2
else:
    C = 3
try:
    D = 4
except ValueError:
    E = 5
else:
    F = 6
finally:
    G = 7
for _ in []:
    H = 8
else:
    I = 9
while False:
    J = 10
else:
    K = 11
with open(__file__) as handle:
    L = 12
M, (N, O) = 1, (2, 3)
P: int = 1
Q += 1
def R():
    inner = 1
class S:
    inner = 1
"""

    assert python_symbols(source) == set("ABCDEFGHIJKLMNOPQRS")
