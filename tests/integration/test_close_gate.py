"""The close gate (law §12; SPEC §7, §14) on a real repository: every net change must be declared with the
kind it has, a refusal lists its changes a page at a time with a cursor through the rest, a close that
agrees stores its evidence and only then marks the contract closed, and a store, a baseline or a history
that fails is an Error or an Invalid saying why, never a Success."""

import json
from pathlib import Path
from typing import Any

import pytest

from adapters.memory_state import MemoryState
from domain.contracts.baseline import ScopeTooDeep
from domain.replies import budget
from domain.replies.builder import Reply
from ports.errors import Unavailable
from tests.integration.repo_work import Work, committed


def plain(reply: Reply) -> dict[str, Any]:
    return dict(json.loads(json.dumps(reply.data)))


@pytest.fixture
def work(tmp_path: Path) -> Work:
    repo = tmp_path / "repo"
    repo.mkdir()
    committed(repo, {"src/a.py": "a = 1\n", "b.txt": "b\n"})
    return Work(tmp_path, repo)


def test_close_lists_each_undeclared_change_with_its_kind_and_source_and_the_contract_stays_open(work: Work):
    session = work.session()
    opened = work.open(session, ("src/a.py", "modify"), ("b.txt", "add"))
    work.write(session, "src/a.py", "a = 2\n")
    (work.root / "b.txt").write_text("changed\n", encoding="utf-8")  # declared, but as an add
    (work.root / "c.txt").write_text("new\n", encoding="utf-8")
    contract_id = opened.data["contract_id"]

    refused = work.close(session)

    assert refused.code == "CT-GATE-I-007"
    assert plain(refused) == {
        "contract_id": contract_id,
        "undeclared": [
            {"address": "ROOT_REPO:/b.txt", "kind": "modify", "source": "repository", "outside": True},
            {"address": "ROOT_REPO:/c.txt", "kind": "add", "source": "manifest", "outside": True},
        ],
        "count": 2,
        "unnamed": 0,
        "next_cursor": None,
    }
    assert work.call(session, "ck3_contract", "status").data["active"]["contract_id"] == contract_id
    assert work.state.evidence.document("close", contract_id) is None


def test_a_close_that_agrees_answers_its_changes_and_its_evidence_records_the_closed_contract(work: Work):
    session = work.session()
    contract_id = work.open(session, ("src/a.py", "modify")).data["contract_id"]
    work.write(session, "src/a.py", "a = 2\n")
    work.clock.advance(minutes=5)

    closed = work.close(session, contract_id=contract_id)

    change = {"address": "ROOT_REPO:/src/a.py", "kind": "modify", "source": "journal", "outside": False}
    artifact = f"evidence:close/{contract_id}"
    assert closed.code == "CT-GATE-S-002"
    assert plain(closed) == {
        "contract_id": contract_id,
        "changes": [change],
        "count": 1,
        "artifact": artifact,
    }
    record = work.state.contracts.get(contract_id)
    assert record is not None
    assert (record.status, record.closed_at) == ("closed", "2030-01-01T00:05:00+00:00")
    document = work.evidence("close", contract_id)
    evidence = json.loads(document)
    assert document == json.dumps(evidence, indent=1)  # one key or row a line, as an operator reads it
    assert evidence["contract"]["contract_id"] == contract_id
    assert evidence["contract"]["status"] == "closed"
    assert evidence["contract"]["targets"] == [{"address": "ROOT_REPO:/src/a.py", "edit_kind": "modify"}]
    assert (evidence["changes"], evidence["others"], evidence["transient"]) == ([change], [], [])
    assert (evidence["closed_at"], evidence["signature"]) == (record.closed_at, record.state_signature)
    assert evidence["compliance"]["outcome"] == "complies"
    assert work.call(session, "ck3_contract", "status").data["active"] is None


def test_the_changes_a_close_shows_and_its_artifact_fit_the_reply_budget(tmp_path: Path):
    repo = tmp_path / "repo"
    repo.mkdir()
    committed(repo, {"src/a.py": "a = 1\n"})
    work = Work(tmp_path, repo, budget_kib=4)
    session = work.session()
    names = [f"src/f{n:02}_{'x' * 10}.txt" for n in range(24)]
    contract_id = work.open(session, *((name, "add") for name in names)).data["contract_id"]
    for name in names:
        work.write(session, name, "x\n")

    closed = work.close(session)

    changes = [
        {"address": f"ROOT_REPO:/{name}", "kind": "add", "source": "journal", "outside": False}
        for name in names
    ]
    room = budget.room(work.core.services.budget, closed.data["artifact"])
    fitting = budget.rows_fitting(changes, room)
    assert fitting < budget.rows_fitting(changes, budget.room(work.core.services.budget)) < 24
    assert closed.code == "CT-GATE-S-002"
    assert closed.data["count"] == 24
    assert plain(closed)["changes"] == changes[:fitting]  # the artifact takes the room of one change
    assert json.loads(work.evidence("close", contract_id))["changes"] == changes


def _outside_work(work: Work, count: int) -> list[dict[str, object]]:
    for n in range(count):
        (work.root / "new" / f"n{n:03}.txt").parent.mkdir(exist_ok=True)
        (work.root / "new" / f"n{n:03}.txt").write_text("n\n", encoding="utf-8")
    return [
        {"address": f"ROOT_REPO:/new/n{n:03}.txt", "kind": "add", "source": "manifest", "outside": True}
        for n in range(count)
    ]


def test_a_refusal_lists_a_page_of_its_changes_and_its_cursor_leads_through_the_rest(work: Work):
    session = work.session()
    work.open(session, ("src/a.py", "modify"))
    undeclared = _outside_work(work, 170)

    first = work.close(session)
    rest = work.close(session, cursor=first.data["next_cursor"])
    midway = work.close(session, cursor="165")
    beyond = work.close(session, cursor="999999999")

    assert (first.data["count"], first.data["next_cursor"]) == (170, "150")
    assert plain(first)["undeclared"] == undeclared[:150]
    assert (plain(rest)["undeclared"], rest.data["next_cursor"]) == (undeclared[150:], None)
    assert (plain(midway)["undeclared"], midway.data["next_cursor"], midway.data["count"]) == (
        undeclared[165:],
        None,
        170,
    )
    assert (beyond.code, beyond.data["undeclared"], beyond.data["next_cursor"]) == ("CT-GATE-I-007", (), None)


def test_a_page_holds_what_fits_the_reply_budget_and_the_cursor_goes_on_from_there(tmp_path: Path):
    repo = tmp_path / "repo"
    repo.mkdir()
    committed(repo, {"src/a.py": "a = 1\n"})
    work = Work(tmp_path, repo, budget_kib=4)
    session = work.session()
    work.open(session, ("src/a.py", "modify"))
    undeclared = _outside_work(work, 40)

    first = work.close(session)

    shown = budget.rows_fitting(undeclared, budget.room(work.core.services.budget))
    assert 0 < shown < 40
    assert plain(first)["undeclared"] == undeclared[:shown]
    assert first.data["next_cursor"] == str(shown)
    assert plain(work.close(session, cursor=str(shown)))["undeclared"][0] == undeclared[shown]


@pytest.mark.parametrize("cursor", ["x", "-1", "1234567890", "1.5"])
def test_a_cursor_no_refusal_gave_is_invalid(work: Work, cursor: str):
    session = work.session()
    work.open(session, ("src/a.py", "modify"))
    (work.root / "c.txt").write_text("new\n", encoding="utf-8")

    refused = work.close(session, cursor=cursor)

    assert refused.code == "MCP-VAL-I-001"
    assert plain(refused) == {
        "errors": [{"field": "cursor", "problem": "cursor is the next_cursor of an earlier refusal"}]
    }


def test_close_names_only_the_open_contract_of_the_session(work: Work):
    session = work.session()
    work.open(session, ("src/a.py", "modify"))

    refused = work.close(session, contract_id="ct-someone-else")

    assert refused.code == "CT-GATE-I-006"
    assert plain(refused) == {"contract_id": "ct-someone-else", "problem": "not the open contract"}


def test_a_baseline_edited_in_the_state_store_no_longer_governs_and_close_says_so(work: Work):
    session = work.session()
    opened = work.open(session, ("src/a.py", "modify"))
    sha = opened.data["baseline_sha"]
    edited = json.loads(work.evidence("baseline", sha))
    edited["manifest"].pop("b.txt")
    work.state.data["evidence"][("baseline", sha)] = json.dumps(edited, sort_keys=True, separators=(",", ":"))

    refused = work.close(session)

    assert refused.code == "CT-GATE-I-006"
    assert plain(refused) == {
        "contract_id": opened.data["contract_id"],
        "problem": "its baseline in the state store was changed, so it no longer governs",
    }


def test_a_scope_nested_deeper_than_a_survey_goes_cannot_be_closed(work: Work):
    session = work.session()
    contract_id = work.open(session, ("src/a.py", "modify")).data["contract_id"]
    deep = work.root.joinpath(*(["d"] * 300))
    deep.mkdir(parents=True)

    refused = work.close(session)

    assert refused.code == "CT-GATE-I-006"
    assert plain(refused) == {"contract_id": contract_id, "problem": ScopeTooDeep.PROBLEM}


class FailingEvidence(MemoryState):
    """The in-memory state, whose evidence of `kind` can be neither read (`reads`) nor written."""

    def __init__(self, kind: str, *, reads: bool = False) -> None:
        super().__init__()
        self.failing: str | None = None
        put, document = self.evidence.put, self.evidence.document

        def failing_put(what: str, name: str, text: str) -> str:
            if what == self.failing:
                raise Unavailable("injected: the store failed here")
            return put(what, name, text)

        def failing_document(what: str, name: str) -> str | None:
            if reads and what == self.failing:
                raise Unavailable("injected: the store failed here")
            return document(what, name)

        self.kind = kind
        self.evidence.put = failing_put  # type: ignore[method-assign]
        self.evidence.document = failing_document  # type: ignore[method-assign]

    def fail(self) -> None:
        self.failing = self.kind


def test_a_store_that_fails_as_the_close_lands_answers_error_and_the_contract_stays_open(tmp_path: Path):
    repo = tmp_path / "repo"
    repo.mkdir()
    committed(repo, {"src/a.py": "a = 1\n"})
    state = FailingEvidence("close")
    work = Work(tmp_path, repo, state=state)
    session = work.session()
    contract_id = work.open(session, ("src/a.py", "modify")).data["contract_id"]
    work.write(session, "src/a.py", "a = 2\n")
    state.fail()

    failed = work.close(session)

    assert failed.code == "CT-GATE-E-002"
    assert plain(failed) == {"contract_id": contract_id}
    assert work.state.contracts.get(contract_id).status == "open"  # type: ignore[union-attr]


def test_a_baseline_the_store_cannot_read_at_close_is_an_error_naming_the_root(tmp_path: Path):
    repo = tmp_path / "repo"
    repo.mkdir()
    committed(repo, {"src/a.py": "a = 1\n"})
    state = FailingEvidence("baseline", reads=True)
    work = Work(tmp_path, repo, state=state)
    session = work.session()
    work.open(session, ("src/a.py", "modify"))
    state.fail()

    failed = work.close(session)

    assert failed.code == "CT-GATE-E-001"
    assert plain(failed) == {"root": "ROOT_REPO"}
