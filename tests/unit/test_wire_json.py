"""The text twin of a reply is encoded by pydantic-core, yet spells every string, integer, boolean and null
as `to_json` does: the leak screen knows the server's places as `to_json` spells them, so a place in a
reply's text is found however it was escaped."""

import json

from hypothesis import given
from hypothesis import strategies as st

from adapters.wire import wire_data, wire_json
from domain.replies.frozen import freeze, to_json

# st.text leaves unpaired surrogates out: they are the case below
exact = st.none() | st.booleans() | st.integers() | st.text(max_size=12)
values = st.recursive(
    exact,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=30,
)
envelopes = st.dictionaries(st.text(max_size=6), values, max_size=6)


@given(envelopes)
def test_text_without_floats_is_spelled_as_to_json_spells_it_character_for_character(data: dict[str, object]):
    envelope = {"code": "WA-READ-S-001", "data": wire_data(freeze(data))}

    assert wire_json(envelope) == to_json(envelope)


@given(st.lists(st.floats(allow_nan=False, allow_infinity=False), max_size=6))
def test_a_float_may_be_spelled_another_way_but_is_the_same_number(numbers: list[float]):
    envelope = {"data": {"numbers": numbers}}

    assert json.loads(wire_json(envelope)) == json.loads(to_json(envelope))


def test_text_holding_an_unpaired_surrogate_is_encoded_as_to_json_encodes_it():
    envelope = {"data": {"echo": "before \ud800 after", "path": "C:\\Users\\x"}}

    assert wire_json(envelope) == to_json(envelope)


def test_control_characters_and_separators_are_escaped_as_to_json_escapes_them():
    text = '\x00\x01\x1f\x7f\u2028\u2029\U0001f600 "\\/ \b\f\n\r\t é 中'
    envelope = {"data": {text: [text, {"x": text}]}}

    assert wire_json(envelope) == to_json(envelope)
