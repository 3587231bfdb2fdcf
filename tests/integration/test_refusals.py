"""A refusal is one frozen type: a use case raises it, and the core makes it the call's one reply, in one
place; a success is never a refusal."""

import pytest

from ck3raven.embedding import in_memory
from domain.replies.builder import ReplyBuilder
from domain.replies.refusal import Refused
from domain.use_cases.navigation import Pwd
from tests.fakes import answered_by


def _refusing(session, services, request):
    raise Refused.invalid("WA-RES-I-001", {"address": "ROOT_REPO:/gone"})


def test_a_refusal_a_handler_raises_is_the_calls_one_reply():
    host = in_memory({"ROOT_REPO": {}})
    host.core = answered_by(Pwd, _refusing, host.core)

    reply = host.call(host.session(), "ck3_dir", "pwd")

    assert (reply.reply_type.value, reply.code) == ("I", "WA-RES-I-001")
    assert dict(reply.data) == {"address": "ROOT_REPO:/gone"}


def test_a_success_is_never_a_refusal():
    resolved = ReplyBuilder().success("WA-RES-S-001", {"address": "ROOT_REPO:/", "kind": "dir"})

    with pytest.raises(ValueError, match="not a refusal"):
        Refused(resolved)


def test_a_refusal_cannot_be_changed_once_made():
    refused = Refused.invalid("WA-RES-I-001", {"address": "ROOT_REPO:/gone"})

    with pytest.raises(AttributeError):
        refused.reply = ReplyBuilder().invalid("WA-RES-I-001", {"address": "ROOT_REPO:/"})
    with pytest.raises(TypeError):
        refused.data["address"] = "ROOT_REPO:/"  # type: ignore[index]


def test_a_refusal_keeps_what_the_interpreter_sets_on_a_raised_exception():
    refused = Refused.invalid("WA-RES-I-001", {"address": "ROOT_REPO:/gone"})

    refused.__traceback__ = None
    refused.add_note("raised in a handler")

    assert refused.__notes__ == ["raised in a handler"]
