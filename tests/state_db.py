"""Read and change the server's state database as someone with access to the state directory would."""

import json
import sqlite3
from pathlib import Path
from typing import Any

_READ = {
    "contracts": "SELECT record FROM contracts WHERE contract_id = ?",
    "approvals": "SELECT record FROM approvals WHERE approval_id = ?",
}
_WRITE = {
    "contracts": "UPDATE contracts SET record = ? WHERE contract_id = ?",
    "approvals": "UPDATE approvals SET record = ? WHERE approval_id = ?",
}


def _db(state: Path) -> sqlite3.Connection:
    return sqlite3.connect(state / "ck3raven.db", isolation_level=None)


def evidence(state: Path, kind: str, name: str) -> dict[str, Any]:
    with _db(state) as db:
        row = db.execute("SELECT document FROM evidence WHERE kind = ? AND name = ?", (kind, name)).fetchone()
    return dict(json.loads(row[0]))


def write_evidence(state: Path, kind: str, name: str, document: dict[str, Any]) -> None:
    """Write a stored evidence document (a token record) as a hand in the database would, in place or new."""
    with _db(state) as db:
        db.execute(
            "INSERT OR REPLACE INTO evidence (kind, name, document) VALUES (?, ?, ?)",
            (kind, name, json.dumps(document)),
        )


def record(state: Path, table: str, record_id: str) -> dict[str, Any]:
    with _db(state) as db:
        (text,) = db.execute(_READ[table], (record_id,)).fetchone()
    return dict(json.loads(text))


def write_record(state: Path, table: str, record_id: str, data: dict[str, Any]) -> None:
    """Overwrite a stored record's JSON in place (ended-id memory and signatures are what refuse it)."""
    with _db(state) as db:
        db.execute(_WRITE[table], (json.dumps(data, sort_keys=True), record_id))
        if table == "approvals":
            db.execute("UPDATE approvals SET state = ? WHERE approval_id = ?", (data["state"], record_id))
