"""Carry-over: attribution to earlier contracts, per-file escalation, and its reset."""

from domain.contracts.carry_over import CarriedFile, attribute, escalate, report, required
from domain.contracts.records import address_key
from ports.contracts import ContractRecord, TargetRecord


def contract(contract_id: str, created_at: str, *addresses: str) -> ContractRecord:
    return ContractRecord(
        contract_id=contract_id,
        created_at=created_at,
        session_id="s-1",
        mode="ck3raven-dev",
        root_category="ROOT_REPO",
        intent="i",
        operations=("WRITE",),
        targets=tuple(TargetRecord(a, "modify") for a in addresses),
        work_declaration="w",
        author="agent",
        baseline_sha=None,
        repositories=(),
        expires_at=created_at,
        renewed_from=None,
        approvals=(),
        session_signature="",
        status="open",
        closed_at=None,
        state_signature="",
    )


EXACT = address_key(ignores_case=False)
FOLDED = address_key(ignores_case=True)


def test_changes_are_attributed_to_the_newest_contract_that_declared_them():
    earlier = [
        contract("c-1", "2030-01-01", "ROOT_REPO:/a.py"),
        contract("c-2", "2030-01-02", "ROOT_REPO:/A.py"),
    ]

    carried = attribute([("ROOT_REPO:/a.py", "modify"), ("ROOT_REPO:/b.py", "add")], earlier, key=FOLDED)

    assert carried == [
        CarriedFile("ROOT_REPO:/a.py", "modify", "c-2"),
        CarriedFile("ROOT_REPO:/b.py", "add", None),
    ]


def test_where_case_tells_files_apart_a_change_is_attributed_only_to_its_own_spelling():
    earlier = [
        contract("c-1", "2030-01-01", "ROOT_REPO:/a.py"),
        contract("c-2", "2030-01-02", "ROOT_REPO:/A.py"),
    ]

    carried = attribute([("ROOT_REPO:/a.py", "modify")], earlier, key=EXACT)

    assert carried == [CarriedFile("ROOT_REPO:/a.py", "modify", "c-1")]


def test_each_open_that_leaves_a_file_out_counts_one_more():
    carried = [CarriedFile("ROOT_REPO:/a.py", "modify", None)]

    once = escalate({}, carried, set(), key=EXACT)
    counts = escalate(escalate(once, carried, set(), key=EXACT), carried, set(), key=EXACT)

    assert counts == {"ROOT_REPO:/a.py": 3}
    assert required(counts) == ["ROOT_REPO:/a.py"]


def test_declaring_a_file_resets_its_counter():
    carried = [CarriedFile("ROOT_REPO:/a.py", "modify", None)]

    assert escalate({"ROOT_REPO:/a.py": 2}, carried, {"ROOT_REPO:/a.py"}, key=EXACT) == {}
    assert escalate({"ROOT_REPO:/a.py": 2}, carried, {"root_repo:/a.py"}, key=FOLDED) == {}


def test_a_file_no_longer_carried_over_starts_over():
    assert escalate({"ROOT_REPO:/a.py": 2}, [], set(), key=EXACT) == {}


def test_the_report_groups_by_origin_and_suggests_a_template():
    carried = [CarriedFile("ROOT_REPO:/a.py", "modify", "c-1"), CarriedFile("ROOT_REPO:/b.py", "add", None)]

    section = report(carried, {"ROOT_REPO:/a.py": 2, "ROOT_REPO:/b.py": 1})

    assert section["severity"] == "warning"
    assert set(section["clusters"]) == {"c-1", "unattributed"}
    assert section["template"] == [
        {"path": "ROOT_REPO:/a.py", "edit_kind": "modify"},
        {"path": "ROOT_REPO:/b.py", "edit_kind": "add"},
    ]
