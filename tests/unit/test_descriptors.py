"""Mod descriptors as the launcher reads them, and the game's rules for files an agent writes."""

from domain.ck3.descriptors import missing, parse
from domain.ck3.game_files import BOM, adjusted, descriptor_problems, game_path

BETTER_TRAITS = """version="1.2"
tags={
\t"Gameplay"
}
name="Better Traits"
replace_path="common/traits"
supported_version="1.12.*"
remote_file_id="2217000001"
"""


def test_a_descriptor_gives_its_fields_and_lists():
    found = parse(BETTER_TRAITS)

    assert (found.fields["name"], found.lists["tags"], found.lists["replace_path"]) == (
        "Better Traits",
        ("Gameplay",),
        ("common/traits",),
    )
    assert found.problems == ()


def test_an_unclosed_list_is_a_problem_on_its_line():
    assert parse('name="x"\ntags={\n"a"\n').problems == ((2, "a `{` is never closed"),)


def test_an_unterminated_string_is_a_problem():
    assert parse('name="x\n').problems[0] == (1, "a string is not closed on its line")


def test_a_descriptor_without_supported_version_misses_it():
    assert missing(parse('name="x"\nversion="1"\n'), registry=False) == ["supported_version"]


def test_a_registry_file_needs_a_path():
    assert missing(parse('name="x"\n'), registry=True) == ["path"]


def test_a_descriptor_write_that_drops_the_name_is_refused():
    assert descriptor_problems(
        "ROOT_STEAM", ("2217000001", "descriptor.mod"), b'supported_version="1"\n'
    ) == ["name is required"]


def test_a_file_that_is_no_descriptor_is_not_checked():
    assert descriptor_problems("ROOT_STEAM", ("2217000001", "common", "descriptor.mod"), b"{") is None


def test_game_paths_are_below_vanilla_and_below_mod_folders():
    assert game_path("ROOT_STEAM", ("2217000001", "common", "x.txt")) == ("common", "x.txt")
    assert game_path("ROOT_USER_DOCS", ("mod", "LocalFix", "events", "e.txt")) == ("events", "e.txt")
    assert game_path("ROOT_REPO", ("common", "x.txt")) is None


def test_localisation_gets_a_byte_order_mark_and_the_reply_says_so():
    data, notes = adjusted(
        ("localization", "english", "a_l_english.yml"), b"l_english:\n", None, folder_uses_crlf=False
    )

    assert (data, notes) == (BOM + b"l_english:\n", ["bom-added"])


def test_a_replaced_file_keeps_its_crlf_line_endings():
    data, notes = adjusted(("events", "e.txt"), b"a\nb\n", BOM + b"x\r\ny\r\n", folder_uses_crlf=False)

    assert (data, notes) == (BOM + b"a\r\nb\r\n", ["bom-kept", "crlf-kept"])


def test_a_new_script_file_gets_lf_unless_its_folder_uses_crlf():
    lf, _ = adjusted(("common", "traits", "t.txt"), b"a\r\nb\r\n", None, folder_uses_crlf=False)
    crlf, _ = adjusted(("common", "traits", "t.txt"), b"a\nb\n", None, folder_uses_crlf=True)

    assert (lf, crlf) == (BOM + b"a\nb\n", BOM + b"a\r\nb\r\n")
