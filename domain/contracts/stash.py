"""`stash_carry_over` (law §13.5): a human-approved dismissal of one carry-over cluster.

Every file of the cluster is saved first — content, or the fact that it was deleted, so an unstaged
deletion is never lost — under the hidden state folder, then put back as it is at HEAD (an added file is
removed). The files' escalation counters start over. Nothing happens without a human approval bound to
exactly this cluster.
"""

import base64
import json

from domain.contracts import carry_over
from domain.contracts.gates import Clerk, carried_files
from domain.policy import approvals
from domain.policy.approvals import State
from domain.replies.builder import Reply, ReplyBuilder
from domain.vocabulary import RootCategory
from ports.errors import PortError
from ports.files import Location

STASH = ("state", "stash")
LIMIT = 8 * 1024 * 1024


def stash_carry_over(clerk: Clerk, root: str, cluster: str | None) -> Reply:
    """Save and revert the carry-over files attributed to `cluster` (a contract id or "unattributed")."""
    try:
        head = clerk.history.head(root)
        carried = carried_files(clerk, RootCategory(root), head) if head else []
    except (PortError, ValueError):
        return ReplyBuilder().error("CT-GATE-E-001", {"root": root})
    chosen = [f for f in carried if (f.origin or "unattributed") == (cluster or "unattributed")]
    if head is None or not chosen:
        return ReplyBuilder().invalid(
            "CT-GATE-I-006", {"contract_id": cluster, "problem": "no carry-over to stash"}
        )
    payload = json.dumps([root, cluster, sorted((f.address, f.kind) for f in chosen)]).encode()
    summary = f"Stash (save, then revert to HEAD) {len(chosen)} carried-over files: " + ", ".join(
        f.address for f in chosen
    )
    state, record = approvals.settle(clerk.authority, "stash", payload, summary)
    if state is not State.APPROVED:
        return ReplyBuilder().invalid(
            "CT-GATE-I-005",
            {
                "approval_id": record.approval_id,
                "state": state.value,
                "targets": [f.address for f in chosen],
                "hint": f"Ask the user to run `ck3raven approve {record.approval_id}`, then stash again.",
            },
        )
    try:
        _save_and_revert(clerk, root, head, chosen, record.approval_id)
    except PortError:
        return ReplyBuilder().error("CT-GATE-E-001", {"root": root})
    counts = clerk.ledger.load()
    clerk.ledger.save({a: n for a, n in counts.items() if a not in {f.address for f in chosen}})
    return ReplyBuilder().success(
        "CT-GATE-S-007", {"stash_id": record.approval_id, "files": [f.address for f in chosen]}
    )


def _save_and_revert(
    clerk: Clerk, root: str, head: str, chosen: list[carry_over.CarriedFile], stash_id: str
) -> None:
    places = {f.address: _place(clerk, f.address) for f in chosen}
    saved = []
    for item in chosen:
        location = places[item.address]
        now = clerk.world.read_system_file(location, LIMIT)
        saved.append(
            {
                "address": item.address,
                "kind": item.kind,
                "content": base64.b64encode(now).decode("ascii") if now is not None else None,
            }
        )
    folder = Location(RootCategory.ROOT_CK3RAVEN_DATA.value, STASH)
    clerk.world.write_system_file(
        folder.child(f"{stash_id}.json"), json.dumps({"root": root, "files": saved})
    )
    for item in chosen:  # only once everything is saved
        location = places[item.address]
        clerk.world.restore_system_file(location, clerk.history.content_at(root, head, location.parts))


def _place(clerk: Clerk, address: str) -> Location:
    _, ref = clerk.world.resolve(address, clerk.session.home, must_exist=False)
    if ref is None:
        raise ValueError("a carried-over file no longer resolves")
    target = clerk.world.target(ref)
    return Location(target.root.value, target.parts)
