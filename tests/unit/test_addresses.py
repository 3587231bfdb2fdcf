"""The address grammar rejects, never repairs (SPEC §3; SECURITY_CASES A)."""

import pytest

from domain.addresses import Parsed, parse, parsed_or_none
from domain.replies.builder import Reply
from domain.replies.refusal import Refused

HOME = "ROOT_REPO"


def refused(text: str) -> Reply:
    with pytest.raises(Refused) as raised:
        parse(text, HOME)
    assert parsed_or_none(text, HOME) is None
    return raised.value.reply


def accepted(text: str | None) -> Parsed:
    result = parse(text, HOME)
    assert parsed_or_none(text, HOME) == result
    return result


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "ROOT_GAME:/common/traits/00_traits.txt",
            Parsed("ROOT_GAME", None, ("common", "traits", "00_traits.txt")),
        ),
        ("ROOT_GAME:/", Parsed("ROOT_GAME", None, ())),
        ("ROOT_GAME:/common/", Parsed("ROOT_GAME", None, ("common",))),
        ("mod:Better Traits:/common", Parsed(None, "Better Traits", ("common",))),
        ("mod:2217000001:/", Parsed(None, "2217000001", ())),
        ("src/server.py", Parsed(HOME, None, ("src", "server.py"))),
        ("", Parsed(HOME, None, ())),
        (None, Parsed(HOME, None, ())),
        ("ROOT_REPO:/a%2e%2e/x", Parsed("ROOT_REPO", None, ("a%2e%2e", "x"))),
        ("ROOT_REPO:/café.txt", Parsed("ROOT_REPO", None, ("café.txt",))),
    ],
)
def test_valid_forms_parse_to_root_mod_and_segments(text: str | None, expected: Parsed):
    assert accepted(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "ROOT_REPO:/../x",
        "ROOT_REPO:/src/../../etc/passwd",
        "ROOT_REPO:/src/..",
        "ROOT_REPO:/a/b/../../..",
        "ROOT_REPO:/src/../README.md",
        "ROOT_REPO:/./src/./x",
        "..",
        "../x",
        "./x",
    ],
)
def test_dot_and_dot_dot_segments_are_refused(text: str):
    assert refused(text).code == "WA-RES-I-003"


@pytest.mark.parametrize("text", ["ROOT_REPO://src", "ROOT_REPO:/src///x.py", "ROOT_REPO:/src//", "a//b"])
def test_empty_segments_are_refused_not_collapsed(text: str):
    assert refused(text).code == "WA-RES-I-011"


@pytest.mark.parametrize(
    "text",
    [
        "/etc/passwd",
        "C:/Windows/win.ini",
        "c:foo",
        "file:///etc/passwd",
        "~/.ssh/id_rsa",
        "$HOME/x",
        "//host/share/x",
        "/",
        "FILE:x",
        "${HOME}/x",
        "%USERPROFILE%/x",
    ],
)
def test_host_paths_are_refused(text: str):
    assert refused(text).code == "WA-RES-I-002"


@pytest.mark.parametrize(
    "text",
    [
        "C:\\Windows\\win.ini",
        "..\\..",
        "ROOT_REPO:/src\\..\\..\\secret",
        "ROOT_REPO:/a\\b",
        "\\\\host\\share\\x",
        "\\\\?\\C:\\x",
        "\\\\.\\C:\\",
        "\\??\\C:\\x",
        "ROOT_REPO:/..\\/x",
        "ROOT_REPO:/\\..",
    ],
)
def test_backslashes_are_refused(text: str):
    assert refused(text).code == "WA-RES-I-004"


@pytest.mark.parametrize(
    "text",
    [
        "ROOT_REPO:/C:/Windows",
        "ROOT_REPO:/C:foo",
        "ROOT_REPO:/1:/x",
        "ROOT_REPO:/file.txt:evil",
        "ROOT_REPO:/file.txt::$DATA",
        "ROOT_REPO:/.git::$INDEX_ALLOCATION/config",
        "a:b/c:d",
    ],
)
def test_a_colon_inside_the_path_part_is_refused(text: str):
    assert refused(text).code in {"WA-RES-I-004", "WA-RES-I-002"}


@pytest.mark.parametrize(
    "char",
    [
        "\x00",
        "\n",
        "\r",
        "\t",
        "\x7f",
        "\x85",
        "\u202e",
        "\u200b",
        "\u200c",
        "\u200d",
        "\ufeff",
        "\u2066",
        "\u2067",
        "\u2068",
        "\u2069",
        "\u2028",
    ],
)
def test_control_format_and_bidi_characters_are_refused(char: str):
    reply = refused(f"ROOT_REPO:/a{char}b.txt")

    assert reply.code == "WA-RES-I-004"
    assert reply.data["character"] == f"U+{ord(char):04X}"


@pytest.mark.parametrize("char", ["\uff0e", "\uff0f", "\u2025", "\u2215", "\u2044", "\u29f8", "\uff3c"])
def test_look_alike_separators_and_dots_are_refused(char: str):
    assert refused(f"ROOT_REPO:/{char}{char}/x").code == "WA-RES-I-004"


def test_text_that_is_not_nfc_is_refused():
    assert refused("ROOT_REPO:/cafe\u0301.txt").code == "WA-RES-I-005"


@pytest.mark.parametrize(
    "text",
    [
        "ROOT_REPO:/secret.txt.",
        "ROOT_REPO:/secret.txt ",
        "ROOT_REPO:/.git./config",
        "ROOT_REPO:/...",
        "ROOT_REPO:/ ",
    ],
)
def test_trailing_dots_and_spaces_are_refused(text: str):
    assert refused(text).code == "WA-RES-I-006"


@pytest.mark.parametrize(
    "segment",
    ["CON", "nul.txt", "COM1.log", "lpt1", "LPT¹", "COM²", "CONIN$", "conout$", "Aux.tar.gz", "PRN"],
)
def test_reserved_device_names_are_refused_in_any_segment(segment: str):
    assert refused(f"ROOT_REPO:/a/{segment}").code == "WA-RES-I-007"


@pytest.mark.parametrize("segment", ["PROGRA~1", "GIT~1", "SECRET~1.TXT"])
def test_short_name_aliases_are_refused(segment: str):
    assert refused(f"ROOT_REPO:/{segment}/config").code == "WA-RES-I-015"


def test_a_segment_over_255_bytes_is_refused():
    reply = refused("ROOT_REPO:/" + "é" * 128)

    assert reply.code == "WA-RES-I-008"
    assert reply.data["limit"] == 255


def test_an_address_over_4096_bytes_is_refused():
    assert refused("ROOT_REPO:/" + "a/" * 2100 + "a").code == "WA-RES-I-008"


def test_a_twenty_megabyte_argument_is_refused_without_splitting_it():
    assert refused("a" * 20_000_000).code == "WA-RES-I-008"


@pytest.mark.parametrize(
    "text",
    ["mod::/x", "mod:../../x:/a", "mod:Name:extra:/x", "mod:Name/..:/x", "mod:Name", "mod:/x"],
)
def test_malformed_mod_addresses_are_refused(text: str):
    assert refused(text).code == "WA-RES-I-011"


def test_a_refusal_never_repeats_the_input():
    reply = refused("/home/alice/.ssh/id_rsa")

    assert "alice" not in str(dict(reply.data))
    assert "alice" not in reply.message()


def test_every_refusal_names_its_rule_and_the_valid_forms():
    reply = refused("ROOT_REPO:/a/../b")

    assert reply.data["rule"] == "dot-segment"
    assert "ROOT_X:/rel/path" in str(reply.data["expected"])


@pytest.mark.parametrize(
    ("name", "shown"),
    [
        ("00_traits.txt", True),
        (".env", True),
        ("CON", False),
        ("conout$", False),
        ("lpt9.log", False),
        ("key.pem.", False),
        ("id.key ", False),
        ("x~1", False),
        ("a\\b", False),
        ("bad\udcff.txt", False),
        ("e\u0301", False),
        ("é", True),
    ],
)
def test_a_name_on_disk_is_shown_only_when_an_address_can_spell_it(name, shown):
    from domain.addresses import addressable_name

    assert addressable_name(name) is shown
