"""The audit log as the operator reads it: one row per tool call. A call may have several stored rows (a
governed change's, a contract decision's, each written in the decision's own transaction before the
reply, and the reply's own); they show as one, with the reply's code. A call whose rows hold no reply was
being answered when its server ended, and says so."""

from datetime import datetime

from attrs import evolve

from ports.audit import AuditRow

UNANSWERED = "unanswered"
"""The stage a call shows with when its rows hold no reply: it was being answered when its server ended."""


def one_per_call(rows: list[AuditRow]) -> list[tuple[AuditRow, list[int]]]:
    """The operator's rows: one per call (its rows, a change's or a decision's written before its reply,
    and the reply's, shown as one with the reply's code; a call whose rows hold no reply says so), with the
    numbers of the stored rows each stands for, in the order the calls began (a reply's row may be stored
    after later calls' rows: the store was locked when it was answered). Rows of no call (a checkpoint, a
    gap) stand alone."""
    groups: dict[object, list[AuditRow]] = {}
    for row in rows:
        entry = row.entry
        key = (entry.server_id, entry.call) if entry.server_id and entry.call is not None else row.seq
        groups.setdefault(key, []).append(row)
    shown = []
    for group in sorted(
        groups.values(), key=lambda rows: min(datetime.fromisoformat(r.entry.at) for r in rows)
    ):
        answered = [row for row in group if row.entry.stage in {"reply", "question"}]
        last = answered[-1] if answered else group[-1]
        targets = tuple(dict.fromkeys(t for row in group for t in row.entry.targets))
        notes = tuple(dict.fromkeys(n for row in group for n in row.entry.notes))
        contract = last.entry.contract_id or next(
            (r.entry.contract_id for r in group if r.entry.contract_id), None
        )
        stage = last.entry.stage if answered or last.entry.call is None else UNANSWERED
        entry = evolve(last.entry, targets=targets, notes=notes, contract_id=contract, stage=stage)
        shown.append((evolve(last, seq=group[0].seq, entry=entry), [row.seq for row in group]))
    return shown
