"""The ASCII fast path of the address grammar accepts and refuses exactly what the full grammar does."""

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from domain.addresses import Parsed, _parse, _plain, parse
from domain.replies.builder import Reply
from domain.replies.refusal import Refused

HOME = "ROOT_REPO"

PREFIXES = [
    "",
    "ROOT_GAME:/",
    "ROOT_REPO:/",
    "root_repo:/",
    "R1:/",
    "C:/",
    "c:",
    "X:",
    "file:",
    "file:/",
    "FILE:/",
    "File:/",
    "files:/",
    "mod:",
    "mod:/",
    "mod:Better Traits:/",
    "mod:2217000001:/",
    "mod:a.b:/",
    "mod::/",
    "MOD:x:/",
    ":/",
    "/",
    "//",
    "~/",
    "~",
    "$HOME/",
    "${HOME}/",
    "%USERPROFILE%/",
    "\\\\host\\",
    " ROOT_REPO:/",
    "ROOT_REPO :/",
    "ROOT_REPO:/:/",
    "ROOT_RÉPO:/",
]
SEGMENTS = [
    "common",
    "00_traits.txt",
    "a",
    "a-b_c.d",
    ".git",
    ".env",
    ".",
    "..",
    "...",
    "a.",
    "a..",
    "a ",
    " a",
    "a b",
    "",
    "CON",
    "con",
    "Con.txt",
    "nul.tar.gz",
    "NUL ",
    "aux.",
    "com1",
    "COM9.log",
    "com10",
    "lpt0",
    "LPT¹",
    "com²",
    "conin$",
    "CONOUT$.txt",
    "console",
    "prn_x",
    "auxiliary",
    "PROGRA~1",
    "x~1",
    "x~",
    "~1",
    "a:b",
    "a\\b",
    "%2e%2e",
    "$x",
    "a" * 255,
    "a" * 254 + ".",
    "a" * 256,
    "é" * 127,
    "é" * 128,
    "café.txt",
    "cafe\u0301.txt",
    "\uff0e\uff0e",
    "a\u2215b",
    "a\u200bb",
    "a\x00b",
    "a\tb",
    "a\x7fb",
    "a\x85b",
    "a\u202eb",
    "bad\udcff",
    "\u212aelvin",
    "\u017fecret",
]
CHARACTERS = st.characters(codec=None, exclude_categories=()) | st.sampled_from(
    list("aZ09_-.:/\\ ~$%{(é\x00\x1f\x7f\u200b\uff0f¹")
)

DEVICES = ["con", "PRN", "Aux", "nuL", "com0", "COM7", "lpt3", "conin$", "conout$", "com¹", "lpt³"]

near_plain = st.one_of(
    st.from_regex(r"[A-Za-z0-9_.\- ~$]{1,6}", fullmatch=True),
    st.builds(
        lambda device, rest: device + rest,
        st.sampled_from(DEVICES),
        st.sampled_from(["", ".x", " ", " .x", "  x", "x", "."]),
    ),
    st.builds(lambda n, end: "a" * n + end, st.integers(250, 256), st.sampled_from(["", ".", "b", " "])),
)
composed = st.builds(
    lambda prefix, parts, tail: prefix + "/".join(parts) + tail,
    st.sampled_from(PREFIXES),
    st.lists(st.sampled_from(SEGMENTS) | near_plain, max_size=6),
    st.sampled_from(["", "/", "//", " ", "."]),
)
free_text = st.text(CHARACTERS, max_size=40)


def outcome(result: Parsed | Reply) -> object:
    if isinstance(result, Reply):
        return (result.reply_type, result.code, dict(result.data))
    return result


def parsed(text: str) -> Parsed | Reply:
    """What `parse` makes of `text`: the address, or the reply of its refusal."""
    try:
        return parse(text, HOME)
    except Refused as refused:
        return refused.reply


@settings(max_examples=1000)
@given(st.one_of(composed, free_text))
@example("ROOT_REPO:/" + ("ab/" * 1400)[: 4096 - 12] + "c")  # 4096 characters
@example("ROOT_REPO:/" + ("ab/" * 1400)[: 4097 - 12] + "c")
@example("a" * 4097)
@example("ROOT_REPO:/con .txt")
@example("ROOT_REPO:/a/Nul")
@example("ROOT_REPO:/conout$")
@example("ROOT_REPO:/" + "a" * 256)
@example("ROOT_REPO:/x~1/y")
@example("ROOT_REPO:/a./b")
@example("ROOT_REPO:/ a/b ")
@example("file:/x")
@example("/")
@example("C:/x")
def test_the_fast_path_parses_every_text_as_the_full_grammar_does(text: str):
    assert outcome(parsed(text)) == outcome(_parse(text, HOME))


@pytest.mark.parametrize(
    "text",
    [
        "ROOT_GAME:/common/traits/00_traits.txt",
        "ROOT_REPO:/src/",
        "ROOT_REPO:/",
        "mod:Better Traits:/common/on_action",
        "src/server.py",
        "ROOT_REPO:/.github/workflows/ci.yml",
    ],
)
def test_plain_addresses_take_the_fast_path(text: str):
    assert _plain(text, HOME) == _parse(text, HOME)


@pytest.mark.parametrize(
    "text",
    ["/", "ROOT_REPO:/a/../b", "ROOT_REPO:/CON.txt", "ROOT_REPO:/a.", "file:/x", "C:/x", "ROOT_REPO:/a b"],
)
def test_texts_a_rule_could_refuse_are_left_to_the_full_grammar(text: str):
    assert _plain(text, HOME) is None
