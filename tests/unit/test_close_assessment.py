"""The compliance facts of a close, apart from where they are read from: which rule a close breaks first,
what its evidence records, which new symbols lack an NST, which lint findings exceed what LXEs excuse, and
the line of renewals whose NSTs and LXEs count."""

from attrs import evolve

from domain.compliance.closeout import Assessment, _over, _uncovered, lineage
from domain.compliance.key_changes import NOT_READ, NOTHING, KeyChanges
from domain.compliance.symbols import FileSymbols
from domain.compliance.tokens import Nst
from domain.services import Services
from ports.contracts import ContractRecord
from ports.linter import Finding

A, B = "ROOT_REPO:/a.py", "ROOT_REPO:/b.py"
FOUND = [FileSymbols(A, "python", ("f", "g", "h"), None), FileSymbols(B, "python", ("f",), "unknown")]
BLOCKED = KeyChanges([], [], [{"key": "brave"}], [{"key": "brave", "mentions": [], "count": 0}])
COMPLIES = Assessment("h1", "h1", [], [], [], [], [], [])


def test_a_close_breaks_the_ruleset_first_then_an_index_not_complete_then_symbols_then_removals_then_lint():
    uncovered = [{"name": "f", "address": A}]
    over = [{"rule": "F401", "path": A, "found": 1, "excused": 0}]

    assert COMPLIES.problem is None
    assert evolve(COMPLIES, recorded_hash=None, uncovered=uncovered).problem == "ruleset"
    assert evolve(COMPLIES, recorded_hash=None, keys=NOT_READ).problem == "ruleset"
    assert evolve(COMPLIES, uncovered=uncovered, keys=NOT_READ, over=over).problem == "index"
    assert evolve(COMPLIES, uncovered=uncovered, keys=BLOCKED, over=over).problem == "symbols"
    assert evolve(COMPLIES, keys=BLOCKED, over=over).problem == "removals"
    assert evolve(COMPLIES, over=over).problem == "lint"


def test_a_close_whose_reference_checks_the_index_could_not_answer_decides_nothing():
    unread = {"checked": False, "unread": True, "why": "the content index could not answer"}

    assert evolve(COMPLIES, rejects=unread).problem == "index"
    assert (
        evolve(COMPLIES, rejects={"checked": False, "why": "the content index is not complete"}).problem
        is None
    )


def test_the_evidence_of_a_close_records_every_fact_under_its_name_and_the_outcome():
    finding = Finding("F401", A, 3, "unused")
    assessed = Assessment(
        "h2",
        "h1",
        FOUND[:1],
        [{"name": "h", "address": A}],
        [finding],
        [{"rule": "F401", "path": A, "found": 1, "excused": 0}],
        [Nst("f", A, "asked for")],
        ["lxe-1"],
        BLOCKED,
        {"checked": True, "language": "english", "notes": [], "ck3_tiger": {"status": "absent"}},
    )

    assert assessed.evidence() == {
        "ruleset_hash": "h2",
        "recorded_ruleset_hash": "h1",
        "symbols": [{"address": A, "kind": "python", "added": ["f", "g", "h"], "problem": None}],
        "nsts": [{"name": "f", "address": A, "reason": "asked for"}],
        "uncovered": [{"name": "h", "address": A}],
        "findings": [{"rule": "F401", "path": A, "line": 3, "message": "unused"}],
        "over": [{"rule": "F401", "path": A, "found": 1, "excused": 0}],
        "lxes": ["lxe-1"],
        "keys": {"adds": [], "overrides": [], "removes": [{"key": "brave"}]},
        "index": {"state": "none"},
        "removals_blocked": [{"key": "brave", "mentions": [], "count": 0}],
        "game_rejects": {
            "checked": True,
            "language": "english",
            "notes": [],
            "ck3_tiger": {"status": "absent"},
        },
        "outcome": "ruleset",
    }
    assert COMPLIES.evidence()["outcome"] == "complies"
    assert COMPLIES.keys == NOTHING


def test_a_new_symbol_is_covered_by_an_nst_for_its_file_or_for_any_file_or_by_being_an_override():
    nsts = [Nst("f", A, "r"), Nst("g", None, "r")]

    assert _uncovered(FOUND, nsts, {("h", A)}) == [{"name": "f", "address": B}]
    assert _uncovered(FOUND, [], set()) == [
        {"name": "f", "address": A},
        {"name": "g", "address": A},
        {"name": "h", "address": A},
        {"name": "f", "address": B},
    ]


def test_only_findings_the_work_added_beyond_what_lxes_excuse_are_over():
    now = [
        Finding("F401", A, 1, "x"),
        Finding("F401", A, 2, "x"),
        Finding("F401", B, 1, "x"),
        Finding("E9", A, 1, "x"),
    ]
    before = [Finding("F401", A, 9, "x")]

    assert _over(now, before, {("F401", B): 1}) == [
        {"rule": "E9", "path": A, "found": 1, "excused": 0},
        {"rule": "F401", "path": A, "found": 1, "excused": 0},
    ]
    assert _over(now, before, {("F401", A): 1, ("F401", B): 1, ("E9", A): 1}) == []
    assert _over(before, now, {}) == []
    assert _over([*now, *now], before, {("F401", A): 2}) == [
        {"rule": "E9", "path": A, "found": 2, "excused": 0},
        {"rule": "F401", "path": A, "found": 3, "excused": 2},
        {"rule": "F401", "path": B, "found": 2, "excused": 0},
    ]


def test_a_line_of_renewals_is_followed_once_and_as_far_as_the_store_holds_it():
    def record(contract_id, renewed_from):
        return ContractRecord(
            contract_id, "t", "s", "ck3raven-dev", "ROOT_REPO", "i", ("WRITE",), (), "w", "agent", None, (),
            "t", renewed_from, (), "sig", "open", None, "sig",
        )  # fmt: skip

    class Store:
        def __init__(self, *records):
            self.records = {r.contract_id: r for r in records}

        def get(self, contract_id):
            return self.records.get(contract_id)

    def services(*records):
        return Services(None, None, None, Store(*records), *[None] * 11)

    looped = [record("ct-3", "ct-2"), record("ct-2", "ct-1"), record("ct-1", "ct-3")]

    assert lineage(services(*looped), looped[0]) == ["ct-3", "ct-2", "ct-1"]
    assert lineage(services(looped[0]), looped[0]) == ["ct-3", "ct-2"]  # ct-2 is no longer stored
