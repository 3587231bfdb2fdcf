"""A contract record: live strictly before its expiry, ended with the time it ended, both signatures
covering what they promise, and enforcement's view of it carrying its id, root, operations and approvals."""

from datetime import UTC, datetime, timedelta

import pytest
from attrs import evolve

from domain.contracts import records
from domain.contracts.records import Status
from domain.vocabulary import Operation, RootCategory
from ports.contracts import ContractRecord, TargetRecord
from tests.fakes import FakeSigner

OPENED = datetime(2030, 1, 1, tzinfo=UTC)


def record(**changed: object) -> ContractRecord:
    made = ContractRecord(
        contract_id="ct-1",
        created_at=OPENED.isoformat(),
        session_id="s-1",
        mode="ck3raven-dev",
        root_category="ROOT_REPO",
        intent="i",
        operations=("DELETE", "WRITE"),
        targets=(TargetRecord("ROOT_REPO:/a.py", "modify"),),
        work_declaration="w",
        author="agent",
        baseline_sha=None,
        repositories=(),
        expires_at=(OPENED + timedelta(hours=1)).isoformat(),
        renewed_from=None,
        approvals=("ROOT_REPO:/a.py",),
        session_signature="",
        status="open",
        closed_at=None,
        state_signature="",
    )
    return evolve(made, **changed)


def test_a_contract_is_live_until_its_expiry_and_not_at_that_instant():
    expires = OPENED + timedelta(hours=1)

    assert records.live(record(), expires - timedelta(microseconds=1))
    assert not records.live(record(), expires)
    assert not records.live(record(status="cancelled"), OPENED)


@pytest.mark.parametrize("ending", [Status.CLOSED, Status.CANCELLED, Status.EXPIRED])
def test_an_ended_contract_records_its_status_and_when_it_ended_and_still_verifies(ending: Status):
    signer = FakeSigner()
    ended_at = OPENED + timedelta(minutes=5)

    ended = records.with_status(records.sign(record(), signer), ending, ended_at, signer)

    assert (ended.status, ended.closed_at) == (ending.value, ended_at.isoformat())
    assert records.genuine(ended, signer)


def test_the_state_signature_covers_when_a_contract_ended():
    signer = FakeSigner()
    ended = records.with_status(records.sign(record(), signer), Status.CLOSED, OPENED, signer)

    assert not records.genuine(evolve(ended, closed_at=None), signer)
    assert not records.genuine(evolve(ended, closed_at=(OPENED + timedelta(days=1)).isoformat()), signer)
    assert not records.genuine(evolve(ended, status="open"), signer)


def test_enforcement_sees_the_contracts_id_root_operations_and_approved_targets():
    active = records.as_active(record())

    assert active.contract_id == "ct-1"
    assert active.root is RootCategory.ROOT_REPO
    assert active.operations == frozenset({Operation.WRITE, Operation.DELETE})
    assert active.approvals == frozenset({"ROOT_REPO:/a.py"})
