"""Renewal (law §13.2) and carry-over at open (law §13.3, §13.4): only an expired contract (or one an earlier
server process signed) is renewed, once, inheriting its declaration and its baseline; uncommitted work left
out of an open is reported, counted per file, and from the third open refused until declared."""

import json
from datetime import timedelta
from pathlib import Path

from attrs import evolve

from app.bootstrap import build_core
from domain.contracts.lifecycle import governing
from domain.replies import budget
from domain.replies.frozen import thaw
from domain.use_cases.contract_work import Cancel, Close, Renew, Status
from tests.fakes import Servers
from tests.gates import Desk, desk

A = ("ROOT_REPO:/src/a.py", "modify")
STRAY = "ROOT_REPO:/src/stray.py"


def expired(base: Path) -> tuple[Desk, str]:
    bench = desk(base)
    opened = bench.open(A, operations=("WRITE",), intent="first", work_declaration="the first work")
    bench.clock.advance(minutes=61)
    return bench, str(opened.data["contract_id"])


def test_an_expired_contract_is_renewed_with_its_declaration_and_its_baseline(tmp_path: Path):
    bench, old_id = expired(tmp_path)
    renewed = bench.ask(Renew(old_id, 30))
    old, new = bench.stored(old_id), bench.stored(renewed.data["contract_id"])

    assert renewed.code == "CT-GATE-S-006"
    assert (renewed.data["renewed_from"], new.renewed_from) == (old_id, old_id)
    assert bench.session.contract_id == new.contract_id
    assert (new.root_category, new.intent, new.operations, new.targets) == (
        old.root_category,
        old.intent,
        old.operations,
        old.targets,
    )
    assert (new.work_declaration, new.author) == (old.work_declaration, old.author)
    assert (new.baseline_sha, new.repositories) == (old.baseline_sha, old.repositories)
    assert new.expires_at == (bench.clock.now() + timedelta(minutes=30)).isoformat()
    assert bench.core.services.evidence.find("ruleset", new.contract_id) is not None


def test_an_expired_contract_seen_expired_is_recorded_so_and_still_renewed(tmp_path: Path):
    bench, old_id = expired(tmp_path)
    assert bench.ask(Status()).data["active"] is None
    bench.clock.advance(minutes=-120)  # a clock set back does not bring it back
    assert governing(bench.session, bench.core.services) is None
    recorded = bench.stored(old_id)
    renewed = bench.ask(Renew(old_id))

    assert recorded.status == "expired"
    assert renewed.code == "CT-GATE-S-006"


def test_a_contract_is_renewed_once_only(tmp_path: Path):
    bench, old_id = expired(tmp_path)
    first = bench.ask(Renew(old_id)).data["contract_id"]
    bench.ask(Cancel())
    again = bench.ask(Renew(old_id))

    assert (again.code, thaw(again.data)) == (
        "CT-GATE-I-006",
        {"contract_id": old_id, "problem": f"already renewed as {first}"},
    )


def test_only_an_expired_contract_is_renewed(tmp_path: Path):
    bench = desk(tmp_path)
    open_id = bench.open(A).data["contract_id"]
    still_open = bench.ask(Renew(str(open_id)))
    bench.ask(Cancel())
    cancelled = bench.ask(Renew(str(open_id)))
    closed_id = bench.open(A).data["contract_id"]
    bench.write("src/a.py", "a = 2\n")
    assert bench.ask(Close()).code == "CT-GATE-S-002"
    closed = bench.ask(Renew(str(closed_id)))
    unknown = bench.ask(Renew("ct-nowhere"))
    unnamed = bench.ask(Renew(None))

    assert thaw(still_open.data) == {"contract_id": open_id, "problem": "still open"}
    assert thaw(cancelled.data) == {
        "contract_id": open_id,
        "problem": "it was cancelled: only an expired contract is renewed",
    }
    assert thaw(closed.data)["problem"] == "it was closed: only an expired contract is renewed"
    assert thaw(unknown.data) == {"contract_id": "ct-nowhere", "problem": "no such contract"}
    assert thaw(unnamed.data) == {"contract_id": None, "problem": "no such contract"}
    assert {r.code for r in (still_open, cancelled, closed, unknown, unnamed)} == {"CT-GATE-I-006"}


def test_an_open_contract_an_earlier_server_process_signed_is_renewed(tmp_path: Path):
    bench = desk(tmp_path)
    old_id = str(bench.open(A).data["contract_id"])
    restarted = build_core(bench.settings, stored=bench.state, clock=bench.clock)  # a new key
    session = restarted.start_session("s-9")
    renewed = restarted.answer(session, Renew(old_id))

    assert renewed.code == "CT-GATE-S-006"
    assert renewed.data["renewed_from"] == old_id


def test_an_ended_contract_of_another_live_session_is_renewed_by_that_session_alone(tmp_path: Path):
    bench, old_id = expired(tmp_path)
    other = bench.core.start_session("s-2")  # another client of the same server (HTTP)
    taken = bench.ask(Renew(old_id), other)
    own = bench.ask(Renew(old_id))

    assert (taken.code, thaw(taken.data)) == (
        "CT-GATE-I-006",
        {
            "contract_id": old_id,
            "problem": "another session of this server holds its line of work: only that session renews it",
        },
    )
    assert own.code == "CT-GATE-S-006"


def test_an_expired_contract_of_another_running_server_is_renewed_only_once_that_server_ended(tmp_path: Path):
    bench = desk(tmp_path)
    bench.core.services = evolve(bench.core.services, servers=Servers("srv-a", set()))
    old_id = str(bench.open(A).data["contract_id"])
    bench.clock.advance(minutes=61)
    running = {"srv-a"}
    other = build_core(
        bench.settings, stored=bench.state, clock=bench.clock, servers=Servers("srv-b", running)
    )
    session = other.start_session("s-9")
    while_running = other.answer(session, Renew(old_id))
    running.clear()  # server A stopped (or was killed)
    after = other.answer(session, Renew(old_id))

    assert (while_running.code, while_running.data["problem"]) == (
        "CT-GATE-I-006",
        "another running server's session holds its line of work: only that session renews it",
    )
    assert after.code == "CT-GATE-S-006"


def stray(bench: Desk, name: str = "stray.py") -> None:
    (bench.repo / "src" / name).write_text("by hand\n", encoding="utf-8")


def test_work_left_out_of_an_open_is_reported_and_refused_from_the_third_open(tmp_path: Path):
    bench = desk(tmp_path)
    stray(bench)
    first = bench.open(A)
    bench.ask(Cancel())
    second = bench.open(A)
    bench.ask(Cancel())
    third = bench.open(A)
    declared = bench.open(A, (STRAY, "add"))

    assert thaw(first.data["carry_over"]) == {
        "severity": "informational",
        "clusters": {"unattributed": [{"address": STRAY, "kind": "add", "opens": 1}]},
        "template": [{"path": STRAY, "edit_kind": "add"}],
        "count": 1,
    }
    assert second.data["carry_over"]["severity"] == "warning"
    assert (third.code, third.data["required"], third.data["count"]) == ("CT-GATE-I-008", (STRAY,), 1)
    assert third.data["carry_over"]["severity"] == "required"
    assert declared.code == "CT-GATE-S-001"
    assert bench.core.services.ledger.load("ROOT_REPO") == {}


def test_a_renewal_neither_counts_carry_over_again_nor_takes_a_fresh_baseline(tmp_path: Path):
    bench = desk(tmp_path)
    stray(bench)
    old_id = str(bench.open(A).data["contract_id"])
    bench.clock.advance(minutes=61)
    stray(bench, "later.py")
    renewed = bench.ask(Renew(old_id))

    assert renewed.code == "CT-GATE-S-006"
    assert renewed.data["carry_over"] is None
    assert bench.core.services.ledger.load("ROOT_REPO") == {STRAY: 1}


def test_a_refusal_for_carry_over_lists_what_fits_a_third_of_the_room_and_counts_it_all(tmp_path: Path):
    bench = desk(tmp_path, budget_kib=4)
    names = [f"stray_{n:03}.py" for n in range(40)]
    for name in names:
        stray(bench, name)
    for _ in range(2):
        bench.open(A)
        bench.ask(Cancel())
    refused = bench.open(A)
    listed = list(refused.data["required"])
    everything = [f"ROOT_REPO:/src/{name}" for name in names]
    third = budget.room(4 * 1024) // 3

    assert (refused.code, refused.data["count"]) == ("CT-GATE-I-008", 40)
    assert listed == everything[: len(listed)]
    assert budget.rows_fitting(everything, third) == len(listed) < 40
    section = thaw(refused.data["carry_over"])
    rest = budget.room(4 * 1024) - budget.cost(listed)  # the carry-over section has the rest
    template = [{"path": address, "edit_kind": "add"} for address in everything]
    assert section["count"] == 40
    assert section["template"] == template[: budget.rows_fitting(template, rest // 2)]


def test_a_human_edit_a_contract_declared_and_closed_is_never_carry_over_until_it_changes_again(
    tmp_path: Path,
):
    bench = desk(tmp_path)
    by_hand = bench.repo / "src" / "a.py"
    assert bench.open(A).code == "CT-GATE-S-001"
    by_hand.write_text("a = 2\n", encoding="utf-8")
    closed = bench.ask(Close())
    later = []
    for _ in range(3):
        later.append(bench.open(("ROOT_REPO:/src/c.py", "add")))
        bench.ask(Close())
    by_hand.write_text("a = 3\n", encoding="utf-8")
    again = bench.open(("ROOT_REPO:/src/c.py", "add"))

    assert closed.code == "CT-GATE-S-002"
    assert [(reply.code, reply.data["carry_over"]) for reply in later] == [("CT-GATE-S-001", None)] * 3
    assert again.code == "CT-GATE-S-001"
    assert thaw(again.data["carry_over"])["clusters"] == {
        "unattributed": [{"address": A[0], "kind": "modify", "opens": 1}]
    }


def test_a_close_recorded_without_digests_attributes_nothing_to_its_contract(tmp_path: Path):
    bench = desk(tmp_path)
    contract_id = str(bench.open(A).data["contract_id"])
    (bench.repo / "src" / "a.py").write_text("a = 2\n", encoding="utf-8")
    assert bench.ask(Close()).code == "CT-GATE-S-002"
    evidence = bench.core.services.evidence
    stored = json.loads(evidence.document("close", contract_id) or "{}")
    del stored["digests"]
    evidence.put("close", contract_id, json.dumps(stored))
    reopened = bench.open(("ROOT_REPO:/src/c.py", "add"))

    assert thaw(reopened.data["carry_over"])["clusters"] == {
        "unattributed": [{"address": A[0], "kind": "modify", "opens": 1}]
    }
