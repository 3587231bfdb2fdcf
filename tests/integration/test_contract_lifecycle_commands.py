"""Cancel, status and list (law §13; SPEC §7): cancel ends only the session's open contract, status shows it
(its targets cut to half the reply's room) and the last one it closed with the close's evidence, and list
shows every stored contract in the order they were made, inert ones marked."""

from pathlib import Path

from attrs import evolve

from domain.contracts import records
from domain.contracts.lifecycle import active_contract, governing
from domain.replies import budget
from domain.replies.frozen import thaw
from domain.use_cases.contract_work import Cancel, Close, ListContracts, Status
from domain.vocabulary import Mode
from ports.errors import Unavailable
from tests.gates import desk

A = ("ROOT_REPO:/src/a.py", "modify")


def test_cancelling_names_only_the_sessions_open_contract(tmp_path: Path):
    bench = desk(tmp_path)
    nothing = bench.ask(Cancel())
    opened = bench.open(A).data["contract_id"]
    wrong = bench.ask(Cancel("ct-not-this-one"))
    still = bench.ask(Status()).data["active"]

    assert (nothing.code, nothing.data) == (
        "CT-GATE-I-006",
        {"contract_id": None, "problem": "not the open contract"},
    )
    assert (wrong.code, wrong.data) == (
        "CT-GATE-I-006",
        {"contract_id": "ct-not-this-one", "problem": "not the open contract"},
    )
    assert still is not None
    assert still["contract_id"] == opened


def test_a_cancelled_contract_is_recorded_ended_at_that_time_and_governs_no_more(tmp_path: Path):
    bench = desk(tmp_path)
    opened = bench.open(A).data["contract_id"]
    bench.clock.advance(minutes=3)
    cancelled = bench.ask(Cancel(str(opened)))
    again = bench.ask(Cancel())
    record = bench.stored(opened)

    assert (cancelled.code, cancelled.data) == ("CT-GATE-S-003", {"contract_id": opened})
    assert (record.status, record.closed_at) == ("cancelled", bench.clock.now().isoformat())
    assert records.genuine(record, bench.core.services.authority.signer)
    assert again.code == "CT-GATE-I-006"
    assert bench.write("src/a.py", "a = 2\n").reply_type.value == "D"


def test_an_empty_contract_id_cancels_the_open_contract(tmp_path: Path):
    bench = desk(tmp_path)
    opened = bench.open(A).data["contract_id"]

    assert bench.ask(Cancel()).data == {"contract_id": opened}
    assert bench.stored(opened).status == "cancelled"


def test_status_shows_nothing_before_a_contract_and_the_open_one_while_it_is_open(tmp_path: Path):
    bench = desk(tmp_path)
    before = bench.ask(Status())
    opened = bench.open(A).data["contract_id"]
    during = thaw(bench.ask(Status()).data)

    assert (before.code, before.data) == ("CT-GATE-S-004", {"active": None, "last_closed": None})
    assert during["last_closed"] is None
    assert during["active"]["contract_id"] == opened
    assert during["active"]["targets"] == [{"address": "ROOT_REPO:/src/a.py", "edit_kind": "modify"}]


def test_status_after_a_close_names_the_closed_contract_its_time_evidence_and_compliance(tmp_path: Path):
    bench = desk(tmp_path)
    opened = bench.open(A).data["contract_id"]
    bench.write("src/a.py", "a = 2\n")
    bench.clock.advance(minutes=1)
    closed = bench.ask(Close())
    shown = bench.ask(Status()).data
    evidence = bench.core.services.evidence

    assert closed.code == "CT-GATE-S-002", closed
    assert shown["active"] is None
    last = shown["last_closed"]
    assert (last["contract_id"], last["closed_at"]) == (opened, bench.clock.now().isoformat())
    assert last["evidence"] == evidence.find("close", str(opened)) is not None
    assert last["compliance"] is not None
    assert last["compliance"]["ruleset_hash"]


def test_status_shows_no_last_closed_contract_when_it_was_cancelled_or_edited_since(tmp_path: Path):
    bench = desk(tmp_path)
    bench.open(A)
    bench.ask(Cancel())
    after_cancel = bench.ask(Status()).data

    other = desk(tmp_path / "other")
    opened = other.open(A).data["contract_id"]
    other.ask(Close())
    closed = other.stored(opened)
    other.state.data["contracts"][opened] = evolve(closed, intent="something else")  # edited on disk
    after_edit = other.ask(Status()).data

    assert after_cancel == {"active": None, "last_closed": None}
    assert after_edit == {"active": None, "last_closed": None}


def test_status_lists_the_targets_that_fit_half_the_room_and_counts_them_all(tmp_path: Path):
    bench = desk(tmp_path, budget_kib=4)
    targets = [(f"ROOT_REPO:/src/new_{n:03}.py", "add") for n in range(60)]
    bench.open(*targets, operations=("WRITE",))
    active = thaw(bench.ask(Status()).data["active"])

    half = budget.room(4 * 1024) // 2
    listed = active["targets"]
    declared = [{"address": address, "edit_kind": kind} for address, kind in targets]
    assert active["target_count"] == 60
    assert listed == declared[: len(listed)]
    assert budget.rows_fitting(listed, half) == len(listed) < 60
    assert budget.rows_fitting(declared[: len(listed) + 1], half) == len(listed)


def test_list_shows_every_contract_in_the_order_made_with_the_inert_ones_marked(tmp_path: Path):
    bench = desk(tmp_path)
    first = bench.open(A).data["contract_id"]
    bench.ask(Cancel())
    bench.clock.advance(minutes=1)
    second = bench.open(A).data["contract_id"]
    stored = bench.stored(first)
    bench.state.data["contracts"][first] = evolve(stored, intent="edited on disk")
    earlier = "2029-12-31T23:00:00+00:00"  # stored last, made first
    bench.core.services.contracts.put(evolve(stored, contract_id="ct-copied", created_at=earlier))
    listed = bench.ask(ListContracts())

    assert listed.code == "CT-GATE-S-005"
    assert thaw(listed.data) == {
        "contracts": [
            {
                "contract_id": "ct-copied",
                "root_category": "ROOT_REPO",
                "status": "cancelled",
                "created_at": earlier,
                "inert": True,
                "renewed_from": None,
            },
            {
                "contract_id": first,
                "root_category": "ROOT_REPO",
                "status": "cancelled",
                "created_at": stored.created_at,
                "inert": True,
                "renewed_from": None,
            },
            {
                "contract_id": second,
                "root_category": "ROOT_REPO",
                "status": "open",
                "created_at": bench.stored(second).created_at,
                "inert": False,
                "renewed_from": None,
            },
        ],
        "count": 3,
    }


def test_a_contract_past_its_expiry_stops_governing_even_when_its_expiry_cannot_be_recorded(tmp_path: Path):
    bench = desk(tmp_path)
    opened = bench.open(A).data["contract_id"]
    bench.clock.advance(minutes=61)
    contracts = bench.core.services.contracts

    def failing(record: object) -> None:
        raise Unavailable("injected: the store is down")

    contracts.put = failing  # type: ignore[method-assign]
    shown = bench.ask(Status())

    assert (shown.code, shown.data["active"]) == ("CT-GATE-S-004", None)
    assert bench.stored(opened).status == "open"


def test_the_verified_contract_is_kept_while_nothing_is_written_to_the_store(tmp_path: Path):
    bench = desk(tmp_path)
    opened = bench.open(A).data["contract_id"]
    contracts = bench.core.services.contracts
    reads: list[str] = []
    read = contracts.get

    def counted(contract_id: str) -> object:
        reads.append(contract_id)
        return read(contract_id)

    contracts.get = counted  # type: ignore[method-assign]
    for _ in range(3):
        assert governing(bench.session, bench.core.services) is not None
    kept = len(reads)
    bench.state.data["contracts"][opened] = evolve(bench.stored(opened), intent="edited")  # no version change
    still = governing(bench.session, bench.core.services)

    assert kept == 0
    assert still is not None
    assert still.intent == "rework"


def test_status_of_a_closed_contract_whose_evidence_was_pruned_shows_none(tmp_path: Path):
    bench = desk(tmp_path)
    opened = bench.open(A).data["contract_id"]
    bench.write("src/a.py", "a = 2\n")
    bench.ask(Close())
    del bench.state.data["evidence"][("close", opened)]  # retention prunes old evidence
    last = thaw(bench.ask(Status()).data["last_closed"])

    assert last == {
        "contract_id": opened,
        "closed_at": bench.stored(opened).closed_at,
        "evidence": None,
        "compliance": None,
    }


def test_a_contract_opened_in_another_mode_is_no_contract_for_enforcement(tmp_path: Path):
    bench = desk(tmp_path)
    opened = bench.open(A).data["contract_id"]
    governed = active_contract(bench.session, bench.core.services)
    bench.session.mode = Mode.CK3LENS  # the session's mode changed since the contract opened
    other_mode = active_contract(bench.session, bench.core.services)
    bench.session.mode = None
    no_mode = active_contract(bench.session, bench.core.services)

    assert governed is not None
    assert governed.contract_id == opened
    assert (other_mode, no_mode) == (None, None)
