"""Retention: audit rows and evidence past their days are pruned, a checkpoint row chained in their place
keeps `--verify` whole; an open contract's evidence is never pruned; the log is rotated by size with the
newest anchor kept."""

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

from attrs import evolve

from adapters.audit_anchors import read_anchors
from adapters.sqlite_state import SqliteState
from app.config import RetentionSettings
from app.retention import prune, rotate
from tests.integration.test_state_store import entry

NOW = datetime(2030, 6, 1, tzinfo=UTC)


def written(state: SqliteState, days_ago: int, code: str) -> None:
    state.audit.append(evolve(entry(code), at=(NOW - timedelta(days=days_ago)).isoformat()))


def test_pruning_old_audit_rows_leaves_a_chained_checkpoint_and_a_chain_that_verifies(tmp_path: Path):
    state = SqliteState(tmp_path / "ck3raven.db")
    for days_ago, code in ((400, "A-1"), (380, "A-2"), (10, "A-3")):
        written(state, days_ago, code)
    (_, pruned_digest), *_ = state.execute("SELECT seq, digest FROM audit WHERE seq = 2")

    pruned = prune(RetentionSettings(audit_days=365, evidence_days=0), state, NOW)

    rows = state.audit.rows()
    assert pruned == (2, 0)
    assert [(row.seq, row.entry.code, row.entry.stage) for row in rows] == [
        (3, "A-3", "reply"),
        (4, "", "checkpoint"),
    ]
    assert rows[-1].entry.notes[0].endswith(f"row 2's digest was {pruned_digest}")
    assert state.audit.verify() == []


def test_a_row_deleted_after_pruning_is_still_found(tmp_path: Path):
    state = SqliteState(tmp_path / "ck3raven.db")
    for days_ago, code in ((400, "A-1"), (10, "A-2"), (5, "A-3")):
        written(state, days_ago, code)
    prune(RetentionSettings(audit_days=365, evidence_days=0), state, NOW)
    state.execute("DELETE FROM audit WHERE seq = 2")

    assert state.audit.verify() == [
        "row 3: the rows before it are missing",
        "row 3: the row before it is missing or was changed",
    ]


def test_old_evidence_is_pruned_but_never_an_open_contracts(tmp_path: Path):
    state = SqliteState(tmp_path / "ck3raven.db")
    state.evidence.put("close", "ct-old", "{}")
    state.evidence.put("baseline", "sha-open", "{}")
    state.execute(
        "INSERT INTO contracts VALUES ('ct-open', 's', 'open', '2030-01-01', ?)",
        (json.dumps({"baseline_sha": "sha-open"}),),
    )

    pruned = prune(
        RetentionSettings(audit_days=0, evidence_days=30), state, datetime.now(UTC) + timedelta(days=31)
    )

    assert pruned == (0, 1)
    assert state.evidence.find("close", "ct-old") is None
    assert state.evidence.find("baseline", "sha-open") is not None


def test_a_log_over_its_size_is_rotated_and_the_fresh_one_begins_with_the_newest_anchor(tmp_path: Path):
    log_file = tmp_path / "ck3raven.log"
    anchor = {"event": "audit.anchor", "seq": 7, "digest": "d" * 64, "timestamp": "2030-01-01T00:00:00Z"}
    log_file.write_text(json.dumps(anchor) + "\n" + "x" * (1024 * 1024 + 1) + "\n")
    (tmp_path / "ck3raven.log.1").write_text("older\n")

    rotated = rotate(log_file, RetentionSettings(log_megabytes=1, log_files=2))

    assert rotated
    assert (tmp_path / "ck3raven.log.2").read_text() == "older\n"
    assert read_anchors_of(log_file) == [(7, "d" * 64, "2030-01-01T00:00:00Z")]
    assert len(read_anchors(tmp_path)) == 2


def read_anchors_of(log_file: Path) -> list[tuple[int, str, str]]:
    only = log_file.parent / "only"
    only.mkdir()
    (only / "ck3raven.log").write_text(log_file.read_text())
    return read_anchors(only)
