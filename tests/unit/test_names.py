"""The forms of naming arguments: the names the game and the code use pass; a control, format or
surrogate character, a space where none belongs, a host path or an over-long value never does."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from domain import names
from domain.leaks import LeakGate

GATE = LeakGate(("/srv/game",))


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("key", "brave"),
        ("key", "birth.0001"),
        ("key", "namespace:birth"),
        ("key", "*"),
        ("key", "trait_brave_desc"),
        ("kind", "culture/traditions"),
        ("kind", "localisation"),
        ("language", "simp_chinese"),
        ("cursor", "150"),
        ("cursor", "gfx (old)"),
    ],
)
def test_the_names_the_game_and_the_code_use_pass(name: str, value: str):
    assert names.passes(GATE, name, value)


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("key", "two words"),
        ("key", "x" * (names.MAX_NAME + 1)),
        ("key", "/etc/passwd"),
        ("key", "~/x"),
        ("kind", "../traits"),
        ("kind", "traits/"),
        ("language", "fr-FR"),
        ("cursor", "9" * (names.MAX_CURSOR + 1)),
        ("cursor", "/srv/game/x"),
        ("key", ""),
    ],
)
def test_a_value_not_of_its_form_or_naming_a_host_path_never_passes(name: str, value: str):
    assert not names.passes(GATE, name, value)


@given(st.sampled_from(sorted(names.FORMED)), st.text(max_size=8), st.sampled_from("\x00\n\x7f\u200b\ud800"))
def test_a_control_format_or_surrogate_character_never_passes(name: str, text: str, bad: str):
    assert not names.passes(GATE, name, "a" + text + bad)
