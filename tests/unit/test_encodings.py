"""The table of what the game and ck3-tiger expect of each kind of file (domain.ck3.encodings), and the
write rules that apply it: a kind that requires a byte-order mark gets one, reported in `adjusted`."""

import pytest

from domain.ck3.encodings import DESCRIPTOR, GUI, LOCALISATION, OPTIONAL, REQUIRED, SCRIPT, TABLE, expectation
from domain.ck3.game_files import BOM, adjusted


def test_the_table_names_encoding_bom_and_line_endings_with_sources_for_each_kind():
    kinds = {row.kind: (row.encoding, row.bom) for row in TABLE}

    assert kinds == {
        "script": ("utf-8", REQUIRED),
        "gui": ("utf-8", OPTIONAL),
        "localisation": ("utf-8", REQUIRED),
        "descriptor": ("utf-8", OPTIONAL),
    }
    assert all(row.sources and "lf" in row.line_endings for row in TABLE)


@pytest.mark.parametrize(
    ("path", "kind"),
    [
        (("common", "traits", "my_traits.txt"), SCRIPT),
        (("events", "dlc", "ep3", "ep3_events.txt"), SCRIPT),
        (("history", "titles", "k_x.txt"), SCRIPT),
        (("gui", "window_x.gui"), GUI),
        (("localization", "english", "x_l_english.yml"), LOCALISATION),
        (("descriptor.mod",), DESCRIPTOR),
        (("Events", "X.TXT"), SCRIPT),
        (("gfx", "models", "x.txt"), None),
        (("common", "x.yml"), None),
    ],
)
def test_each_file_is_of_the_kind_its_folder_and_name_say(path, kind):
    assert expectation(path) is kind


@pytest.mark.parametrize(
    "path", [("events", "my_events.txt"), ("common", "traits", "t.txt"), ("history", "titles", "k.txt")]
)
def test_a_new_script_file_gets_the_byte_order_mark_the_table_requires(path):
    data, notes = adjusted(path, b"namespace = x\n", None, folder_uses_crlf=False)

    assert (data, notes) == (BOM + b"namespace = x\n", ["bom-added"])


def test_an_existing_script_file_without_a_mark_gets_one_too():
    data, notes = adjusted(("events", "e.txt"), b"a\n", b"old\n", folder_uses_crlf=False)

    assert (data, notes) == (BOM + b"a\n", ["bom-added"])


def test_a_new_gui_file_is_written_as_given():
    assert adjusted(("gui", "w.gui"), b"types x {}\n", None, folder_uses_crlf=False) == (b"types x {}\n", [])


def test_a_new_descriptor_never_gets_a_byte_order_mark():
    data, notes = adjusted(("descriptor.mod",), b'name="x"\n', None, folder_uses_crlf=False)

    assert (data, notes) == (b'name="x"\n', [])


def test_a_file_of_no_kind_in_the_table_is_left_as_it_is():
    assert adjusted(("gfx", "x.txt"), b"a\r\n", None, folder_uses_crlf=False) == (b"a\r\n", [])


def test_a_new_localisation_file_follows_its_folders_crlf():
    data, notes = adjusted(
        ("localization", "english", "a_l_english.yml"), b"l_english:\n", None, folder_uses_crlf=True
    )

    assert (data, notes) == (BOM + b"l_english:\r\n", ["crlf-like-folder", "bom-added"])
