"""Enforcement: the one place that answers Denied (SPEC §5; seed 003 rule 1; seed 002 §8).

`pace` answers D for a call over its session's rate limit (SPEC §9), before anything else is looked at.

`enforce` takes the mode, the operation, a resolved target and the active contract (already verified by
the contract layer) and answers S or D. The order: matrix row, then contract present, then the contract's
root, then its declared operations, then a human approval for a protected target. The first failure is a
D carrying `data.required` (contract, human_approval, mode, or null when nothing could permit it) and
`data.rule`. It never raises for policy and never answers Invalid.
"""

import math
from datetime import datetime
from functools import lru_cache

from attrs import frozen

from domain.addresses import canonical
from domain.policy.capabilities import MATRIX, Condition, row_for
from domain.policy.pacing import Bucket
from domain.replies.builder import Reply, ReplyBuilder
from domain.vocabulary import Mode, Operation, RootCategory


@frozen
class Target:
    """What enforcement knows of a resolved target: structural facts from the World Adapter."""

    address: str
    root: RootCategory
    parts: tuple[str, ...]
    in_local_mod: bool = False
    protected: bool = False


@frozen
class ActiveContract:
    """The session's open contract, as verified by the contract layer (signature, session, expiry)."""

    contract_id: str
    root: RootCategory
    operations: frozenset[Operation]
    approvals: frozenset[str] = frozenset()


def enforce(
    mode: Mode | None, operation: Operation, target: Target, contract: ActiveContract | None
) -> Reply:
    """S when `operation` on `target` is permitted now; otherwise the first failing check as a D.

    The decision is a pure function of its four frozen arguments, so it is made once for each of them and
    handed out again: the target's facts and the contract are gathered afresh at every call by the
    callers, and a changed fact is another argument."""
    return _decision(mode, operation, target, contract)


@lru_cache(maxsize=4096)
def _decision(  # noqa: PLR0911 - one return per check, in the order SPEC §5 gives
    mode: Mode | None, operation: Operation, target: Target, contract: ActiveContract | None
) -> Reply:
    facts = {"address": target.address, "operation": operation.value}
    row = row_for(mode, target.root, target.parts, in_local_mod=target.in_local_mod) if mode else None
    condition = row.condition(operation) if row else None
    if row is None or condition is None:
        return ReplyBuilder().denied(
            "EN-WRITE-D-001",
            {
                **facts,
                "mode": mode.value if mode else None,
                "rule": row.rule if row else None,
                "required": "mode" if _another_mode_permits(mode, operation, target) else None,
            },
        )
    facts["rule"] = row.rule
    if condition is Condition.ALWAYS and not target.protected:
        return ReplyBuilder().success("EN-WRITE-S-001", facts)
    if contract is None:
        return ReplyBuilder().denied("EN-WRITE-D-002", {**facts, "required": "contract"})
    if contract.root is not target.root:
        return ReplyBuilder().denied(
            "EN-WRITE-D-003", {**facts, "required": "contract", "contract_root": contract.root.value}
        )
    if operation not in contract.operations:
        return ReplyBuilder().denied("EN-WRITE-D-004", {**facts, "required": "contract"})
    approval_needed = target.protected or condition is Condition.CONTRACT_AND_APPROVAL
    if approval_needed and place_of(target) not in contract.approvals:  # exactly the place approved
        return ReplyBuilder().denied("EN-WRITE-D-005", {**facts, "required": "human_approval"})
    return ReplyBuilder().success("EN-WRITE-S-001", facts)


def place_of(target: Target) -> str:
    """The root-form canonical address of a target, exactly as spelled: what an approval names. A
    `mod:<Name>:/` spelling is not used, since which folder a name means depends on the active playset."""
    return canonical(target.root.value, target.parts)


def _another_mode_permits(mode: Mode | None, operation: Operation, target: Target) -> bool:
    return any(
        other is not mode
        and (row := row_for(other, target.root, target.parts, in_local_mod=target.in_local_mod)) is not None
        and row.condition(operation) is not None
        for other in {r.mode for r in MATRIX}
    )


def pace(bucket: Bucket, now: datetime, *, mutation: bool) -> Reply | None:
    """None when the session may make this call now; else a D saying when it may retry."""
    wait = bucket.take(now)
    if wait is None:
        return None
    kind = "mutations" if mutation else "reads"
    return ReplyBuilder().denied(
        "EN-EXEC-D-001",
        {
            "kind": kind,
            "per_minute": bucket.per_minute,
            "retry_after_ms": max(1, math.ceil(wait * 1000)),
            "required": None,
            "rule": f"rate-limit-{kind}",
        },
    )


BUSY_RETRY_MS = 1000


def busy(waiting: int) -> Reply:
    """D for a call that finds `waiting` calls of its session waiting already (one session's calls run one
    at a time, and only so many may queue)."""
    return ReplyBuilder().denied(
        "EN-EXEC-D-002",
        {"waiting": waiting, "retry_after_ms": BUSY_RETRY_MS, "required": None, "rule": "session-busy"},
    )
