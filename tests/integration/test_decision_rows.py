"""A decision that changes governance state lands with its audit row in one transaction, as a contract's
does: an approval asked, decided by a person and spent; NST and removal tokens declared; an HTTP client's
token made or revoked. A store that cannot take the row keeps the decision from happening."""

from pathlib import Path
from typing import Any

import pytest

from adapters.client_tokens import ClientTokens
from adapters.sqlite_state import SqliteState
from domain.use_cases.token_work import DeclareRemoval, ProposeLxe
from ports.audit import AuditEntry
from ports.errors import Unavailable
from tests.gates import Desk, desk

PROTECTED = ("ROOT_REPO:/.github/ci.yml", "add")


def failing_decisions(audit: Any) -> None:
    """Make `audit` refuse every decision's row (a store locked, full or failing just then)."""
    appended = audit.append

    def append(entry: AuditEntry) -> None:
        if entry.stage == "decision":
            raise Unavailable("injected: the audit row cannot be written")
        appended(entry)

    audit.append = append


def rows_of(bench: Desk, approval_id: str) -> list[AuditEntry]:
    return [row.entry for row in bench.state.audit.rows() if row.entry.approval_id == approval_id]


def test_an_approval_asked_decided_and_spent_leaves_a_row_with_each_record(tmp_path: Path):
    bench = desk(tmp_path)
    asked = bench.open(PROTECTED)
    approval_id = str(asked.data["approval_id"])
    bench.approve(asked)
    opened = bench.open(PROTECTED)

    rows = rows_of(bench, approval_id)
    assert opened.code == "CT-GATE-S-001"
    assert [(row.tool, row.stage, row.notes) for row in rows] == [
        ("ck3_contract", "decision", (f"approval {approval_id} (contract) asked",)),
        ("<approval>", "decision", (f"approval {approval_id} (contract) approved",)),
        ("ck3_contract", "decision", (f"approval {approval_id} (contract) spent",)),
    ]


def test_a_persons_decision_whose_audit_row_cannot_be_written_decides_nothing(tmp_path: Path):
    bench = desk(tmp_path)
    asked = bench.open(PROTECTED)
    approval_id = str(asked.data["approval_id"])
    failing_decisions(bench.state.audit)

    decided = bench.core.decide_approval(approval_id, approve=True)

    stored = bench.core.services.authority.store.get(approval_id)
    assert decided is False
    assert stored is not None
    assert stored.state == "pending"
    assert [row.notes for row in rows_of(bench, approval_id)] == [
        (f"approval {approval_id} (contract) asked",)
    ]


def test_removal_tokens_are_declared_with_their_audit_row_or_not_at_all(tmp_path: Path):
    bench = desk(tmp_path)
    contract_id = str(bench.open(("ROOT_REPO:/src/a.py", "modify")).data["contract_id"])
    removal = DeclareRemoval((("brave", "traits", "ROOT_REPO:/src/a.py"),), "it goes")
    declared = bench.ask(removal)
    failing_decisions(bench.state.audit)
    refused = bench.ask(DeclareRemoval((("craven", "traits", "ROOT_REPO:/src/a.py"),), "it goes too"))

    (row,) = [r.entry for r in bench.state.audit.rows() if r.entry.notes == ("removal tokens declared",)]
    kept = bench.core.services.evidence.document("removal", contract_id)
    assert declared.code == "CT-GATE-S-013"
    assert (row.tool, row.contract_id, row.targets) == ("ck3_token", contract_id, ("ROOT_REPO:/src/a.py",))
    assert refused.code == "CT-GATE-E-002"
    assert kept is not None
    assert "craven" not in kept


def test_an_lxe_a_person_approved_is_kept_with_its_audit_row_naming_its_file(tmp_path: Path):
    bench = desk(tmp_path)
    contract_id = str(bench.open(("ROOT_REPO:/src/a.py", "modify")).data["contract_id"])
    lxe = ProposeLxe(("F401",), ("ROOT_REPO:/src/a.py",), 1, "kept for later")
    bench.core.decide_approval(str(bench.ask(lxe).data["approval_id"]), approve=True)
    granted = bench.ask(lxe)

    (row,) = [r.entry for r in bench.state.audit.rows() if r.entry.notes == ("lxe tokens declared",)]
    assert granted.code == "CT-GATE-S-011"
    assert (row.tool, row.contract_id, row.targets) == ("ck3_token", contract_id, (granted.data["path"],))


@pytest.fixture
def state(tmp_path: Path) -> SqliteState:
    return SqliteState(tmp_path / "ck3raven.db")


def test_a_client_token_made_or_revoked_leaves_a_row_naming_the_client_never_the_token(state: SqliteState):
    tokens = ClientTokens(state)
    token = tokens.add("editor")
    tokens.revoke("editor")

    rows = [row.entry for row in state.audit.rows()]
    assert [(r.tool, r.command, r.client, r.notes) for r in rows] == [
        ("<token>", "add", "editor", ("client token made",)),
        ("<token>", "revoke", "editor", ("client token revoked",)),
    ]
    assert token not in repr(rows)
    assert state.audit.verify() == []


def test_a_client_token_whose_audit_row_cannot_be_written_is_never_made(state: SqliteState):
    failing_decisions(state.audit)
    tokens = ClientTokens(state)

    with pytest.raises(Unavailable):
        tokens.add("editor")

    assert tokens.listed() == []
