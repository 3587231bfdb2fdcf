"""The close gate (law §12; SPEC §7, §14): reconcile the work done with the work declared, then close.

Every net change in the scope since open (`domain.contracts.reconciliation`: the journal, each repository
in scope and the manifest, in every layout) must match a declared target and edit kind, unless another
open contract journaled it; undeclared work is Invalid, listed with its kind and source, and keeps the
contract open. Then compliance (Phase
1.5, `domain.compliance.closeout`): the lint ruleset is the one recorded at open, every new symbol has an
NST, and lint findings in changed files are within live LXEs; a refusal is recorded as evidence too. A
close that agrees stores its evidence in the state store first; only then is the contract marked closed
and S answered.
"""

import json
from collections import Counter
from contextlib import suppress
from typing import Final, cast

from domain.compliance import closeout
from domain.compliance.tokens import EVERY_SYMBOL
from domain.contracts import closed_work, reconciliation, records
from domain.contracts.baseline import BaselineChanged, ScopeTooDeep
from domain.contracts.lifecycle import owned, summary
from domain.contracts.records import Status
from domain.failures import history_failure
from domain.replies import budget
from domain.replies.builder import Reply, ReplyBuilder
from domain.replies.refusal import Refused
from domain.services import Services
from domain.session import Session
from ports.contracts import ContractRecord
from ports.errors import PortError

PAGE: Final = 150
"""The most undeclared changes or uncovered symbols one refusal lists (the rest by `next_cursor`)."""
WHOLE_FILE: Final = 10
"""A file with more uncovered symbols than this is declared whole (EVERY_SYMBOL) in a refusal's request."""


def close_contract(
    session: Session, services: Services, contract_id: str | None, cursor: str | None = None
) -> Reply:
    """Reconcile actual work with the declaration; close the contract when they agree, else raise Refused.
    A refusal lists at most PAGE of what it refuses, from `cursor` on (the decision is always taken on the
    whole list)."""
    record = owned(session, services, contract_id)
    start = _offset(cursor)
    if start is None:
        problem = "cursor is the next_cursor of an earlier refusal"
        raise Refused.invalid("MCP-VAL-I-001", {"errors": [{"field": "cursor", "problem": problem}]})
    found, changes = _declared(session, services, record, start)
    assessed = _complies(session, services, (record, start), changes, found.at_open)
    authority = services.authority
    closed = records.with_status(record, Status.CLOSED, authority.clock.now(), authority.signer)
    evidence = {
        "contract": json.loads(json.dumps(summary(closed))),
        "changes": changes,
        "others": found.others,
        "transient": found.transient,
        "closed_at": closed.closed_at,
        "signature": closed.state_signature,
        "compliance": assessed.evidence(),
        "digests": closed_work.digests(session, record.root_category, changes),
    }
    addresses = [str(change["address"]) for change in changes]
    try:
        with services.transactions.atomic():  # the evidence and the closed record land together, or neither
            artifact = services.evidence.put("close", record.contract_id, json.dumps(evidence, indent=1))
            closed_work.index(services, session, record.root_category, record.contract_id, addresses)
            services.contracts.put(closed)
    except PortError:
        raise Refused.error("CT-GATE-E-002", {"contract_id": record.contract_id}) from None
    # every change is in the evidence (data.artifact): the reply shows those that fit and counts them all
    shown = changes[: budget.rows_fitting(changes, budget.room(services.budget, artifact))]
    data = {"contract_id": record.contract_id, "changes": shown, "count": len(changes), "artifact": artifact}
    return ReplyBuilder().success("CT-GATE-S-002", data)


def _declaring(uncovered: list[dict[str, str]]) -> list[dict[str, str]]:
    """The `symbols` of an NST declaring these: a file with many of them named once, by EVERY_SYMBOL."""
    per_file = Counter(item["address"] for item in uncovered)
    whole = {address for address, count in per_file.items() if count > WHOLE_FILE}
    named = [item for item in uncovered if item["address"] not in whole]
    return [
        *({"name": EVERY_SYMBOL, "path": address} for address in sorted(whole)),
        *({"name": item["name"], "path": item["address"]} for item in named),
    ]


def _offset(cursor: str | None) -> int | None:
    """Where a page starts: 0 without a cursor; None for a cursor no refusal gave."""
    if cursor is None:
        return 0
    return int(cursor) if cursor.isdecimal() and len(cursor) <= 9 else None  # noqa: PLR2004 - a count


def _page(items: list[dict[str, object]], start: int, space: int) -> dict[str, object]:
    """A refusal's list from `start`, at most PAGE of it and what fits `space` bytes, and the cursor of the
    rest (None: no rest)."""
    end = start + budget.rows_fitting(items[start : start + PAGE], space)
    return {"shown": items[start:end], "next_cursor": str(end) if end < len(items) else None}


def _declared(
    session: Session, services: Services, record: ContractRecord, start: int
) -> tuple[reconciliation.Reconciled, list[dict[str, object]]]:
    """What the scope shows and the contract's own changes, when every one of them is declared with the
    kind it has; raises Refused listing the rest otherwise."""
    try:
        found = reconciliation.reconcile(session, services, record)
    except ScopeTooDeep:
        problem = ScopeTooDeep.PROBLEM
        raise Refused.invalid(
            "CT-GATE-I-006", {"contract_id": record.contract_id, "problem": problem}
        ) from None
    except BaselineChanged:
        problem = "its baseline in the state store was changed, so it no longer governs"
        raise Refused.invalid(
            "CT-GATE-I-006", {"contract_id": record.contract_id, "problem": problem}
        ) from None
    except PortError:
        raise Refused(history_failure(record.root_category)) from None
    changes = closeout.agent_work(session, services, record.root_category, found.changes)
    key = records.address_key(ignores_case=session.world.ignores_case(record.root_category))
    declared = {key(t.address): t.edit_kind for t in record.targets}
    undeclared = [c for c in changes if declared.get(key(str(c["address"]))) != c["kind"]]
    if undeclared or found.unnamed:  # decided on the whole list, in every layout alike
        page = _page(undeclared, start, budget.room(services.budget))
        data = {"contract_id": record.contract_id, "undeclared": page["shown"], "count": len(undeclared)}
        data |= {"unnamed": found.unnamed, "next_cursor": page["next_cursor"]}
        raise Refused.invalid("CT-GATE-I-007", data)
    return found, changes


def _complies(
    session: Session,
    services: Services,
    paged: tuple[ContractRecord, int],
    changes: list[dict[str, object]],
    at_open: closeout.AtOpen,
) -> closeout.Assessment:
    """The compliance facts of work that complies; raises Refused (Invalid, or the Error) otherwise."""
    record, start = paged
    try:
        assessed = closeout.assess(session, services, record, changes, at_open)
    except PortError:
        raise Refused.error("CT-GATE-E-003", {"contract_id": record.contract_id}) from None
    if assessed.problem is None:
        return assessed
    raise Refused(_refused(services, (record.contract_id, start), changes, assessed))


def _refused(
    services: Services,
    paged: tuple[str, int],
    changes: list[dict[str, object]],
    assessed: closeout.Assessment,
) -> Reply:
    """The Invalid reply for work that does not comply, once its evidence is stored (the last refusal of
    a contract is kept, so the operator sees why it stayed open)."""
    contract_id, start = paged
    document = {"contract_id": contract_id, "changes": changes, "compliance": assessed.evidence()}
    with suppress(PortError):  # the refusal stands even if its record cannot be kept
        services.evidence.put("close-refused", contract_id, json.dumps(document, indent=1))
    if assessed.problem == "ruleset":
        return ReplyBuilder().invalid(
            "CT-GATE-I-011",
            {
                "contract_id": contract_id,
                "recorded": assessed.recorded_hash,
                "current": assessed.ruleset_hash,
            },
        )
    if assessed.problem == "index":  # decided on nothing: the same call decides once the index is complete
        retry = {"tool": "ck3_contract", "arguments": {"command": "close", "contract_id": contract_id}}
        state = assessed.keys.index
        data = {"contract_id": contract_id, "state": state["state"], "pending": state.get("pending", 0)}
        return ReplyBuilder().invalid("CT-GATE-I-014", {**data, "request": retry})
    if assessed.problem == "symbols":
        # the ready NST call repeats the page's symbols (collapsed by file): each half of what is left
        space = budget.room(services.budget) // 2
        page = _page(cast("list[dict[str, object]]", assessed.uncovered), start, space)
        shown = cast("list[dict[str, str]]", page["shown"])
        arguments = {
            "command": "nst",
            "contract_id": contract_id,
            "symbols": _declaring(shown),
            "reason": "<why these symbols are intended>",
        }
        request = {"tool": "ck3_token", "arguments": arguments}
        data = {"contract_id": contract_id, "uncovered": shown, "count": len(assessed.uncovered)}
        return ReplyBuilder().invalid(
            "CT-GATE-I-009", {**data, "request": request, "next_cursor": page["next_cursor"]}
        )
    if assessed.problem == "removals":
        return _removals_refused(contract_id, start, assessed.keys.blocked, budget.room(services.budget) // 2)
    return _lint_refused(contract_id, start, assessed, budget.room(services.budget))


def _lint_refused(contract_id: str, start: int, assessed: closeout.Assessment, space: int) -> Reply:
    """CT-GATE-I-010: what exceeds the live LXEs (per rule and file, what fits a third of `space`) and a
    page of the findings (from `start`, in the rest), each counted in full."""
    findings = [
        {"rule": f.rule, "path": f.path, "line": f.line, "message": f.message} for f in assessed.findings
    ]
    over = assessed.over[: budget.rows_fitting(assessed.over, space // 3)]
    fixes = _fixes(over)
    ways = {
        "fixes": fixes[: budget.rows_fitting(fixes, space // 4)] if fixes else [],
        "lxe": _lxe(contract_id, over),
    }
    page = _page(findings, start, space - budget.cost(over) - budget.cost(ways) - budget.cost(ways["lxe"]))
    data = {"contract_id": contract_id, "over": over, "over_count": len(assessed.over)} | ways
    data["request"] = ways["lxe"]  # the one call that would let the close succeed as the work stands
    data |= {"findings": page["shown"], "count": len(findings), "next_cursor": page["next_cursor"]}
    return ReplyBuilder().invalid("CT-GATE-I-010", data)


FIXED_BY_A_WRITE: Final = frozenset({"CK3-BOM"})
"""Rules a plain write of the file mends: it adds the byte-order mark the file's kind needs."""


def _fixes(over: list[dict[str, object]]) -> list[dict[str, object]]:
    """For each file over the LXEs for a rule a write mends, the write that mends it."""
    return [
        {
            "rule": row["rule"],
            "path": row["path"],
            "request": {
                "tool": "ck3_file",
                "arguments": {
                    "command": "write",
                    "path": row["path"],
                    "content": "<its text, from ck3_read>",
                },
            },
            "note": "a write of the file's own text adds the byte-order mark its kind needs",
        }
        for row in over
        if row["rule"] in FIXED_BY_A_WRITE
    ]


def _lxe(contract_id: str, over: list[dict[str, object]]) -> dict[str, object]:
    """The ck3_token call that excuses the findings shown over the LXEs, if they are intended."""
    arguments = {
        "command": "lxe",
        "contract_id": contract_id,
        "rules": sorted({str(row["rule"]) for row in over}),
        "paths": sorted({str(row["path"]) for row in over}),
        "max_violations": max((int(str(row["found"])) for row in over), default=1),
        "reason": "<why these findings are intended>",
    }
    return {"tool": "ck3_token", "arguments": arguments}


def _removals_refused(contract_id: str, start: int, blocked: list[dict[str, object]], space: int) -> Reply:
    """CT-GATE-I-012: removed keys other files still mention, a page of them with the mentions (what fits
    `space` bytes), and the ck3_token call that declares the page shown."""
    page = _page(blocked, start, space)
    shown = cast("list[dict[str, object]]", page["shown"])
    arguments = {
        "command": "removal",
        "contract_id": contract_id,
        "symbols": [{"name": r["key"], "kind": r["kind"], "path": r["address"]} for r in shown],
        "reason": "<why these keys go, though other files mention them>",
    }
    request = {"tool": "ck3_token", "arguments": arguments}
    data = {"contract_id": contract_id, "removed": shown, "count": len(blocked), "request": request}
    return ReplyBuilder().invalid("CT-GATE-I-012", {**data, "next_cursor": page["next_cursor"]})
