"""The audit chain's head, anchored in the operator log: each server logs the last row's number and digest
at start, at intervals while it serves, and at stop (`audit.anchor`). The database alone cannot show that it
was deleted, replaced by another, rolled back to a copy, or rewritten and re-hashed whole; the log it did not
write can (`SqliteAudit.against`). A shell running as the operator's user can rewrite the log as well: the
security model says so.
"""

import json
import threading
from pathlib import Path
from typing import Final, Protocol

import structlog

log = structlog.get_logger()
EVERY: Final = 60.0
"""Seconds between two anchors while a server runs (one is logged only when the head moved)."""


class Head(Protocol):
    """What an anchor needs: the audit log's last row (adapters.sqlite_audit.SqliteAudit)."""

    def head(self) -> tuple[int, str]: ...


class Anchors:
    """Logs `audit`'s head for the server `server_id`: now, every `every` seconds, and at `stop` (nothing
    when `audit` is None: a store that keeps no head)."""

    def __init__(self, audit: Head | None, server_id: str, *, every: float = EVERY) -> None:
        self._audit = audit
        self._server_id = server_id
        self._every = every
        self._stopped = threading.Event()
        self._last: tuple[int, str] | None = None

    def start(self) -> None:
        if self._audit is None:
            return
        self._anchor("start")
        threading.Thread(target=self._run, name="ck3raven-anchors", daemon=True).start()

    def stop(self) -> None:
        self._stopped.set()
        self._anchor("stop")

    def _run(self) -> None:
        while not self._stopped.wait(self._every):
            self._anchor("interval")

    def _anchor(self, moment: str) -> None:
        if self._audit is None:
            return
        try:
            head = self._audit.head()
        except Exception:  # a store that fails is reported by the calls themselves
            log.exception("audit.anchor_unread", server_id=self._server_id)
            return
        if moment == "interval" and head == self._last:
            return
        self._last = head
        log.info("audit.anchor", server_id=self._server_id, moment=moment, seq=head[0], digest=head[1])


def read_anchors(folder: Path) -> list[tuple[int, str, str]]:
    """Every anchor (row, digest, when) in the log files of `folder` (the current one and its rotations);
    unreadable files and lines are passed over."""
    found = []
    for path in sorted(folder.glob("ck3raven.log*")):
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        for line in text.splitlines():
            if '"audit.anchor"' not in line:
                continue
            try:
                record = json.loads(line)
                seq, digest = int(record["seq"]), str(record["digest"])
            except (ValueError, KeyError, TypeError):
                continue
            found.append((seq, digest, str(record.get("timestamp", "?"))))
    return found
