"""The structured content a client receives is the reply's data as plain JSON data: the same JSON as the
frozen data, with no frozen map left in it (the protocol layer encodes a dict subclass at a dict's cost
four times over)."""

import json

from hypothesis import given
from hypothesis import strategies as st

from adapters.wire import wire_data
from domain.replies.frozen import FrozenMap, freeze

scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8)
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4),
    max_leaves=24,
)
rows = st.lists(st.dictionaries(st.text(max_size=4), scalars | json_values, max_size=3), max_size=6)


def _maps(value: object) -> list[type]:
    """The types of every mapping in `value`, at any depth."""
    if isinstance(value, dict):
        return [type(value)] + [kind for item in value.values() for kind in _maps(item)]
    if isinstance(value, list | tuple):
        return [kind for item in value for kind in _maps(item)]
    return []


@given(st.dictionaries(st.text(max_size=4), json_values | rows, max_size=5))
def test_wire_data_is_the_same_json_as_the_frozen_data_with_every_map_a_plain_dict(data: dict[str, object]):
    frozen = freeze(data)

    sent = wire_data(frozen)

    assert json.dumps(sent, sort_keys=True) == json.dumps(frozen, sort_keys=True)
    assert FrozenMap not in _maps(sent)


def test_rows_of_flat_maps_become_dicts_and_a_row_holding_a_map_is_made_plain_too():
    frozen = freeze(
        {"entries": [{"name": "a", "size": 1}, {"name": "b", "size": 2}], "nested": [{"m": {"x": 1}}]}
    )

    sent = wire_data(frozen)

    assert sent == {
        "entries": [{"name": "a", "size": 1}, {"name": "b", "size": 2}],
        "nested": [{"m": {"x": 1}}],
    }
    assert [type(row) for row in sent["entries"]] == [dict, dict]
    assert type(sent["nested"][0]["m"]) is dict
