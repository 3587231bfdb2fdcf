"""The state database's schema, as the steps that made it: a database records how many it has applied, and
`SqliteState` applies the ones it lacks, each in one transaction with its version row."""

from typing import Final

MIGRATIONS: Final = (
    """
    CREATE TABLE approvals (
        approval_id TEXT PRIMARY KEY, kind TEXT NOT NULL, payload_digest TEXT NOT NULL,
        state TEXT NOT NULL, record TEXT NOT NULL);
    CREATE INDEX approvals_by_payload ON approvals (kind, payload_digest);
    CREATE TABLE contracts (
        contract_id TEXT PRIMARY KEY, session_id TEXT NOT NULL, status TEXT NOT NULL,
        created_at TEXT NOT NULL, record TEXT NOT NULL);
    CREATE INDEX contracts_by_created ON contracts (created_at);
    CREATE TABLE ended (record_id TEXT PRIMARY KEY, kind TEXT NOT NULL);
    CREATE TABLE carry_over (
        root TEXT NOT NULL, address TEXT NOT NULL, opens INTEGER NOT NULL, PRIMARY KEY (root, address));
    CREATE TABLE evidence (
        kind TEXT NOT NULL, name TEXT NOT NULL, document TEXT NOT NULL, PRIMARY KEY (kind, name));
    CREATE TABLE audit (
        seq INTEGER PRIMARY KEY AUTOINCREMENT, entry TEXT NOT NULL, prev TEXT NOT NULL,
        digest TEXT NOT NULL);
    CREATE TABLE audit_head (
        one INTEGER PRIMARY KEY CHECK (one = 1), seq INTEGER NOT NULL, digest TEXT NOT NULL);
    """,
    """
    CREATE TABLE quarantine (
        kind TEXT NOT NULL, record_id TEXT NOT NULL, record TEXT NOT NULL, reason TEXT NOT NULL,
        at TEXT NOT NULL DEFAULT (datetime('now')));
    """,
    """
    CREATE TABLE journal (
        seq INTEGER PRIMARY KEY AUTOINCREMENT, entry_id TEXT NOT NULL UNIQUE, contract_id TEXT,
        root TEXT NOT NULL, at TEXT NOT NULL, record TEXT NOT NULL, content BLOB);
    CREATE INDEX journal_by_contract ON journal (contract_id);
    CREATE INDEX journal_by_root ON journal (root, at);
    UPDATE contracts
        SET record = json_set(json_remove(record, '$.baseline_snapshot'), '$.repositories', json('[]'))
        WHERE CASE WHEN json_valid(record)
            THEN json_type(record, '$.baseline_snapshot') IS NOT NULL ELSE 0 END;
    """,
    """
    CREATE TABLE http_clients (
        name TEXT PRIMARY KEY, digest TEXT NOT NULL UNIQUE, created_at TEXT NOT NULL, revoked_at TEXT);
    ALTER TABLE evidence ADD COLUMN at TEXT;
    """,
)
"""Schema steps, in order; the database records how many it has applied."""
