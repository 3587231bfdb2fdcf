"""Every field of every signed record is held by its signature (law §5, §10, §11; SPEC §7, §8, §14): edited
in the state store, or in its token file, the record counts for nothing. The fields are read off each
record's type, never listed here, so a field left out of what a signature covers fails a test, and so does
a field added to a record without being signed."""

import json
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import attrs
import pytest
from dulwich import porcelain

from app.bootstrap import build_core
from app.config import Settings
from domain.compliance import closeout, tokens
from domain.contracts import lifecycle, records
from domain.contracts.lifecycle import OpenRequest
from domain.policy import approvals
from domain.policy.approvals import State
from domain.policy.pacing import Rates
from domain.session import Session
from domain.use_cases.contract_work import Open
from domain.use_cases.core import Core
from domain.use_cases.token_work import DeclareNst, DeclareRemoval
from domain.vocabulary import Mode, RootCategory
from ports.approvals import ApprovalRecord
from ports.contracts import ContractRecord, TargetRecord
from tests import state_db

SIGNATURES = frozenset({"session_signature", "state_signature", "signature"})
TARGET = "ROOT_REPO:/common/traits/a.txt"


def signed_fields(kind: type) -> list[str]:
    """The fields of a record type that a signature covers: all of them but the signatures."""
    return [field.name for field in attrs.fields(kind) if field.name not in SIGNATURES]


def edited(value: Any) -> Any:
    """Another value of the same JSON shape, as a hand in the store would write it: a time an hour later,
    a text changed, a number one more, a list one item longer."""
    if isinstance(value, str):
        try:
            return (datetime.fromisoformat(value) + timedelta(hours=1)).isoformat()
        except ValueError:
            return value + "x"
    if isinstance(value, bool) or value is None:
        return "edited"
    if isinstance(value, int):
        return value + 1
    if isinstance(value, list):
        return [*value, value[0]] if value else ["hat-edited"]
    raise AssertionError(f"no edit for {value!r}")


@pytest.fixture
def opened(tmp_path: Path) -> tuple[Core, Session, str, Path]:
    """A core on a real state store with a contract open on ROOT_REPO, a git repository: the core, the
    session, the contract's id and the state directory."""
    repo = tmp_path / "repo"
    (repo / "common" / "traits").mkdir(parents=True)
    (repo / "common" / "traits" / "a.txt").write_text("brave = {\n}\n", encoding="utf-8")
    porcelain.init(str(repo))  # a repository, so the contract binds one (every field holds a value)
    porcelain.add(str(repo), paths=[str(repo / "common" / "traits" / "a.txt")])
    porcelain.commit(str(repo), message=b"baseline", author=b"T <t@x>", committer=b"T <t@x>")
    settings = Settings(
        "test",
        {RootCategory.ROOT_REPO: repo},
        RootCategory.ROOT_REPO,
        Mode.CK3RAVEN_DEV,
        state_dir=tmp_path / "state",
        limits=Rates(0, 0),
    )
    core = build_core(settings)
    session = core.start_session("s")
    declared = OpenRequest("ROOT_REPO", "i", ("WRITE",), (TargetRecord(TARGET, "modify"),), "w", "t", 60)
    reply = core.answer(session, Open(declared))
    assert reply.code == "CT-GATE-S-001", reply.code
    return core, session, str(reply.data["contract_id"]), tmp_path / "state"


@pytest.mark.parametrize("name", signed_fields(ContractRecord))
def test_a_contract_edited_in_any_field_in_the_store_is_not_genuine_and_governs_nothing(opened, name):
    core, session, contract_id, state = opened
    assert lifecycle.governing(session, core.services) is not None
    data = state_db.record(state, "contracts", contract_id)

    data[name] = edited(data[name])
    state_db.write_record(state, "contracts", contract_id, data)

    stored = core.services.contracts.get(contract_id)
    assert stored is not None
    assert not records.genuine(stored, core.services.authority.signer)
    assert lifecycle.governing(session, core.services) is None


@pytest.mark.parametrize("name", signed_fields(ApprovalRecord))
def test_an_approval_edited_in_any_field_in_the_store_is_not_genuine_and_approves_nothing(opened, name):
    core, _, _, state = opened
    authority = core.services.authority
    asked = approvals.request(authority, "mode", b"session:s\nmode:ck3lens", "switch")
    assert approvals.human_decision(authority, asked.approval_id, approve=True) is not None
    data = state_db.record(state, "approvals", asked.approval_id)

    data[name] = edited(data[name])
    state_db.write_record(state, "approvals", asked.approval_id, data)

    stored = authority.store.get(asked.approval_id)
    assert stored is not None
    assert not approvals.genuine(stored, authority.signer)
    settled, _ = approvals.settle(authority, "mode", b"mode:ck3lens", "switch", session_id="s")
    assert settled is State.PENDING


def test_an_unedited_approval_approves_once(opened):
    core, _, _, _ = opened
    authority = core.services.authority
    asked = approvals.request(authority, "mode", b"session:s\nmode:ck3lens", "switch")
    approvals.human_decision(authority, asked.approval_id, approve=True)

    settled, _ = approvals.settle(authority, "mode", b"mode:ck3lens", "switch", session_id="s")

    assert settled is State.APPROVED


def declared_tokens(core: Core, session: Session) -> None:
    nst = DeclareNst((("brave_new", TARGET),), "asked for")
    assert core.answer(session, nst).code == "CT-GATE-S-010"
    removal = DeclareRemoval((("brave", "traits", TARGET),), "replaced")
    assert core.answer(session, removal).code == "CT-GATE-S-013"


@pytest.mark.parametrize(
    ("kind", "rows", "name"),
    [("nst", "nsts", name) for name in signed_fields(tokens.Nst)]
    + [("removal", "removals", name) for name in signed_fields(tokens.Removal)],
)
def test_a_token_edited_in_any_field_in_the_store_counts_for_nothing(opened, kind, rows, name):
    core, session, contract_id, state = opened
    declared_tokens(core, session)
    read = {"nst": closeout.nsts_of, "removal": closeout.removals_of}[kind]
    assert len(read(core.services, contract_id)) == 1
    document = state_db.evidence(state, kind, contract_id)

    document[rows][0][name] = edited(document[rows][0][name])
    state_db.write_evidence(state, kind, contract_id, document)

    assert read(core.services, contract_id) == []


def test_a_token_moved_to_another_contract_counts_for_nothing(opened):
    core, session, contract_id, state = opened
    declared_tokens(core, session)

    for kind in ("nst", "removal"):
        state_db.write_evidence(state, kind, "ct-other", state_db.evidence(state, kind, contract_id))

    assert closeout.nsts_of(core.services, "ct-other") == []
    assert closeout.removals_of(core.services, "ct-other") == []


@pytest.mark.parametrize("name", signed_fields(tokens.Lxe))
def test_an_lxe_file_edited_in_any_field_counts_for_nothing(opened, name):
    core, _, contract_id, _ = opened
    signer = core.services.authority.signer
    lxe = tokens.Lxe(
        "lxe-1",
        contract_id,
        ("CK3-BOM",),
        (TARGET,),
        1,
        "the game reads it",
        "hat-1",
        "2026-11-29T00:00:00+00:00",
        "2026-11-29T08:00:00+00:00",
    )
    document = tokens.lxe_document(lxe, signer)
    assert tokens.lxe_from(document, signer) == lxe
    data = json.loads(document)
    value = data[name]

    data[name] = [edited(item) for item in value] if isinstance(value, list) else edited(value)

    assert tokens.lxe_from(json.dumps(data).encode(), signer) is None
