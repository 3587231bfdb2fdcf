"""The session reports its home and mode, and refuses work until a mode is initialised."""

from domain.session import mode_required
from domain.use_cases import mode_switch, navigation
from domain.vocabulary import Mode, ReplyType, RootCategory
from tests.fakes import (
    CountingIds,
    FakeClock,
    FakeSigner,
    MemoryApprovals,
    authority_services,
    memory_session,
)


def services():
    from domain.policy.approvals import Authority

    return authority_services(Authority(MemoryApprovals(), FakeClock(), CountingIds(), FakeSigner()))


def test_pwd_reports_the_home_as_a_session_absolute_address():
    reply = navigation.pwd(memory_session(RootCategory.ROOT_GAME), services(), navigation.Pwd())

    assert reply.code == "MCP-CFG-S-001"
    assert reply.data == {"home": "ROOT_GAME", "address": "ROOT_GAME:/"}


def test_mode_status_says_when_no_mode_is_initialised():
    reply = mode_switch.status(memory_session(), services(), mode_switch.ModeStatus())

    assert reply.data == {"mode": None, "initialised": False, "source": None, "sealed": False}


def test_mode_status_names_the_initialised_mode_and_an_unsealed_one_says_so():
    reply = mode_switch.status(memory_session(mode=Mode.CK3RAVEN_DEV), services(), mode_switch.ModeStatus())

    assert reply.data["mode"] == "ck3raven-dev"
    assert reply.data["initialised"] is True
    assert reply.data["sealed"] is False


def test_work_without_a_mode_is_invalid_and_names_the_tool():
    reply = mode_required(memory_session(), "ck3_file")

    assert reply is not None
    assert reply.reply_type is ReplyType.INVALID
    assert reply.code == "MCP-CFG-I-001"
    assert reply.data["tool"] == "ck3_file"


def test_work_with_a_mode_may_proceed():
    assert mode_required(memory_session(mode=Mode.CK3LENS), "ck3_file") is None
