"""Reconciliation for the close gate: what changed under a contract's root since its baseline.

With git, every change since the baseline commit counts — committed, staged, unstaged, untracked. Without
a repository, only the declared targets can be compared, with the content digests taken at open. Every
file read goes through a VisibilityRef the session's World Adapter minted.
"""

import hashlib
from collections.abc import Iterable
from typing import Final

from domain.vocabulary import RootCategory
from domain.world.adapter import WorldAdapter
from domain.world.visibility import VisibilityRef
from ports.contracts import ContractRecord
from ports.errors import NotFound, PortError
from ports.history import Change, History

SNAPSHOT_LIMIT: Final = 16 * 1024 * 1024


def snapshot(
    world: WorldAdapter, places: list[tuple[str, VisibilityRef]]
) -> tuple[tuple[str, str | None], ...]:
    """(address, content digest or None when absent) for each declared target."""
    return tuple((address, _digest_at(world, ref)) for address, ref in places)


def changes(
    world: WorldAdapter, history: History, home: RootCategory, record: ContractRecord
) -> list[dict[str, object]]:
    """Every change since the contract's baseline that the agent could have made (`visible_changes`), as
    canonical addresses and kinds. Raises PortError."""
    if record.baseline_sha is None:
        return _snapshot_changes(world, home, record)
    found = history.changes_since(record.root_category, record.baseline_sha)
    return visible_changes(world, record.root_category, found)


def visible_changes(world: WorldAdapter, root: str, found: Iterable[Change]) -> list[dict[str, object]]:
    """The changes an agent could have made, as canonical addresses and kinds: a hidden secret the user
    edited, or a write's temporary file, is no agent's work and is never named to one."""
    changes: list[dict[str, object]] = []
    for change in found:
        address = world.address_of(root, change.parts)
        if not world.resolve(address, RootCategory(root), must_exist=False)[0].terminal:
            changes.append({"address": address, "kind": change.kind})
    return changes


def _snapshot_changes(
    world: WorldAdapter, home: RootCategory, record: ContractRecord
) -> list[dict[str, object]]:
    found: list[dict[str, object]] = []
    for address, before in record.baseline_snapshot:
        _, ref = world.resolve(address, home, must_exist=False)
        if ref is None:
            continue
        now = _digest_at(world, ref)
        if now != before:
            kind = "add" if before is None else ("delete" if now is None else "modify")
            found.append({"address": address, "kind": kind})
    return found


def _digest_at(world: WorldAdapter, ref: VisibilityRef) -> str | None:
    try:
        content = world.read_file(ref, SNAPSHOT_LIMIT)
    except NotFound:
        return None
    except PortError:
        return None
    return hashlib.sha256(content).hexdigest()
