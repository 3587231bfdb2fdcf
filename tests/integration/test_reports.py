"""The operator's views: `ck3raven contracts`, `audit` (with --verify) and `doctor`, on real state."""

import json
import sqlite3
from pathlib import Path

import pytest
from attrs import evolve

from adapters.server_lock import ServerLock
from adapters.sqlite_state import SqliteState
from app.cli import main
from tests.e2e.stdio import write_config
from tests.integration.test_state_store import entry


@pytest.fixture
def config(tmp_path: Path) -> Path:
    (tmp_path / "repo").mkdir()
    path = write_config(tmp_path, roots={"ROOT_REPO": tmp_path / "repo"})
    state = SqliteState(tmp_path / "state" / "ck3raven.db")
    for code, contract in (("WA-WRITE-S-001", "ct-1"), ("EN-WRITE-D-002", None), ("WA-WRITE-S-001", "ct-2")):
        state.audit.append(entry(code, contract))
    state.close()
    return path


def test_audit_filters_by_code_pattern_and_contract(config: Path, capsys):
    status = main(["audit", "--config", str(config), "--code", "WA-*", "--contract", "ct-2", "--json"])

    rows = json.loads(capsys.readouterr().out)["rows"]
    assert status == 0
    assert [(row["code"], row["contract_id"]) for row in rows] == [("WA-WRITE-S-001", "ct-2")]


def test_audit_of_a_contract_shows_the_compliance_evidence_of_its_close(config: Path, capsys):
    state = SqliteState(config.parent / "state" / "ck3raven.db")
    compliance = {"outcome": "complies", "ruleset_hash": "ab" * 32, "symbols": [], "nsts": [], "findings": []}
    state.evidence.put("close", "ct-2", json.dumps({"compliance": {**compliance, "lxes": ["lxe-1"]}}))
    state.close()

    main(["audit", "--config", str(config), "--contract", "ct-2"])

    assert "close evidence: outcome complies, ruleset abababababab" in capsys.readouterr().out


def test_audit_verify_holds_on_an_untouched_log(config: Path, capsys):
    status = main(["audit", "--config", str(config), "--verify"])

    assert (status, capsys.readouterr().out.strip()) == (0, "OK: 3 rows, chain intact")


@pytest.mark.parametrize(
    "tamper",
    [
        "DELETE FROM audit WHERE seq = 2",
        "UPDATE audit SET entry = replace(entry, 'D-002', 'S-001') WHERE seq = 2",
    ],
)
def test_audit_verify_detects_a_deleted_or_edited_row(config: Path, capsys, tamper: str):
    with sqlite3.connect(config.parent / "state" / "ck3raven.db") as db:
        db.execute(tamper)

    status = main(["audit", "--config", str(config), "--verify"])

    assert status == 1
    assert "row" in capsys.readouterr().out


def test_audit_since_refuses_a_time_it_cannot_read(config: Path, capsys):
    assert main(["audit", "--config", str(config), "--since", "yesterday"]) == 2


def test_contracts_says_so_when_there_are_none(config: Path, capsys):
    assert main(["contracts", "--config", str(config)]) == 0
    assert capsys.readouterr().out.strip() == "no contracts"


def test_doctor_on_a_good_config_passes_every_check_including_a_call_through_the_server(config: Path, capsys):
    status = main(["doctor", "--config", str(config)])

    lines = capsys.readouterr().out.splitlines()
    assert status == 0
    assert all(line.startswith("OK") for line in lines)
    assert any("self-test: pwd answered MCP-CFG-S-001" in line for line in lines)


def test_doctor_says_when_another_process_holds_the_state_database_locked(config: Path, capsys):
    holder = sqlite3.connect(config.parent / "state" / "ck3raven.db", isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")  # as a backup or a sqlite3 shell can
    try:
        status = main(["doctor", "--config", str(config)])
    finally:
        holder.execute("ROLLBACK")
        holder.close()

    lines = capsys.readouterr().out.splitlines()
    assert status == 1
    assert [line for line in lines if line.startswith("PROBLEM")] == [
        next(line for line in lines if "cannot take a change" in line)
    ]


def test_doctor_warns_when_root_repo_lies_below_its_repositorys_top(tmp_path: Path, capsys):
    from dulwich import porcelain

    porcelain.init(str(tmp_path / "checkout"))
    (tmp_path / "checkout" / "world").mkdir()
    config = write_config(tmp_path, roots={"ROOT_REPO": tmp_path / "checkout" / "world"})

    status = main(["doctor", "--config", str(config)])

    warnings = [line for line in capsys.readouterr().out.splitlines() if line.startswith("WARNING")]
    assert status == 0
    assert len(warnings) == 1
    assert "lies inside the git repository at" in warnings[0]


def test_doctor_on_a_broken_config_names_the_problem(tmp_path: Path, capsys):
    config = write_config(tmp_path, roots={"ROOT_REPO": tmp_path / "missing"})

    status = main(["doctor", "--config", str(config)])

    out = capsys.readouterr().out
    assert status == 1
    assert out.startswith("PROBLEM config")
    assert "is not an existing folder" in out


def test_doctor_flags_a_state_directory_others_can_read(config: Path, capsys):
    (config.parent / "state").chmod(0o755)

    status = main(["doctor", "--config", str(config)])

    assert status == 1
    assert "chmod 700" in capsys.readouterr().out


def test_contracts_lists_open_ones_and_marks_an_open_one_past_its_expiry(config: Path, capsys):
    from attrs import evolve

    from tests.integration.test_state_store import contract

    state = SqliteState(config.parent / "state" / "ck3raven.db")
    state.contracts.put(evolve(contract("ct-old"), expires_at="2000-01-01T00:00:00+00:00"))
    state.contracts.put(
        evolve(
            contract("ct-new"), created_at="2026-11-26T01:00:00+00:00", expires_at="2999-01-01T00:00:00+00:00"
        )
    )
    state.close()

    status = main(["contracts", "--config", str(config), "--json"])

    rows = json.loads(capsys.readouterr().out)
    assert status == 0
    assert [(row["contract_id"], row["status"], row["targets"]) for row in rows] == [
        ("ct-new", "open", ["ROOT_REPO:/a.py"]),
        ("ct-old", "expired", ["ROOT_REPO:/a.py"]),
    ]


def test_doctor_names_quarantined_state_records(config: Path, capsys):
    from tests.integration.test_state_store import contract

    state = SqliteState(config.parent / "state" / "ck3raven.db")
    state.contracts.put(contract("ct-bad"))
    with sqlite3.connect(config.parent / "state" / "ck3raven.db") as db:
        db.execute("UPDATE contracts SET record = 'null'")
    state.contracts.all()
    state.close()

    status = main(["doctor", "--config", str(config)])

    assert status == 1
    assert "ct-bad" in capsys.readouterr().out


def test_audit_verify_reports_a_row_that_is_not_json_without_failing(config: Path, capsys):
    with sqlite3.connect(config.parent / "state" / "ck3raven.db") as db:
        db.execute("UPDATE audit SET entry = 'not json' WHERE seq = 2")

    status = main(["audit", "--config", str(config), "--verify"])

    assert status == 1
    assert "row 2: its content was changed" in capsys.readouterr().out


def test_the_operators_views_never_change_the_state_they_read(config: Path, capsys):
    from tests.integration.test_state_store import contract

    state = SqliteState(config.parent / "state" / "ck3raven.db")
    state.contracts.put(contract("ct-bad"))
    state.close()
    with sqlite3.connect(config.parent / "state" / "ck3raven.db") as db:
        db.execute("UPDATE contracts SET record = 'null'")

    main(["contracts", "--config", str(config)])

    with sqlite3.connect(config.parent / "state" / "ck3raven.db") as db:
        assert db.execute("SELECT COUNT(*) FROM contracts").fetchone()[0] == 1


def test_doctor_warns_when_the_state_directory_lies_on_a_windows_drive(config: Path):
    from app.config import load
    from app.reports import doctor
    from tests.integration.test_setup import drive_at

    settings = load(config, cwd=config.parent)

    lines, status = doctor(settings, config, {}, mountinfo=drive_at(config.parent))

    assert status == 0
    assert f"OK      on Windows drives (WSL): ROOT_REPO ({config.parent})" in [
        line.split(";")[0] for line in lines
    ]
    warned = [line for line in lines if line.startswith("WARNING")]
    assert warned == [
        (
            f"WARNING the state directory {config.parent / 'state'} lies on the Windows drive at "
            f"{config.parent}: its SQLite store's locking and the approval socket need the distro's own "
            "disk; set state_dir to a folder there (the default, ~/.local/state/ck3raven, is)"
        )
    ]


def test_doctor_warns_when_a_root_lies_on_a_filesystem_that_ignores_case(
    tmp_path: Path, folding: Path, capsys
):
    (folding / "README.md").write_text("read me\n", encoding="utf-8")
    config = write_config(tmp_path, roots={"ROOT_REPO": folding})

    status = main(["doctor", "--config", str(config)])

    warnings = [line for line in capsys.readouterr().out.splitlines() if line.startswith("WARNING")]
    assert status == 0
    assert len(warnings) == 1
    assert warnings[0].startswith(f"WARNING ROOT_REPO {folding} lies on a filesystem that ignores case")


def test_doctor_warns_without_a_mode_or_an_active_playset_and_still_passes(tmp_path: Path, capsys):
    (tmp_path / "repo").mkdir()
    (tmp_path / "game").mkdir()
    config = write_config(
        tmp_path, mode=None, roots={"ROOT_REPO": tmp_path / "repo", "ROOT_GAME": tmp_path / "game"}
    )

    status = main(["doctor", "--config", str(config)])

    warnings = [line for line in capsys.readouterr().out.splitlines() if line.startswith("WARNING")]
    assert status == 0
    assert [("no mode is set" in w, "no active playset" in w) for w in warnings] == [
        (True, False),
        (False, True),
    ]


def test_audit_shows_one_row_per_call_with_its_reply_code_and_says_when_a_call_never_got_its_reply(
    config: Path, capsys
):
    state = SqliteState(config.parent / "state" / "ck3raven.db")
    call = {"server_id": "srv-1", "trace_id": "t9", "contract_id": "ct-9"}
    change = evolve(entry("", "ct-9"), **call, call=1, stage="change", reply_type="", notes=("write begun",))
    reply = evolve(entry("WA-WRITE-S-001", "ct-9"), **call, call=1)
    begun = evolve(change, call=2, notes=("write begun again",))  # its server ended before the reply
    state.audit.append_all([change, reply, begun])
    state.close()

    status = main(["audit", "--config", str(config), "--contract", "ct-9", "--json"])

    rows = json.loads(capsys.readouterr().out)["rows"]
    assert status == 0
    shown = [(r["call"], r["code"], r["stage"], r["notes"], r["rows"]) for r in rows]
    assert shown == [
        (1, "WA-WRITE-S-001", "reply", ["write begun"], [4, 5]),
        (2, "", "unanswered", ["write begun again"], [6]),
    ]


def test_audit_of_a_contract_it_never_knew_says_so_on_stderr_and_exits_2(config: Path, capsys):
    status = main(["audit", "--config", str(config), "--contract", "ct-nothing"])

    said = capsys.readouterr()
    assert status == 2
    assert said.out == ""
    assert said.err.strip() == "ck3raven: no contract ct-nothing in the audit log or the contracts"


def test_audit_shows_the_rows_it_can_read_and_names_a_corrupt_one_with_exit_2(config: Path, capsys):
    with sqlite3.connect(config.parent / "state" / "ck3raven.db") as db:
        db.execute("UPDATE audit SET entry = '{\"at\": 5' WHERE seq = 2")

    status = main(["audit", "--config", str(config)])

    said = capsys.readouterr()
    assert status == 2
    assert len(said.out.splitlines()) == 2
    assert said.err.strip() == "ck3raven: audit row 2 cannot be read (edited or damaged); see audit --verify"
    assert "Traceback" not in said.err


def test_audit_of_a_garbage_database_is_one_line_and_exit_2(config: Path, capsys):
    (config.parent / "state" / "ck3raven.db").write_bytes(b"not a database" * 100)

    status = main(["audit", "--config", str(config)])

    said = capsys.readouterr()
    assert status == 2
    assert said.err.startswith("ck3raven: the state database ")
    assert said.err.count("\n") == 1


def crashed(config: Path, server: str, calls: tuple[int, ...]) -> SqliteState:
    """The state database holding the rows of `server`'s `calls` (those between them missing)."""
    state = SqliteState(config.parent / "state" / "ck3raven.db")
    state.audit.append_all([evolve(entry(), server_id=server, call=call) for call in calls])
    return state


def test_verify_passes_on_the_gap_a_server_that_no_longer_runs_left_naming_it_and_writes_nothing(
    config: Path, capsys
):
    state = crashed(config, "srv-gone", (1, 4, 5))
    before = state.audit.rows()

    status = main(["audit", "--config", str(config), "--verify"])

    out = capsys.readouterr().out.splitlines()
    assert status == 0
    assert out[0] == "OK: 6 rows, chain intact"
    gap = "server srv-gone: calls 2-3 left no row: it ended before writing them (killed or crashed); "
    assert out[1:] == [gap + "the next server to start records the gap"]
    assert state.audit.rows() == before  # a check changes nothing it checks


def test_verify_fails_on_the_missing_calls_of_a_server_that_still_runs(config: Path, capsys):
    crashed(config, "srv-live", (1, 4, 5)).close()
    lock = ServerLock(config.parent / "state")
    lock.acquire("stdio", "srv-live")
    try:
        status = main(["audit", "--config", str(config), "--verify"])
    finally:
        lock.release()

    assert status == 1
    assert capsys.readouterr().out.splitlines() == ["server srv-live: call 2, 3 left no audit row"]


def test_verify_fails_when_a_row_of_a_server_that_ended_was_deleted_and_names_its_missing_calls(
    config: Path, capsys
):
    state = crashed(config, "srv-gone", (1, 2, 3, 4))
    state.execute("DELETE FROM audit WHERE json_extract(entry, '$.call') = 2")

    status = main(["audit", "--config", str(config), "--verify"])

    out = capsys.readouterr().out.splitlines()
    assert status == 1
    assert out == [
        "row 6: the row before it is missing or was changed",
        "server srv-gone: call 2 left no audit row",
    ]
