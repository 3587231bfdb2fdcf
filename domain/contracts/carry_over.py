"""Carry-over (law §13.3, §13.4): uncommitted work found when a new contract opens.

Files are grouped by the earlier contract whose targets they match, else "unattributed"; the open reply
suggests a template with edit kinds taken from the change. Each file's counter rises with every open that
leaves it out and falls back to zero once it is committed, stashed or declared: at 1 the finding is
informational, at 2 a warning, from 3 on the open is refused until the file is declared or stashed.
"""

from collections.abc import Callable
from typing import Final, cast

from attrs import frozen

from domain.replies import budget
from ports.contracts import ContractRecord

SEVERITY: Final = {1: "informational", 2: "warning"}
PERSISTENT: Final = 2
"""A file left out of this many opens is persistent carry-over (recorded in the audit log)."""
REQUIRED: Final = 3


@frozen
class CarriedFile:
    """An uncommitted change found at open, the contract whose journaled work it is (None: unattributed),
    and the ended contract that declared it, where one did (law §13.3's attribution, reported)."""

    address: str
    kind: str
    origin: str | None
    declared_by: str | None = None


def attribute(
    changes: list[tuple[str, str]], earlier: list[ContractRecord], *, key: Callable[[str], str]
) -> list[CarriedFile]:
    """Each (address, kind) change with the newest earlier contract that declared it, if any (`key`: how
    addresses are matched on the root, `records.address_key`)."""
    owners: dict[str, str] = {}
    for record in sorted(earlier, key=lambda r: r.created_at):
        for target in record.targets:
            owners[key(target.address)] = record.contract_id
    return [CarriedFile(address, kind, owners.get(key(address))) for address, kind in changes]


def escalate(
    counts: dict[str, int], carried: list[CarriedFile], declared: set[str], *, key: Callable[[str], str]
) -> dict[str, int]:
    """The counters after this open: files left out (`declared` holds the declared addresses by `key`)
    count one more; everything else starts over."""
    return {f.address: counts.get(f.address, 0) + 1 for f in carried if key(f.address) not in declared}


def report(carried: list[CarriedFile], counts: dict[str, int]) -> dict[str, object]:
    """The carry-over section of an open reply: clusters by origin, a suggested template, severity."""
    clusters: dict[str, list[dict[str, object]]] = {}
    for item in carried:
        row: dict[str, object] = {
            "address": item.address,
            "kind": item.kind,
            "opens": counts.get(item.address, 0),
        }
        if item.declared_by is not None and item.origin is None:
            row["declared_by"] = item.declared_by
        clusters.setdefault(item.origin or "unattributed", []).append(row)
    highest = max(counts.values(), default=0)
    return {
        "severity": "required" if highest >= REQUIRED else SEVERITY.get(highest, "informational"),
        "clusters": clusters,
        "template": [{"path": item.address, "edit_kind": item.kind} for item in carried],
    }


def within(section: dict[str, object], space: int) -> dict[str, object]:
    """A carry-over section that fits `space` bytes: each cluster's files and the template cut to their
    share, with how many files are carried in all (`count`)."""
    clusters = cast("dict[str, list[dict[str, object]]]", section["clusters"])
    template = cast("list[dict[str, object]]", section["template"])
    share = space // (2 * max(1, len(clusters)))
    return {
        **section,
        "count": len(template),
        "clusters": {origin: rows[: budget.rows_fitting(rows, share)] for origin, rows in clusters.items()},
        "template": template[: budget.rows_fitting(template, space // 2)],
    }


def required(counts: dict[str, int]) -> list[str]:
    """Files that must be declared or stashed before a contract may open."""
    return sorted(address for address, count in counts.items() if count >= REQUIRED)
