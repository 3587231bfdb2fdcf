"""A VisibilityRef shows its canonical address and nothing else, and cannot be forged or altered."""

import copy
import json
import logging
import pickle

import attrs
import cattrs
import pytest

from domain.world import _seal
from domain.world.visibility import ForgedRefError, VisibilityRef
from ports.files import Location
from tests.worlds import memory_world

HIDDEN_PART = "2217000001"


def minted() -> VisibilityRef:
    _, ref = memory_world().resolve("ROOT_STEAM:/2217000001/common", _home())
    assert ref is not None
    return ref


def _home():
    from domain.vocabulary import RootCategory

    return RootCategory.ROOT_REPO


def test_str_repr_and_f_strings_show_the_canonical_address_only():
    ref = minted()

    assert str(ref) == repr(ref) == f"{ref}" == "VisibilityRef(mod:Better Traits:/common)"


@pytest.mark.parametrize(
    "route",
    [pickle.dumps, copy.copy, copy.deepcopy, lambda ref: ref.__getstate__(), lambda ref: ref.__reduce__()],
    ids=["pickle", "copy", "deepcopy", "getstate", "reduce"],
)
def test_serialization_and_copy_routes_are_refused(route):
    with pytest.raises(TypeError):
        route(minted())


def test_json_cannot_encode_a_ref():
    with pytest.raises(TypeError):
        json.dumps({"ref": minted()})


def test_attrs_asdict_refuses_a_ref():
    with pytest.raises(attrs.exceptions.NotAnAttrsClassError):
        attrs.asdict(minted())


def test_cattrs_unstructure_exposes_nothing_of_the_location():
    unstructured = cattrs.Converter().unstructure(minted())

    assert HIDDEN_PART not in repr(unstructured)


def test_vars_has_nothing_to_show():
    with pytest.raises(TypeError):
        vars(minted())


def test_no_attribute_reachable_by_dir_holds_the_location():
    ref = minted()

    values = [repr(getattr(ref, name)) for name in dir(ref) if not name.startswith("__")]

    assert not any(HIDDEN_PART in value for value in values)


def test_logging_a_ref_writes_only_its_address(caplog: pytest.LogCaptureFixture):
    with caplog.at_level(logging.INFO):
        logging.getLogger("test").info("ref %s", minted())

    assert HIDDEN_PART not in caplog.text


def test_an_exception_carrying_a_ref_shows_only_its_address():
    assert HIDDEN_PART not in str(ValueError(minted()))


def test_a_ref_cannot_be_constructed_without_the_seal():
    with pytest.raises(ForgedRefError):
        VisibilityRef("ROOT_REPO:/x", "file", seal=object())


def test_a_ref_cannot_be_changed():
    ref = minted()

    with pytest.raises(AttributeError):
        ref._address = "ROOT_STEAM:/2217000099"  # type: ignore[misc]


def test_a_ref_altered_behind_its_back_is_refused_when_opened():
    ref = minted()
    object.__setattr__(ref, "_address", "ROOT_STEAM:/2217000099")

    with pytest.raises(ForgedRefError):
        _seal.locate(ref)


def test_an_object_posing_as_a_ref_is_refused_when_opened():
    class Impostor:
        address = "ROOT_REPO:/x"

    with pytest.raises(ForgedRefError):
        _seal.locate(Impostor())  # type: ignore[arg-type]


def test_a_genuine_ref_opens_to_its_location():
    assert _seal.locate(minted()) == Location("ROOT_STEAM", ("2217000001", "common"))


def test_the_strict_converter_refuses_to_unstructure_a_ref():
    from adapters.strict_converter import make_converter

    with pytest.raises(TypeError):
        make_converter().unstructure(minted())


def test_the_strict_converter_refuses_to_structure_a_ref():
    from adapters.strict_converter import make_converter

    with pytest.raises(TypeError):
        make_converter().structure({"address": "ROOT_REPO:/x"}, VisibilityRef)


@pytest.mark.parametrize("impostor", ["ROOT_REPO:/x", 7, None, ("ROOT_REPO", ("x",))])
def test_a_value_that_is_no_ref_at_all_is_refused_when_opened(impostor: object):
    with pytest.raises(ForgedRefError, match=r"^this VisibilityRef was not minted by the World Adapter$"):
        _seal.locate(impostor)  # type: ignore[arg-type]


def test_a_ref_cannot_lose_its_address():
    ref = minted()

    with pytest.raises(AttributeError, match=r"^a VisibilityRef cannot be changed$"):
        del ref._address  # type: ignore[misc]

    assert ref.address == "mod:Better Traits:/common"


@pytest.mark.parametrize(
    ("route", "refusal"),
    [
        (pickle.dumps, "a VisibilityRef cannot be pickled"),
        (lambda ref: ref.__reduce__(), "a VisibilityRef cannot be pickled"),
        (lambda ref: ref.__reduce_ex__(2), "a VisibilityRef cannot be pickled"),
        (lambda ref: ref.__getstate__(), "a VisibilityRef has no exportable state"),
        (copy.copy, "a VisibilityRef cannot be copied"),
        (copy.deepcopy, "a VisibilityRef cannot be copied"),
        (
            lambda _: VisibilityRef("ROOT_REPO:/x", "file", seal=None),
            "VisibilityRefs are minted only by the World Adapter",
        ),
    ],
    ids=["pickle", "reduce", "reduce_ex", "getstate", "copy", "deepcopy", "construct"],
)
def test_each_refusal_says_what_a_ref_refuses(route, refusal: str):
    with pytest.raises((TypeError, ForgedRefError)) as refused:
        route(minted())

    assert str(refused.value) == refusal
