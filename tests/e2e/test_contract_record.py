"""A contract's record (SPEC §7): the law's fields plus its lifecycle fields, filled as the contract opens,
is renewed and closes; and the mode it was opened in, which must be the session's for it to govern."""

from datetime import datetime, timedelta

import attrs

from app.bootstrap import build_core
from app.config import Settings
from domain.contracts.lifecycle import OpenRequest
from domain.replies.builder import Reply
from domain.session import Session
from domain.use_cases.contract_work import Close, Open, Renew
from domain.use_cases.core import Core
from domain.use_cases.file_access import Write
from domain.use_cases.mode_switch import ModeInit
from domain.use_cases.request import Request
from domain.vocabulary import Mode, RootCategory
from ports.contracts import ContractRecord, TargetRecord
from tests.fakes import FakeClock

LAW = {"contract_id", "created_at", "mode", "root_category", "intent", "operations", "targets"}
LAW |= {"work_declaration", "author", "session_signature"}
LIFECYCLE = {"baseline_sha", "expires_at", "status", "closed_at", "renewed_from", "approvals"}
PLAYSET = "ROOT_CK3RAVEN_DATA:/playsets/p.json"


def test_a_contract_record_holds_the_laws_fields_and_the_lifecycle_fields():
    assert {field.name for field in attrs.fields(ContractRecord)} >= LAW | LIFECYCLE


def test_the_lifecycle_fields_follow_a_contract_through_expiry_renewal_and_close(git_settings: Settings):
    clock = FakeClock()
    core = build_core(git_settings, clock=clock)
    session = core.start_session("one")
    opened = stored(core, _open(core, session, "ROOT_REPO:/src/a.py", ttl_minutes=5))
    clock.advance(minutes=6)
    renewed = stored(core, answer(core, session, Renew(opened.contract_id)))
    closed = stored(core, answer(core, session, Close()))

    created = datetime.fromisoformat(opened.created_at)
    assert (opened.status, opened.closed_at, opened.renewed_from, opened.approvals) == (
        "open",
        None,
        None,
        (),
    )
    assert datetime.fromisoformat(opened.expires_at) == created + timedelta(minutes=5)
    assert opened.baseline_sha
    assert (renewed.renewed_from, renewed.baseline_sha) == (opened.contract_id, opened.baseline_sha)
    assert (closed.contract_id, closed.status) == (renewed.contract_id, "closed")
    assert closed.closed_at == clock.now().isoformat()


def test_a_contract_records_the_protected_targets_a_human_approved(git_settings: Settings):
    core = build_core(git_settings)
    session = core.start_session("one")
    asked = _open(core, session, "ROOT_REPO:/AGENTS.md")
    core.decide_approval(str(asked.data["approval_id"]), approve=True)
    opened = stored(core, _open(core, session, "ROOT_REPO:/AGENTS.md"))

    assert asked.code == "CT-GATE-I-005"
    assert opened.approvals == ("ROOT_REPO:/AGENTS.md",)


def test_a_contract_is_opened_in_the_sessions_mode_and_governs_no_other(git_settings: Settings):
    (git_settings.roots[RootCategory.ROOT_CK3RAVEN_DATA] / "playsets").mkdir()
    core = build_core(git_settings)
    session = core.start_session("one")
    opened = stored(core, _open(core, session, PLAYSET, root="ROOT_CK3RAVEN_DATA"))
    before = answer(core, session, Write(PLAYSET, "{}\n"))
    asked = answer(core, session, ModeInit(Mode.CK3LENS))
    core.decide_approval(str(asked.data["approval_id"]), approve=True)
    switched = answer(core, session, ModeInit(Mode.CK3LENS))
    after = answer(core, session, Write(PLAYSET, "{}\n"))

    assert opened.mode == Mode.CK3RAVEN_DEV.value
    assert before.reply_type.value == "S"
    assert switched.code == "MCP-CFG-S-005"
    assert (after.reply_type.value, after.data["required"]) == ("D", "contract")


def answer(core: Core, session: Session, request: Request) -> Reply:
    return core.answer(session, request)


def stored(core: Core, reply: Reply) -> ContractRecord:
    """The stored record of the contract `reply` names."""
    assert reply.reply_type.value == "S", reply
    record = core.services.contracts.get(str(reply.data["contract_id"]))
    assert record is not None
    return record


def _open(
    core: Core, session: Session, address: str, *, root: str = "ROOT_REPO", ttl_minutes: int = 120
) -> Reply:
    kind = "modify" if address.endswith("a.py") else "add"
    request = OpenRequest(
        root, "intent", ("WRITE",), (TargetRecord(address, kind),), "the work", "agent", ttl_minutes
    )
    return core.answer(session, Open(request))
