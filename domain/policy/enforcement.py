"""Enforcement: the one place that answers Denied (SPEC §5; seed 003 rule 1; seed 002 §8).

`pace` answers D for a call over its session's rate limit (SPEC §9), before anything else is looked at.

`permit` takes the mode, the operation, a resolved target and the active contract (already verified by
the contract layer) and gives a Permit, or raises Refused with the D (`enforce` answers the same as S or
D). The order: matrix row, then contract present, then the contract's
root, then its declared operations, then a human approval for a protected target. The first failure is a
D carrying `data.required` (contract, human_approval, mode, or null when nothing could permit it) and
`data.rule`. It never raises for policy and never answers Invalid.
"""

import math
from collections.abc import Mapping
from datetime import datetime
from functools import lru_cache
from typing import Final

from attrs import frozen

from domain.addresses import canonical
from domain.policy.capabilities import MATRIX, Condition, row_for
from domain.policy.pacing import Bucket
from domain.replies import budget
from domain.replies.builder import Reply, ReplyBuilder
from domain.replies.refusal import Refused
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


@frozen
class Permit:
    """Enforcement's leave for one operation on one target, and the rule of the matrix that gives it."""

    address: str
    operation: Operation
    rule: str

    def reply(self) -> Reply:
        """The S a caller that answers with the decision itself gives (`enforce`)."""
        return ReplyBuilder().success(
            "EN-WRITE-S-001", {"address": self.address, "operation": self.operation.value, "rule": self.rule}
        )


def permit(  # noqa: PLR0913 - the facts of one decision
    mode: Mode | None,
    operation: Operation,
    target: Target,
    contract: ActiveContract | None,
    *,
    edit_kind: str = "modify",
    copy_into: tuple[str, ...] = (),
) -> Permit:
    """The leave for `operation` on `target` now; raises Refused with the first failing check's D
    otherwise (the checks, and what a D names, as `enforce` says)."""
    decision = _decision(mode, operation, target, contract, edit_kind, copy_into)
    if not isinstance(decision, Permit):
        raise Refused(decision)
    return decision


def enforce(  # noqa: PLR0913 - the facts of one decision
    mode: Mode | None,
    operation: Operation,
    target: Target,
    contract: ActiveContract | None,
    *,
    edit_kind: str = "modify",
    copy_into: tuple[str, ...] = (),
) -> Reply:
    """`permit` as a reply, for those that show it (the tests, the bench; the domain takes `permit`):
    S when `operation` on `target` is permitted now; otherwise the first failing check as a D, which
    names its way out: the root category to open a contract on and, where one would succeed, the call
    (`request`). `edit_kind`: what the call does to the target (add, modify, delete), for that call;
    `copy_into`: the active playset's local mods, where a game or workshop file may be overridden.

    The decision is a pure function of its frozen arguments, so it is made once for each of them and
    handed out again: the target's facts and the contract are gathered afresh at every call by the
    callers, and a changed fact is another argument."""
    decision = _decision(mode, operation, target, contract, edit_kind, copy_into)
    return decision.reply() if isinstance(decision, Permit) else decision


@lru_cache(maxsize=4096)
def _decision(  # noqa: PLR0911, PLR0913, PLR0917 - one return per check, in the order SPEC §5 gives
    mode: Mode | None,
    operation: Operation,
    target: Target,
    contract: ActiveContract | None,
    edit_kind: str,
    copy_into: tuple[str, ...],
) -> Permit | Reply:
    facts = {"address": target.address, "operation": operation.value}
    row = row_for(mode, target.root, target.parts, in_local_mod=target.in_local_mod) if mode else None
    condition = row.condition(operation) if row else None
    if row is None or condition is None:
        data: dict[str, object] = {
            **facts,
            "mode": mode.value if mode else None,
            "rule": row.rule if row else None,
            "required": "mode" if _another_mode_permits(mode, operation, target) else None,
        }
        if target.root in OVERRIDDEN and copy_into and operation is Operation.WRITE:
            data |= _override(target, copy_into)
        return ReplyBuilder().denied("EN-WRITE-D-001", data)
    facts["rule"] = row.rule
    if condition is Condition.ALWAYS and not target.protected:
        return Permit(target.address, operation, row.rule)
    way_out = {"required": "contract", "root_category": target.root.value}
    if contract is None:
        return _contract_needed(facts, target.root, operation, [(target.address, edit_kind)])
    if contract.root is not target.root:
        return ReplyBuilder().denied(
            "EN-WRITE-D-003", {**facts, **way_out, "contract_root": contract.root.value}
        )
    if operation not in contract.operations:
        return ReplyBuilder().denied("EN-WRITE-D-004", {**facts, **way_out})
    approval_needed = target.protected or condition is Condition.CONTRACT_AND_APPROVAL
    if approval_needed and place_of(target) not in contract.approvals:  # exactly the place approved
        return ReplyBuilder().denied("EN-WRITE-D-005", {**facts, "required": "human_approval"})
    return Permit(target.address, operation, row.rule)


def permit_each(
    mode: Mode | None,
    operation: Operation,
    targets: list[tuple[Target, str]],
    contract: ActiveContract | None,
    space: int | None = None,
) -> list[Permit]:
    """The permits for `operation` on every target (each with its edit kind); raises Refused with the first
    refusal otherwise, whose ready call, when it opens a contract, declares every target of that root
    needing one (those that fit `space` bytes, when given: the refusal counts them all, and says how many
    it declares)."""
    # a refusal's own ready call is not used: the one below declares every target that needs the contract
    decisions = [(t, kind, _decision(mode, operation, t, contract, kind, ())) for t, kind in targets]
    refused = next(((t, d) for t, _, d in decisions if not isinstance(d, Permit)), None)
    if refused is None:
        return [d for _, _, d in decisions if isinstance(d, Permit)]
    first, decision = refused
    if decision.code != "EN-WRITE-D-002":
        raise Refused(decision)
    facts = {"address": first.address, "operation": operation.value, "rule": decision.data["rule"]}
    declared = [
        (t.address, kind)
        for t, kind, d in decisions
        if not isinstance(d, Permit) and d.code == "EN-WRITE-D-002" and t.root is first.root
    ]
    raise Refused(_contract_needed(facts, first.root, operation, declared, space))


def _contract_needed(
    facts: Mapping[str, object],
    root: RootCategory,
    operation: Operation,
    targets: list[tuple[str, str]],
    space: int | None = None,
) -> Reply:
    """D for work with no contract open: the root to open one on, and the call that opens it (declaring
    the targets that fit `space` bytes, when given; the rest are counted)."""
    opening: dict[str, object] = {
        "command": "open",
        "root_category": root.value,
        "operations": [operation.value],
    }
    rows = [{"path": address, "edit_kind": kind} for address, kind in targets]
    shown = rows if space is None else rows[: budget.rows_fitting(rows, space)]
    opening |= {"targets": shown}
    opening |= {"intent": "<why the work is done>", "work_declaration": "<what the work is>"}
    request = {"tool": "ck3_contract", "arguments": opening}
    data = {**facts, "required": "contract", "root_category": root.value, "request": request}
    if len(shown) < len(rows):  # the ready call declares a part: how many need one, how many it names
        data |= {"count": len(rows), "declared": len(shown)}
    return ReplyBuilder().denied("EN-WRITE-D-002", data)


OVERRIDDEN: Final = frozenset({RootCategory.ROOT_GAME, RootCategory.ROOT_STEAM})
"""Roots whose files a modder changes by overriding them in a local mod at the same path."""


def _override(target: Target, copy_into: tuple[str, ...]) -> dict[str, object]:
    """The modder's way to change a game or workshop file: copy it into a local mod (ck3_file override)."""
    name = copy_into[0] if len(copy_into) == 1 else "<one of data.mods>"
    arguments = {"command": "override", "path": target.address, "name": name}
    return {
        "required": "local_mod",
        "mods": list(copy_into),
        "request": {"tool": "ck3_file", "arguments": arguments},
    }


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
