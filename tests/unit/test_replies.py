"""The ReplyBuilder is the only constructor, checks every code, and freezes after a terminal reply."""

import attrs
import pytest

from domain.replies.builder import Reply, ReplyBuilder, TerminalReplyError
from domain.replies.frozen import FrozenMap
from domain.vocabulary import ReplyType


def test_success_carries_type_code_and_data():
    reply = ReplyBuilder().success("MCP-CFG-S-001", {"home": "ROOT_REPO", "address": "ROOT_REPO:/"})

    assert reply.reply_type is ReplyType.SUCCESS
    assert reply.code == "MCP-CFG-S-001"
    assert reply.data == {"home": "ROOT_REPO", "address": "ROOT_REPO:/"}


def test_message_is_rendered_from_the_template_and_data():
    reply = ReplyBuilder().success("MCP-CFG-S-001", {"home": "ROOT_GAME", "address": "ROOT_GAME:/"})

    assert reply.message() == "The session home is ROOT_GAME."


def test_an_unregistered_code_is_refused():
    with pytest.raises(ValueError, match="not a registered code"):
        ReplyBuilder().invalid("WA-RES-I-998")


def test_a_code_of_another_type_is_refused():
    with pytest.raises(ValueError, match="is a SUCCESS code"):
        ReplyBuilder().error("MCP-CFG-S-001", {"home": "x", "address": "x"})


def test_a_denial_cannot_be_built_from_a_non_enforcement_code():
    with pytest.raises(ValueError, match="is a INVALID code"):
        ReplyBuilder().denied("MCP-VAL-I-002")


def test_missing_documented_data_fields_are_refused():
    with pytest.raises(ValueError, match="needs data fields"):
        ReplyBuilder().success("MCP-CFG-S-001", {"home": "ROOT_REPO"})


@pytest.mark.parametrize(
    ("method", "code", "data"),
    [("invalid", "MCP-VAL-I-002", {}), ("error", "MCP-SYS-E-001", {"trace_id": "t"})],
)
def test_the_builder_freezes_after_a_terminal_reply(method: str, code: str, data: dict[str, str]):
    builder = ReplyBuilder()
    getattr(builder, method)(code, data)

    with pytest.raises(TerminalReplyError):
        builder.success(
            "MCP-CFG-S-002", {"mode": None, "initialised": False, "source": None, "sealed": False}
        )


def test_the_builder_stays_usable_after_a_success():
    builder = ReplyBuilder()
    builder.success("MCP-CFG-S-002", {"mode": None, "initialised": False, "source": None, "sealed": False})

    reply = builder.invalid("MCP-VAL-I-002")

    assert reply.reply_type is ReplyType.INVALID


def test_a_reply_cannot_be_constructed_directly():
    with pytest.raises(TypeError, match="only by ReplyBuilder"):
        Reply(ReplyType.SUCCESS, "MCP-VAL-I-002", FrozenMap(), _mint=object())


def test_a_reply_cannot_be_altered():
    reply = ReplyBuilder().invalid("MCP-VAL-I-001", {"errors": [{"field": "path"}]})

    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        reply.code = "MCP-VAL-I-002"  # type: ignore[misc]


def test_nested_reply_data_is_immutable():
    reply = ReplyBuilder().invalid("MCP-VAL-I-001", {"errors": [{"field": "path"}]})
    errors = reply.data["errors"]

    assert isinstance(errors, tuple)
    with pytest.raises(TypeError):
        errors[0]["field"] = "other"  # type: ignore[index]


def test_reply_data_does_not_share_the_callers_objects():
    source = {"errors": [{"field": "path"}]}
    reply = ReplyBuilder().invalid("MCP-VAL-I-001", source)

    source["errors"][0]["field"] = "changed"

    assert reply.data == {"errors": ({"field": "path"},)}
