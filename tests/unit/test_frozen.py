"""Frozen reply data round-trips JSON-shaped values and refuses anything else."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from domain.replies.frozen import FrozenMap, freeze, thaw

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


@given(json_values)
def test_thaw_of_freeze_gives_back_an_equal_value(value: object):
    assert thaw(freeze(value)) == value


@given(json_values)
def test_frozen_values_are_hashable(value: object):
    hash(freeze(value))


@pytest.mark.parametrize("value", [object(), {1: "x"}, {"k": {1, 2}}, b"bytes"])
def test_non_json_values_are_refused(value: object):
    with pytest.raises(TypeError):
        freeze(value)


def test_a_frozen_map_refuses_attribute_assignment():
    frozen = FrozenMap({"a": 1})

    with pytest.raises(AttributeError):
        frozen.extra = {}  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    "mutate",
    [
        lambda m: m.__setitem__("a", 2),
        lambda m: m.__delitem__("a"),
        lambda m: m.update(a=2),
        lambda m: m.pop("a"),
        lambda m: m.popitem(),
        lambda m: m.clear(),
        lambda m: m.setdefault("b", 1),
    ],
    ids=["setitem", "delitem", "update", "pop", "popitem", "clear", "setdefault"],
)
def test_every_mutator_of_a_frozen_map_is_refused(mutate):
    frozen = FrozenMap({"a": 1})

    with pytest.raises(TypeError):
        mutate(frozen)

    assert frozen == {"a": 1}
