"""Retention (`[retention]`): audit rows and evidence older than their days are pruned at each start (0 keeps
them for ever), the audit log keeping a checkpoint row in their place; the operator log is rotated by size
at each start, the rotated files kept (`log_files`), the newest anchor of the audit chain copied into the
fresh file so the chain's head is never rotated out of reach."""

from datetime import UTC, datetime, timedelta
from pathlib import Path

import structlog

from adapters.sqlite_state import SqliteState
from app.config import RetentionSettings

log = structlog.get_logger()


def prune(retention: RetentionSettings, state: SqliteState, now: datetime | None = None) -> tuple[int, int]:
    """Prune what is past its days: (audit rows, evidence documents) removed. Failures are only logged."""
    moment = now or datetime.now(UTC)
    rows = documents = 0
    try:
        if retention.audit_days:
            cutoff = (moment - timedelta(days=retention.audit_days)).isoformat()
            rows = state.audit.prune(cutoff, moment.isoformat())
        if retention.evidence_days:
            documents = state.evidence.prune((moment - timedelta(days=retention.evidence_days)).isoformat())
    except Exception:  # a chore: the server serves on, and the log says why nothing was pruned
        log.exception("retention.failed")
        return rows, documents
    if rows or documents:
        log.info("retention.pruned", audit_rows=rows, evidence=documents)
    return rows, documents


def rotate(log_file: Path, retention: RetentionSettings) -> bool:
    """Rotate `log_file` when it is over `log_megabytes`: it becomes `.1` (the older ones shift, the oldest
    past `log_files` goes), and the fresh file starts with the newest anchor line. Whether it rotated."""
    try:
        if log_file.stat().st_size <= retention.log_megabytes * 1024 * 1024:
            return False
    except OSError:
        return False
    anchor = _newest_anchor(log_file)
    log_file.with_name(f"{log_file.name}.{retention.log_files}").unlink(missing_ok=True)  # the oldest kept
    for number in range(retention.log_files - 1, 0, -1):
        older = log_file.with_name(f"{log_file.name}.{number}")
        if older.exists():
            older.replace(log_file.with_name(f"{log_file.name}.{number + 1}"))
    log_file.replace(log_file.with_name(f"{log_file.name}.1"))
    if anchor:
        descriptor = log_file.open("a", encoding="utf-8")
        with descriptor:
            descriptor.write(anchor + "\n")
        log_file.chmod(0o600)
    return True


def _newest_anchor(log_file: Path) -> str | None:
    found = None
    with log_file.open(encoding="utf-8", errors="replace") as lines:
        for line in lines:
            if '"audit.anchor"' in line:
                found = line.rstrip("\n")
    return found
