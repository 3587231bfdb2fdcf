"""Human approvals are bound to one payload, single use, expiring, and signed by this session only."""

import pytest
from attrs import evolve

from domain.policy import approvals
from domain.policy.approvals import Authority, State
from domain.use_cases import mode_switch
from domain.use_cases.mode_switch import ModeInit
from domain.vocabulary import Mode, RootCategory
from tests.fakes import (
    CountingIds,
    FakeClock,
    FakeSigner,
    MemoryApprovals,
    authority_services,
    memory_session,
)


@pytest.fixture
def authority() -> Authority:
    return Authority(MemoryApprovals(), FakeClock(), CountingIds(), FakeSigner())


def init_mode(session, mode, authority):
    return mode_switch.init(session, authority_services(authority), ModeInit(mode))


def approved(authority: Authority, payload: bytes = b"mode:ck3lens", kind: str = "mode"):
    record = approvals.request(authority, kind, payload, "summary")
    return approvals.human_decision(authority, record.approval_id, approve=True)


def test_a_request_is_pending_signed_and_stored(authority):
    record = approvals.request(authority, "mode", b"mode:ck3lens", "Switch to ck3lens")

    assert record.state == State.PENDING
    assert approvals.genuine(record, authority.signer)
    assert authority.store.get(record.approval_id) == record


def test_an_approval_is_consumed_once(authority):
    record = approved(authority)
    now = authority.clock.now()

    first = approvals.consume(record, "mode", b"mode:ck3lens", now=now, signer=authority.signer)
    second = approvals.consume(first, "mode", b"mode:ck3lens", now=now, signer=authority.signer)

    assert first is not None
    assert first.state == State.CONSUMED
    assert second is None


def test_an_approval_for_another_payload_does_nothing(authority):
    record = approved(authority, b"mode:ck3lens")

    assert (
        approvals.consume(
            record, "mode", b"mode:ck3raven-dev", now=authority.clock.now(), signer=authority.signer
        )
        is None
    )


def test_an_approval_of_another_kind_does_nothing(authority):
    record = approved(authority, b"x", kind="stash")

    assert approvals.consume(record, "mode", b"x", now=authority.clock.now(), signer=authority.signer) is None


def test_an_expired_approval_does_nothing(authority):
    record = approved(authority)
    authority.clock.advance(minutes=5, seconds=1)

    assert (
        approvals.consume(record, "mode", b"mode:ck3lens", now=authority.clock.now(), signer=authority.signer)
        is None
    )


def test_a_declined_request_cannot_be_consumed_or_decided_again(authority):
    record = approvals.request(authority, "mode", b"mode:ck3lens", "s")
    declined = approvals.human_decision(authority, record.approval_id, approve=False)

    assert declined is not None
    assert declined.state == State.DECLINED
    assert (
        approvals.consume(
            declined, "mode", b"mode:ck3lens", now=authority.clock.now(), signer=authority.signer
        )
        is None
    )
    assert approvals.human_decision(authority, record.approval_id, approve=True) is None


def test_a_request_cannot_be_decided_after_it_expired(authority):
    record = approvals.request(authority, "mode", b"mode:ck3lens", "s")
    authority.clock.advance(minutes=6)

    assert approvals.human_decision(authority, record.approval_id, approve=True) is None


def test_a_record_edited_on_disk_does_not_verify(authority):
    record = approvals.request(authority, "mode", b"mode:ck3lens", "s")
    forged = evolve(record, state=State.APPROVED.value)

    assert not approvals.genuine(forged, authority.signer)
    assert (
        approvals.consume(forged, "mode", b"mode:ck3lens", now=authority.clock.now(), signer=authority.signer)
        is None
    )


def test_a_new_session_makes_earlier_approvals_inert(authority):
    record = approved(authority)

    later = FakeSigner(session="session-2")

    assert approvals.consume(record, "mode", b"mode:ck3lens", now=authority.clock.now(), signer=later) is None


@pytest.mark.parametrize("char", ["\u202e", "\n", "\x1b", "\u200b", "\u2066"])
def test_the_summary_shown_to_the_human_escapes_controls_and_bidi(char):
    shown = approvals.safe_summary(f"write ROOT_REPO:/a{char}txt.exe")

    assert char not in shown
    assert f"\\u{{{ord(char):04x}}}" in shown


def test_a_summary_too_long_to_show_whole_does_not_fit_and_is_never_filed(authority):
    long = "x" * (approvals.SUMMARY_LIMIT + 1)

    assert not approvals.fits(long)
    with pytest.raises(ValueError, match="shown whole"):
        approvals.request(authority, "mode", b"p", long)
    assert authority.store.all() == []


def test_only_genuine_live_pending_requests_wait_for_a_human(authority):
    expired = approvals.request(authority, "mode", b"mode:ck3lens", "asked first")
    authority.clock.advance(minutes=6)
    waiting = approvals.request(authority, "mode", b"mode:ck3lens", "asked now")
    forged = evolve(approvals.request(authority, "mode", b"mode:x", "asked too"), summary="another text")
    authority.store.put(forged)

    assert [r.approval_id for r in approvals.pending(authority)] == [waiting.approval_id]
    assert expired.approval_id not in {r.approval_id for r in approvals.pending(authority)}


def test_a_request_expires_at_its_expiry_time_exactly(authority):
    record = approvals.request(authority, "mode", b"mode:ck3lens", "s")
    authority.clock.advance(seconds=approvals.TTL.total_seconds())

    assert approvals.human_decision(authority, record.approval_id, approve=True) is None


def test_an_approval_id_says_it_is_a_human_approval(authority):
    assert approvals.request(authority, "mode", b"p", "s").approval_id.startswith("hat-")


def test_the_summary_keeps_letters_and_plain_spaces_and_escapes_tabs_in_place():
    assert approvals.safe_summary("write a b\tc") == "write a b\\u{0009}c"


def test_a_summary_exactly_as_long_as_the_limit_fits_and_is_shown_whole(authority):
    exact = "x" * approvals.SUMMARY_LIMIT

    assert approvals.fits(exact)
    assert approvals.request(authority, "mode", b"p", exact).summary == exact


def test_a_summary_too_long_is_refused_saying_the_caller_checks_first(authority):
    with pytest.raises(
        ValueError, match=r"^an approval summary must be shown whole: the caller checks fits\(\) first$"
    ):
        approvals.request(authority, "mode", b"p", "x" * (approvals.SUMMARY_LIMIT + 1))


# ---------------------------------------------------------------- mode initialisation


def test_init_files_a_request_and_leaves_the_mode_alone(authority):
    session = memory_session(RootCategory.ROOT_REPO, Mode.CK3LENS)

    reply = init_mode(session, Mode.CK3RAVEN_DEV, authority)

    assert reply.code == "MCP-CFG-I-002"
    assert session.mode is Mode.CK3LENS
    assert authority.store.get(reply.data["approval_id"]).state == State.PENDING


def test_init_again_before_approval_points_to_the_same_request(authority):
    session = memory_session(RootCategory.ROOT_REPO)

    first = init_mode(session, Mode.CK3LENS, authority)
    second = init_mode(session, Mode.CK3LENS, authority)

    assert first.data["approval_id"] == second.data["approval_id"]


def test_init_after_approval_sets_the_mode_and_uses_the_approval_up(authority):
    session = memory_session(RootCategory.ROOT_REPO)
    asked = init_mode(session, Mode.CK3RAVEN_DEV, authority)
    approvals.human_decision(authority, asked.data["approval_id"], approve=True)

    done = init_mode(session, Mode.CK3RAVEN_DEV, authority)

    assert done.code == "MCP-CFG-S-005"
    assert session.mode is Mode.CK3RAVEN_DEV
    assert authority.store.get(asked.data["approval_id"]).state == State.CONSUMED


def test_one_approval_never_switches_twice(authority):
    session = memory_session(RootCategory.ROOT_REPO)
    asked = init_mode(session, Mode.CK3RAVEN_DEV, authority)
    approvals.human_decision(authority, asked.data["approval_id"], approve=True)
    init_mode(session, Mode.CK3RAVEN_DEV, authority)
    session.mode = Mode.CK3LENS

    again = init_mode(session, Mode.CK3RAVEN_DEV, authority)

    assert again.code == "MCP-CFG-I-002"
    assert again.data["approval_id"] != asked.data["approval_id"]
    assert session.mode is Mode.CK3LENS


def test_an_approval_for_one_mode_does_not_initialise_another(authority):
    session = memory_session(RootCategory.ROOT_REPO)
    asked = init_mode(session, Mode.CK3LENS, authority)
    approvals.human_decision(authority, asked.data["approval_id"], approve=True)

    reply = init_mode(session, Mode.CK3RAVEN_DEV, authority)

    assert reply.code == "MCP-CFG-I-002"
    assert session.mode is None


def test_after_a_human_declines_the_agent_is_told_so_and_not_asked_again(authority):
    session = memory_session(RootCategory.ROOT_REPO, Mode.CK3LENS)
    asked = init_mode(session, Mode.CK3RAVEN_DEV, authority)
    approvals.human_decision(authority, asked.data["approval_id"], approve=False)

    retried = init_mode(session, Mode.CK3RAVEN_DEV, authority)

    assert retried.code == "MCP-CFG-I-004"
    assert len(authority.store.all()) == 1
    assert session.mode is Mode.CK3LENS


def test_once_a_decline_expires_the_agent_may_ask_again(authority):
    session = memory_session(RootCategory.ROOT_REPO)
    asked = init_mode(session, Mode.CK3RAVEN_DEV, authority)
    approvals.human_decision(authority, asked.data["approval_id"], approve=False)
    authority.clock.advance(minutes=6)

    retried = init_mode(session, Mode.CK3RAVEN_DEV, authority)

    assert retried.code == "MCP-CFG-I-002"
    assert retried.data["approval_id"] != asked.data["approval_id"]


def test_an_approved_switch_is_sealed_and_names_its_approval(authority):
    from domain.use_cases.mode_switch import sealed

    session = memory_session(RootCategory.ROOT_REPO)
    asked = init_mode(session, Mode.CK3RAVEN_DEV, authority)
    approvals.human_decision(authority, asked.data["approval_id"], approve=True)
    init_mode(session, Mode.CK3RAVEN_DEV, authority)

    assert session.mode_source == f"approval:{asked.data['approval_id']}"
    assert sealed(session, authority)


def test_a_mode_set_behind_the_seal_does_not_verify(authority):
    from domain.use_cases.mode_switch import initialise, sealed

    session = memory_session(RootCategory.ROOT_REPO)
    initialise(session, Mode.CK3LENS, "operator", authority)
    session.mode = Mode.CK3RAVEN_DEV

    assert not sealed(session, authority)


def test_a_signature_of_one_kind_never_verifies_as_another(authority):
    record = approvals.request(authority, "mode", b"mode:ck3lens", "s")
    mode_payload = b"mode-init:ck3lens|operator"
    contract_payload = b"contract:" + record.approval_id.encode()

    assert not authority.signer.verify(mode_payload, record.signature)
    assert not authority.signer.verify(contract_payload, record.signature)


def test_the_approval_hint_names_the_bare_command_when_the_server_reads_the_default_config(authority):
    hint = approvals.hint(authority, "hat-1", "call again")

    assert hint == "Ask the user to run `ck3raven approve hat-1` in a terminal, then call again."


def test_the_approval_hint_asks_for_the_servers_own_config_without_naming_it(authority):
    hint = approvals.hint(evolve(authority, same_config=True), "hat-1", "call again")

    assert "`ck3raven approve hat-1` in a terminal with the same `--config` as the server" in hint
