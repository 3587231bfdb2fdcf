"""Every code declares what its data holds: the builder refuses a reply that is not so, and each tool's
output schema carries the declaration to clients that validate."""

import pytest
from jsonschema import Draft202012Validator

from adapters.output_schemas import NEVER_SENT, TOOL_CODES, codes_of, output_schema
from domain.replies.builder import ReplyBuilder
from domain.replies.codes import CodeSpec
from domain.replies.registry import REGISTRY


def test_a_reply_with_a_field_its_code_does_not_declare_is_refused():
    with pytest.raises(ValueError, match="declares no data fields"):
        ReplyBuilder().invalid("WA-RES-I-001", {"address": "ROOT_REPO:/x", "path": "/home/x"})


def test_a_reply_whose_field_is_not_of_the_declared_kind_is_refused():
    with pytest.raises(ValueError, match="not what the registry declares"):
        ReplyBuilder().invalid("WA-RES-I-001", {"address": 5})


def test_a_boolean_is_not_taken_for_a_count():
    with pytest.raises(ValueError, match="not what the registry declares"):
        ReplyBuilder().invalid("WA-READ-I-002", {"address": "ROOT_REPO:/x", "limit": True})


def test_a_reply_may_leave_out_a_field_its_code_declares_optional():
    data = {"rule": "character", "expected": "an address", "character": "U+0000"}

    reply = ReplyBuilder().invalid("WA-RES-I-004", data)

    assert "index" not in reply.data


def test_a_ruleset_refusal_may_say_that_no_ruleset_was_recorded():
    reply = ReplyBuilder().invalid("CT-GATE-I-011", {"contract_id": "ct-1", "recorded": None, "current": "x"})

    assert reply.data["recorded"] is None


def test_a_code_naming_a_field_no_shape_describes_is_refused_at_birth():
    with pytest.raises(ValueError, match="needs a shape"):
        CodeSpec("WA-RES-I-099", "Nothing.", {"nonesuch"})


def test_a_codes_data_schema_requires_what_is_always_there_and_admits_nothing_else():
    schema = REGISTRY["WA-RES-I-004"].data_schema()

    assert schema["required"] == ["character", "expected", "rule"]
    assert set(schema["properties"]) == {"character", "expected", "rule", "index", "segment"}  # type: ignore[arg-type]
    assert schema["additionalProperties"] is False


def test_every_registered_code_but_those_never_sent_is_in_the_output_schema_of_some_tool():
    named = {code for tool in TOOL_CODES for code in codes_of(tool)}

    assert set(REGISTRY) - named == set(NEVER_SENT)


def envelope(code: str, data: dict[str, object]) -> dict[str, object]:
    reply_type = REGISTRY[code].reply_type
    return {
        "status": reply_type.status,
        "reply_type": reply_type.value,
        "code": code,
        "message": "m",
        "data": data,
        "meta": {"trace_id": "t", "duration_ms": 1.0, "tool": "ck3_read"},
        "error": None,
    }


def test_a_tools_output_schema_accepts_a_reply_whose_data_is_as_declared():
    validator = Draft202012Validator(output_schema("ck3_read"))

    errors = list(validator.iter_errors(envelope("WA-READ-I-001", {"address": "ROOT_REPO:/a.bin"})))

    assert errors == []


def test_every_code_a_tool_answers_with_passes_its_output_schema_and_no_other_does():
    for tool in TOOL_CODES:
        validator = Draft202012Validator(output_schema(tool))
        answered = set(codes_of(tool))
        for code in REGISTRY:
            assert validator.is_valid(envelope(code, {})) == (code in answered), (tool, code)


def test_a_tools_output_schema_refuses_a_code_the_tool_does_not_answer_with():
    validator = Draft202012Validator(output_schema("ck3_read"))

    assert not validator.is_valid(envelope("CT-GATE-S-003", {"contract_id": "ct-1"}))


def test_every_output_schema_is_a_valid_json_schema_of_an_object():
    for tool in TOOL_CODES:
        schema = output_schema(tool)
        Draft202012Validator.check_schema(schema)
        assert schema["type"] == "object", tool
