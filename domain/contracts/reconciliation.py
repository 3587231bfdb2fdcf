"""Reconciliation for the close gate: what changed under a contract's root since its baseline.

With git, every change since the baseline commit counts — committed, staged, unstaged, untracked. Without
a repository, only the declared targets can be compared, with the content digests taken at open. Every
file read goes through a VisibilityRef the session's World Adapter minted.
"""

import hashlib
from typing import Final

from domain.vocabulary import RootCategory
from domain.world.adapter import WorldAdapter
from domain.world.visibility import VisibilityRef
from ports.contracts import ContractRecord
from ports.errors import NotFound, PortError
from ports.history import History

SNAPSHOT_LIMIT: Final = 16 * 1024 * 1024


def snapshot(
    world: WorldAdapter, places: list[tuple[str, VisibilityRef]]
) -> tuple[tuple[str, str | None], ...]:
    """(address, content digest or None when absent) for each declared target."""
    return tuple((address, _digest_at(world, ref)) for address, ref in places)


def changes(
    world: WorldAdapter, history: History, home: RootCategory, record: ContractRecord
) -> list[dict[str, object]]:
    """Every change since the contract's baseline that the agent could have made (a visible address), as
    canonical addresses and kinds: a hidden secret the user edited, or a write's temporary file, is not the
    agent's work. Raises PortError."""
    if record.baseline_sha is None:
        return _snapshot_changes(world, home, record)
    found = history.changes_since(record.root_category, record.baseline_sha)
    addressed = [(world.address_of(record.root_category, c.parts), c.kind) for c in found]
    return [
        {"address": address, "kind": kind}
        for address, kind in addressed
        if not world.resolve(address, home, must_exist=False)[0].terminal
    ]


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
