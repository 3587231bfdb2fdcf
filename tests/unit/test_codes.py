"""Every code record conforms to LAYER-AREA-TYPE-NNN, the closed sets and the layer/type law."""

import pytest

from domain.replies.codes import CODE_PATTERN, CodeSpec, index, placeholders
from domain.replies.registry import REGISTRY
from domain.vocabulary import LAYER_TYPES, Area, Layer, ReplyType


@pytest.mark.parametrize("spec", REGISTRY.values(), ids=lambda spec: spec.code)
def test_every_registered_code_is_well_formed_and_legal(spec: CodeSpec):
    match = CODE_PATTERN.fullmatch(spec.code)

    assert match is not None
    assert Layer(match["layer"]) is spec.layer
    assert Area(match["area"]) is spec.area
    assert spec.reply_type in LAYER_TYPES[spec.layer]
    assert placeholders(spec.template) <= spec.fields


@pytest.mark.parametrize(
    "code",
    [
        "WA-RES-I-1",
        "wa-res-i-001",
        "WA-RES-X-001",
        "XX-RES-I-001",
        "WA-FILE-I-001",
        "WA-RES-I-000",
        "WA-RES-I-0011",
        " WA-RES-I-001",
    ],
)
def test_a_malformed_code_cannot_be_registered(code: str):
    with pytest.raises(ValueError):  # noqa: PT011 - the message varies by rule
        CodeSpec(code, "x")


@pytest.mark.parametrize("code", ["WA-RES-D-001", "CT-GATE-D-001", "MCP-SYS-D-001", "EN-WRITE-I-001"])
def test_a_type_its_layer_may_not_emit_cannot_be_registered(code: str):
    with pytest.raises(ValueError, match="may not emit"):
        CodeSpec(code, "x")


def test_a_template_placeholder_must_be_a_documented_field():
    with pytest.raises(ValueError, match="undocumented"):
        CodeSpec("WA-RES-I-001", "{address} is {secret}", {"address"})


def test_a_code_registered_twice_is_refused():
    spec = CodeSpec("WA-RES-I-001", "x")

    with pytest.raises(ValueError, match="twice"):
        index((spec, CodeSpec("WA-RES-I-001", "y")))


def test_only_en_may_deny_and_en_never_invalidates():
    deniers = {layer for layer, kinds in LAYER_TYPES.items() if ReplyType.DENIED in kinds}

    assert deniers == {Layer.EN}
    assert ReplyType.INVALID not in LAYER_TYPES[Layer.EN]
