"""The session reports its home and mode, and refuses work until a mode is initialised."""

from domain.session import Session, mode_required, mode_status, pwd
from domain.vocabulary import Mode, ReplyType, RootCategory


def test_pwd_reports_the_home_as_a_session_absolute_address():
    reply = pwd(Session(home=RootCategory.ROOT_GAME))

    assert reply.code == "MCP-CFG-S-001"
    assert reply.data == {"home": "ROOT_GAME", "address": "ROOT_GAME:/"}


def test_mode_status_says_when_no_mode_is_initialised():
    reply = mode_status(Session(home=RootCategory.ROOT_REPO), sealed=False)

    assert reply.data == {"mode": None, "initialised": False, "source": None, "sealed": False}


def test_mode_status_names_the_initialised_mode():
    reply = mode_status(Session(home=RootCategory.ROOT_REPO, mode=Mode.CK3RAVEN_DEV), sealed=False)

    assert reply.data["mode"] == "ck3raven-dev"
    assert reply.data["initialised"] is True


def test_work_without_a_mode_is_invalid_and_names_the_tool():
    reply = mode_required(Session(home=RootCategory.ROOT_REPO), "ck3_file")

    assert reply is not None
    assert reply.reply_type is ReplyType.INVALID
    assert reply.code == "MCP-CFG-I-001"
    assert reply.data["tool"] == "ck3_file"


def test_work_with_a_mode_may_proceed():
    assert mode_required(Session(home=RootCategory.ROOT_REPO, mode=Mode.CK3LENS), "ck3_file") is None
