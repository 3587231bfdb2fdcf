"""Reconciliation for the close gate: what changed under a contract's root since its baseline, and the
audit evidence a close leaves behind.

With git, every change since the baseline commit counts — committed, staged, unstaged, untracked. Without
a repository, only the declared targets can be compared, with the content digests taken at open.
"""

import hashlib
import json
from collections.abc import Mapping
from typing import Final

from domain.vocabulary import RootCategory
from domain.world.adapter import WorldAdapter
from ports.contracts import ContractRecord
from ports.errors import PortError
from ports.files import Location
from ports.history import History

AUDIT: Final = ("artifacts", "audit")
SNAPSHOT_LIMIT: Final = 16 * 1024 * 1024


def snapshot(world: WorldAdapter, places: list[tuple[str, Location]]) -> tuple[tuple[str, str | None], ...]:
    """(address, content digest or None when absent) for each declared target."""
    return tuple((address, _digest_at(world, location)) for address, location in places)


def changes(
    world: WorldAdapter, history: History, home: RootCategory, record: ContractRecord
) -> list[dict[str, object]]:
    """Every change since the contract's baseline, as canonical addresses and kinds. Raises PortError."""
    if record.baseline_sha is None:
        return _snapshot_changes(world, home, record)
    found = history.changes_since(record.root_category, record.baseline_sha)
    return [{"address": world.address_of(record.root_category, c.parts), "kind": c.kind} for c in found]


def write_evidence(world: WorldAdapter, name: str, evidence: Mapping[str, object]) -> str | None:
    """Store audit evidence under ROOT_CK3RAVEN_DATA:/artifacts/audit/; its address, or None without one."""
    data_root = RootCategory.ROOT_CK3RAVEN_DATA.value
    try:
        world.write_system_file(
            Location(data_root, AUDIT).child(f"{name}.json"), json.dumps(evidence, indent=1)
        )
    except (PortError, KeyError):
        return None
    return f"{data_root}:/{'/'.join(AUDIT)}/{name}.json"


def _snapshot_changes(
    world: WorldAdapter, home: RootCategory, record: ContractRecord
) -> list[dict[str, object]]:
    found: list[dict[str, object]] = []
    for address, before in record.baseline_snapshot:
        _, ref = world.resolve(address, home, must_exist=False)
        if ref is None:
            continue
        target = world.target(ref)
        now = _digest_at(world, Location(target.root.value, target.parts))
        if now != before:
            kind = "add" if before is None else ("delete" if now is None else "modify")
            found.append({"address": address, "kind": kind})
    return found


def _digest_at(world: WorldAdapter, location: Location) -> str | None:
    try:
        content = world.read_system_file(location, SNAPSHOT_LIMIT)
    except PortError:
        return None
    return hashlib.sha256(content).hexdigest() if content is not None else None
