"""The open gate (law §12, §13.1 to §13.4): a request is checked field by field, one contract per session,
every target inside the contract's root and permitted by the matrix, protected targets approved by a human
for exactly this request; the opened contract is recorded as declared and reported with its carry-over."""

from datetime import datetime, timedelta
from pathlib import Path

import pytest

from adapters.memory_files import MemoryFiles
from adapters.memory_state import MemoryState
from app.bootstrap import build_core
from app.config import Settings
from domain.contracts import records
from domain.contracts.baseline import ScopeTooDeep
from domain.contracts.lifecycle import OpenRequest
from domain.policy.pacing import Rates
from domain.replies.frozen import thaw
from domain.use_cases.contract_work import Cancel, Open
from domain.vocabulary import Mode, RootCategory
from ports.contracts import TargetRecord
from ports.errors import Unavailable
from ports.files import SURVEY_DEPTH
from tests.fakes import FakeClock
from tests.gates import desk

A = ("ROOT_REPO:/src/a.py", "modify")


def problems(reply) -> list[dict[str, str]]:
    assert reply.code == "CT-GATE-I-001", reply
    return thaw(reply.data["errors"])


def test_a_request_wrong_in_every_field_is_refused_with_every_problem(tmp_path: Path):
    bench = desk(tmp_path)
    reply = bench.open(
        ("ROOT_REPO:/src/a.py", "rename"),
        operations=("WRITE", "FLY"),
        root_category="ROOT_NOWHERE",
        intent=" ",
        work_declaration="w",
        ttl_minutes=0,
    )

    assert problems(reply) == [
        {"field": "root_category", "problem": "not a root category"},
        {"field": "intent", "problem": "intent and work_declaration must say what the work is"},
        {"field": "operations", "problem": "a non-empty subset of READ, WRITE, DELETE"},
        {"field": "targets", "problem": "edit_kind is add, modify or delete"},
        {"field": "ttl_minutes", "problem": "from 1 to 480"},
        {"field": "root_category", "problem": "that root is not configured"},
    ]
    assert bench.core.services.contracts.all() == []


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"work_declaration": "  "}, "intent"),
        ({"intent": ""}, "intent"),
        ({"operations": ()}, "operations"),
        ({"ttl_minutes": 481}, "ttl_minutes"),
        ({"root_category": "ROOT_STEAM"}, "root_category"),
    ],
)
def test_each_field_is_checked_on_its_own(tmp_path: Path, change: dict, field: str):
    bench = desk(tmp_path)
    fields: dict = {"operations": ("WRITE",), **change}
    refused = bench.open(A, **fields)

    assert [p["field"] for p in problems(refused)] == [field]


def test_a_request_without_targets_is_refused(tmp_path: Path):
    assert problems(desk(tmp_path).open()) == [{"field": "targets", "problem": "declare at least one target"}]


@pytest.mark.parametrize("ttl", [1, 480])
def test_a_contract_lives_the_minutes_it_asks_for_from_one_to_eight_hours(tmp_path: Path, ttl: int):
    bench = desk(tmp_path)
    opened = bench.open(A, ttl_minutes=ttl)
    record = bench.stored(opened.data["contract_id"])

    assert opened.code == "CT-GATE-S-001"
    expires = datetime.fromisoformat(record.created_at) + timedelta(minutes=ttl)
    assert record.expires_at == opened.data["expires_at"] == expires.isoformat()


def test_an_opened_contract_is_recorded_as_declared_and_reported_whole(tmp_path: Path):
    bench = desk(tmp_path)
    opened = bench.open(A, ("ROOT_REPO:/src/new.py", "add"), operations=("WRITE", "WRITE", "DELETE", "READ"))
    data = thaw(opened.data)
    record = bench.stored(data["contract_id"])
    signer = bench.core.services.authority.signer

    assert opened.code == "CT-GATE-S-001"
    assert records.genuine(record, signer)
    assert (record.session_id, record.mode, record.root_category) == ("s-1", "ck3raven-dev", "ROOT_REPO")
    assert (record.intent, record.work_declaration, record.author) == ("rework", "the work", "agent")
    assert record.operations == ("DELETE", "READ", "WRITE")
    assert [(t.address, t.edit_kind) for t in record.targets] == [A, ("ROOT_REPO:/src/new.py", "add")]
    assert (record.status, record.closed_at, record.renewed_from, record.approvals) == (
        "open",
        None,
        None,
        (),
    )
    assert record.created_at == bench.clock.now().isoformat()
    assert record.repositories == (("ROOT_REPO:/", record.repositories[0][1]),)
    assert record.repositories[0][1] is not None
    assert record.baseline_sha
    assert data == {
        "contract_id": record.contract_id,
        "root_category": "ROOT_REPO",
        "operations": ["DELETE", "READ", "WRITE"],
        "targets": [
            {"address": "ROOT_REPO:/src/a.py", "edit_kind": "modify"},
            {"address": "ROOT_REPO:/src/new.py", "edit_kind": "add"},
        ],
        "target_count": 2,
        "expires_at": record.expires_at,
        "baseline_sha": record.baseline_sha,
        "baseline": "a manifest of the scope and 1 git repositories in it",
        "repositories": [{"address": "ROOT_REPO:/", "commit": record.repositories[0][1]}],
        "renewed_from": None,
        "status": "open",
        "carry_over": None,
    }
    assert bench.core.services.evidence.find("ruleset", record.contract_id) is not None


def test_a_second_contract_cannot_open_beside_the_first_until_it_ends(tmp_path: Path):
    bench = desk(tmp_path)
    first = bench.open(A).data["contract_id"]
    second = bench.open(A)
    bench.ask(Cancel())
    third = bench.open(A)

    assert (second.code, thaw(second.data)) == ("CT-GATE-I-002", {"contract_id": first})
    assert third.code == "CT-GATE-S-001"


def test_targets_outside_the_contracts_root_are_refused_by_position_never_echoed(tmp_path: Path):
    bench = desk(tmp_path)
    refused = bench.open(A, ("ROOT_CK3RAVEN_DATA:/wip/x.txt", "add"), ("/etc/passwd", "add"))

    assert refused.code == "CT-GATE-I-003"
    assert thaw(refused.data) == {
        "targets": [
            {"index": 1, "problem": "lies in another root"},
            {"index": 2, "problem": refused.data["targets"][1]["problem"]},
        ]
    }
    assert refused.data["targets"][1]["problem"].startswith("WA-RES-I-")
    assert "/etc/passwd" not in str(thaw(refused.data))


def test_targets_the_matrix_does_not_permit_are_infeasible_for_each_mutation(tmp_path: Path):
    bench = desk(tmp_path)
    refused = bench.open(
        ("ROOT_GAME:/common/traits.txt", "modify"),
        ("ROOT_GAME:/common/new.txt", "add"),
        root_category="ROOT_GAME",
        operations=("READ", "WRITE", "DELETE"),
    )

    assert refused.code == "CT-GATE-I-004"
    assert thaw(refused.data) == {
        "targets": [
            {"address": "ROOT_GAME:/common/traits.txt", "operation": "DELETE"},
            {"address": "ROOT_GAME:/common/traits.txt", "operation": "WRITE"},
            {"address": "ROOT_GAME:/common/new.txt", "operation": "DELETE"},
            {"address": "ROOT_GAME:/common/new.txt", "operation": "WRITE"},
        ]
    }


def test_a_protected_target_opens_only_once_a_human_approves_exactly_this_request(tmp_path: Path):
    bench = desk(tmp_path)
    protected = ("ROOT_REPO:/AGENTS.md", "add")
    asked = bench.open(protected, A)
    data = thaw(asked.data)
    bench.approve(asked)
    other_intent = bench.open(protected, A, intent="something else")
    opened = bench.open(protected, A)

    assert data["state"] == "pending"
    assert data["targets"] == ["ROOT_REPO:/AGENTS.md"]
    assert data["approval_id"] in data["hint"]
    assert data["hint"].endswith("then open again.")
    stored = bench.core.services.authority.store.get(data["approval_id"])
    assert stored is not None
    assert stored.kind == "contract"  # what `ck3raven approvals` shows the human
    summary = bench.core.approval_summary(data["approval_id"])
    assert summary is not None
    assert "ROOT_REPO:/AGENTS.md" in summary
    assert "rework" in summary
    assert "DELETE, WRITE" in summary
    assert "ROOT_REPO:/src/a.py" not in summary
    assert (other_intent.code, other_intent.data["state"]) == ("CT-GATE-I-005", "pending")
    assert opened.code == "CT-GATE-S-001"
    assert bench.stored(opened.data["contract_id"]).approvals == ("ROOT_REPO:/AGENTS.md",)


def test_a_declined_protected_target_does_not_open(tmp_path: Path):
    bench = desk(tmp_path)
    protected = ("ROOT_REPO:/AGENTS.md", "add")
    bench.approve(bench.open(protected), approve=False)
    again = bench.open(protected)

    assert (again.code, again.data["state"]) == ("CT-GATE-I-005", "declined")
    assert bench.core.services.contracts.all() == []


def test_a_protected_request_too_long_to_show_a_person_is_refused_before_one_is_asked(tmp_path: Path):
    bench = desk(tmp_path)
    refused = bench.open(("ROOT_REPO:/AGENTS.md", "add"), intent="x" * 2100)

    assert problems(refused) == [
        {
            "field": "targets",
            "problem": "too long to show a person whole: declare fewer protected targets or a shorter intent",
        }
    ]
    assert bench.core.services.authority.store.all() == []


def test_a_scope_nested_deeper_than_a_survey_reaches_cannot_open(tmp_path: Path):
    bench = desk(tmp_path)
    (bench.repo / "/".join(["d"] * (SURVEY_DEPTH + 2))).mkdir(parents=True)
    refused = bench.open(A)

    assert problems(refused) == [{"field": "root_category", "problem": ScopeTooDeep.PROBLEM}]
    assert bench.core.services.contracts.all() == []


def test_a_journal_that_cannot_be_read_at_open_is_an_error_and_opens_nothing(tmp_path: Path):
    bench = desk(tmp_path)
    journal = bench.core.services.journal

    def down(*_: object, **__: object) -> object:
        raise Unavailable("injected: the journal cannot be read")

    journal.entries = down  # type: ignore[method-assign]
    failed = bench.open(A)

    assert (failed.code, thaw(failed.data)) == ("CT-GATE-E-001", {"root": "ROOT_REPO"})
    assert bench.core.services.contracts.all() == []


def test_a_target_spelled_otherwise_than_on_a_case_ignoring_disk_is_refused_with_its_one_spelling(
    tmp_path: Path,
):
    (tmp_path / "repo").mkdir()
    settings = Settings(
        "test",
        {RootCategory.ROOT_REPO: tmp_path / "repo"},
        RootCategory.ROOT_REPO,
        Mode.CK3RAVEN_DEV,
        state_dir=tmp_path / "state",
        limits=Rates(0, 0),
    )
    files = MemoryFiles({"ROOT_REPO": {"src": {"a.py": b"a = 1\n"}}}, ignores_case=True)
    core = build_core(settings, files=files, stored=MemoryState(), clock=FakeClock())
    declared = OpenRequest(
        "ROOT_REPO", "i", ("WRITE",), (TargetRecord("ROOT_REPO:/SRC/A.py", "modify"),), "w"
    )
    refused = core.answer(core.start_session("s"), Open(declared))

    assert (refused.code, thaw(refused.data)) == (
        "CT-GATE-I-003",
        {"targets": [{"index": 0, "problem": "WA-RES-I-019", "canonical": "ROOT_REPO:/src/a.py"}]},
    )
