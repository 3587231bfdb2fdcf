"""ck3raven's own CK3 checks, finding by finding: which files each rule reads, the line it names and what it
says (a close that is refused shows these findings to the agent, which mends the file by them)."""

import pytest

from domain.compliance.ck3_checks import LANGUAGES, checks
from ports.linter import Finding

BOM = b"\xef\xbb\xbf"
NOT_UTF8 = Finding("CK3-UTF8", "A", 1, "the file is not UTF-8 text")
UNCLOSED = Finding("CK3-BRACES", "A", 1, "line 1: an opening brace is never closed")
SCRIPT_BOM = Finding("CK3-BOM", "A", 1, "a script file needs the UTF-8 byte-order mark")
ON_ACTIONS = "the game never reads common/on_actions/: its folder is common/on_action/"
HEADER = Finding("CK3-LOCHEAD", "A", 1, "the first entry must be the header l_english:")


def found(path: str, data: bytes) -> list[Finding]:
    return checks("A", tuple(path.split("/")), data)


def quote(line: int) -> Finding:
    return Finding("CK3-LOCQUOTE", "A", line, 'an inner " must be written \\"')


@pytest.mark.parametrize(
    "path", ["src/a.py", "README.md", "notes/x.mod", "gfx/x.txt", "common/x.yml", "localization/x.txt", ""]
)
def test_files_of_no_ck3_kind_are_not_checked_however_broken(path: str):
    assert found(path, b"\xff{") == []
    assert checks("A", (), b"\xff{") == []


@pytest.mark.parametrize(
    "path", ["mod/x.mod", "descriptor.mod", "mods/Mine/descriptor.mod", "common/x.txt", "events/x.txt"]
)
def test_a_descriptor_registry_file_or_script_that_is_not_utf8_is_said_so_once(path: str):
    assert found(path, BOM + b"a = {\xff\n") == [NOT_UTF8]


def test_a_registry_file_needs_a_path_and_a_descriptor_a_supported_version_each_said_on_line_one():
    assert found("mod/x.mod", b'name = "a"\n') == [Finding("CK3-DESC", "A", 1, "path is required")]
    assert found("mods/x/descriptor.mod", b'path = "a"\n') == [
        Finding("CK3-DESC", "A", 1, "name is required"),
        Finding("CK3-DESC", "A", 1, "supported_version is required"),
    ]


def test_what_a_descriptor_parser_could_not_read_is_a_finding_on_its_own_line():
    text = b'name = "a"\nsupported_version = "1.*"\nstray\n'

    assert found("descriptor.mod", text) == [
        Finding("CK3-DESC", "A", 3, "expected `key = value`, found 'stray'")
    ]


def test_a_descriptors_findings_add_to_each_other_and_to_its_folders():
    assert found("localisation/descriptor.mod", b'stray\nname = "a"\n') == [
        Finding("CK3-FOLDER", "A", 1, "the game never reads localisation/: its folder is localization/"),
        Finding("CK3-DESC", "A", 1, "expected `key = value`, found 'stray'"),
        Finding("CK3-DESC", "A", 1, "supported_version is required"),
    ]


@pytest.mark.parametrize("path", ["common/traits/x.txt", "events/x.txt", "mods/Mine/events/x.txt"])
def test_script_and_event_files_whose_braces_do_not_balance_are_found(path: str):
    assert found(path, BOM + b"a = {\n") == [UNCLOSED]
    assert found(path, BOM + b"a = {\n}\n") == []


def test_a_localisation_file_is_not_read_for_braces():
    assert found("localization/english/x_l_english.yml", BOM + b'l_english:\n k:0 "{"\n') == []


def test_a_misspelt_folder_anywhere_in_the_path_and_in_any_case_is_found_with_the_one_meant():
    localisation = "the game never reads localisation/: its folder is localization/"

    assert found("Mod/Common/On_Actions/x.txt", BOM + b"a = {}\n") == [
        Finding("CK3-FOLDER", "A", 1, ON_ACTIONS)
    ]
    assert found("common/on_actions/x.txt", BOM + b"a = {}\n") == [Finding("CK3-FOLDER", "A", 1, ON_ACTIONS)]
    assert found("mod/localisation/english/x_l_english.yml", b"l_english:\n") == [
        Finding("CK3-FOLDER", "A", 1, localisation)
    ]


def test_a_folder_that_only_shares_a_misspelt_name_is_no_finding():
    assert found("common/on_action/x.txt", BOM + b"a = {}\n") == []
    assert found("events/on_actions/x.txt", BOM + b"a = {}\n") == []
    assert found("common/traits/localisation.txt", BOM + b"a = {}\n") == []


def test_findings_come_folder_first_then_the_mark_then_what_the_text_shows():
    assert found("Mod/common/on_actions/x.txt", b"a = {") == [
        Finding("CK3-FOLDER", "A", 1, ON_ACTIONS),
        SCRIPT_BOM,
        UNCLOSED,
    ]
    assert found("localisation/english/x_l_english.yml", b"\xff")[-1] == NOT_UTF8


@pytest.mark.parametrize(
    ("path", "data", "expected"),
    [
        ("common/traits/x.txt", b"a = {}\n", [SCRIPT_BOM]),
        ("mods/Mine/COMMON/traits/x.txt", b"a = {}\n", [SCRIPT_BOM]),
        ("events/x.txt", b"a = {}\n", [SCRIPT_BOM]),
        (
            "localization/english/x_l_english.yml",
            b"l_english:\n",
            [Finding("CK3-BOM", "A", 1, "a localisation file needs the UTF-8 byte-order mark")],
        ),
        ("common/traits/x.txt", BOM + b"a = {}\n", []),
        ("notgame/traits/x.txt", b"a = {}\n", []),
    ],
)
def test_a_file_whose_kind_needs_the_byte_order_mark_is_found_without_it(
    path: str, data: bytes, expected: list[Finding]
):
    assert [f for f in found(path, data) if f.rule == "CK3-BOM"] == expected


def test_a_localisation_file_named_for_no_language_is_one_finding_listing_the_languages():
    message = f"the name must end in _l_<language>.yml, for one of {', '.join(LANGUAGES)}"

    assert found("localization/english/x.yml", BOM + b'k:0 "a"b"\n') == [
        Finding("CK3-LOCNAME", "A", 1, message)
    ]
    assert "english, french, german, spanish, russian, korean, simp_chinese, braz_por" in message


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_file_named_for_each_language_the_game_reads_is_read_for_it(language: str):
    text = f'l_{language}:\n key:0 "v"\n'.encode()

    assert found(f"localization/{language}/x_l_{language}.yml", BOM + text) == []


def test_a_file_for_one_language_in_another_languages_folder_is_found_in_any_case():
    text = BOM + b'l_english:\n key:0 "v"\n'

    assert found("localization/French/X_L_ENGLISH.YML", text) == [
        Finding("CK3-LOCNAME", "A", 1, "a file for english in the french folder")
    ]
    assert found("localization/replace/english/x_l_english.yml", text) == []


def test_the_first_entry_past_comments_and_blank_lines_must_be_the_header_of_its_language():
    path = "localization/english/x_l_english.yml"

    assert found(path, BOM + b"# about\n\n  # more\nl_english:\n") == []
    assert found(path, BOM + b"l_english: # the header\n") == []
    assert found(path, BOM + b'# about\nl_french:\n key:0 "v"\n') == [
        Finding("CK3-LOCHEAD", "A", 2, "the first entry must be the header l_english:")
    ]
    assert found(path, BOM + b'key:0 "v"\nl_english:\n') == [HEADER]
    assert found(path, BOM + b'l_english: "v"\n') == [HEADER]
    assert found(path, b"\xef\xbb\xbf\xef\xbb\xbfl_english:\n") == [HEADER]


def test_an_inner_quote_not_escaped_is_found_on_its_line_and_an_escaped_one_is_not():
    path = "localization/english/x_l_english.yml"
    text = b'l_english:\n a:0 "fine"\n b:0 "say \\"hi\\""\n c:0 "say "hi""\n d:0 "x"y" # c\n'

    assert found(path, BOM + text) == [quote(4), quote(5)]


def test_a_value_with_one_quote_or_text_outside_its_quotes_or_a_commented_line_has_no_inner_quote():
    path = "localization/english/x_l_english.yml"
    text = b'l_english:\n a:0 "open\n # b:0 "x"y"\n c:0 ""\n d:0 """\n e:0 before "ok"\n f:0 "ok" # said so\n'

    assert found(path, BOM + text) == [quote(5)]
