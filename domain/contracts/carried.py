"""Carry-over found at open (law §13.3; SPEC §7), from the same sources as close.

A file is carry-over when a repository in the scope shows it changed (uncommitted or untracked work) or
when the journal says an expired, cancelled or inert contract changed it and it is still as that contract
left it. It is attributed by the journal: work another open contract journaled is that contract's (never
this one's carry-over), work a contract closed S is never carry-over, work of an ended contract is that
contract's; what the journal does not explain goes to the earlier contract that declared the file, else
"unattributed".
"""

from datetime import datetime

from domain.compliance import closeout
from domain.contracts import baseline, carry_over, journal, records
from domain.contracts.baseline import parts_of
from domain.contracts.records import Status
from domain.services import Services
from domain.session import Session
from domain.vocabulary import RootCategory
from ports.contracts import ContractRecord


def carried_files(
    session: Session, services: Services, root: RootCategory, dirty: dict[str, str] | None = None
) -> list[carry_over.CarriedFile]:
    """The carry-over of `root`; `dirty` (path → kind) is what its repositories show changed, when the
    caller has it already. Raises PortError."""
    name = root.value
    if dirty is None:
        dirty = changed_in_repositories(session, services, name)
    contracts = {r.contract_id: r for r in services.contracts.all()}
    work = journal.per_file(session, services, None, name)
    now = services.authority.clock.now()
    found = dict(dirty)
    for path, landed in work.items():
        owner = contracts.get(landed.last.contract_id or "")
        if owner is not None and _ended(owner, now) and path not in found:
            found[path] = _kind(landed)
    carried: list[tuple[str, str]] = []
    origins: dict[str, str | None] = {}
    for path, kind in sorted(found.items()):
        address = session.world.address_of(name, parts_of(path))
        if session.world.resolve(address, root, must_exist=False)[0].terminal:
            continue  # a hidden secret the user edited is no agent's work, and never named to one
        owner = _owner(session, name, work.get(path), contracts)
        if owner is not None and (records.live(owner, now) or owner.status == Status.CLOSED):
            continue  # another open contract's work, or work a contract closed S: never carry-over
        origins[address] = owner.contract_id if owner is not None else None
        carried.append((address, kind))
    visible = closeout.agent_work(session, services, name, [{"address": a, "kind": k} for a, k in carried])
    kept = [(str(c["address"]), str(c["kind"])) for c in visible]
    by_targets = carry_over.attribute(kept, [r for r in contracts.values() if _ended(r, now)])
    return [carry_over.CarriedFile(f.address, f.kind, origins.get(f.address) or f.origin) for f in by_targets]


def _owner(
    session: Session, root: str, landed: journal.FileWork | None, contracts: dict[str, ContractRecord]
) -> ContractRecord | None:
    """The contract whose journaled work a file still is (it is as that contract's last change left it)."""
    if landed is None:
        return None
    owner = contracts.get(landed.last.contract_id or "")
    if owner is None or baseline.content_digest(session, root, landed.path) != landed.last.after:
        return None
    return owner


def changed_in_repositories(session: Session, services: Services, root: str) -> dict[str, str]:
    """What each repository in the scope of `root` shows changed since its HEAD (path → kind)."""
    _, tops = baseline.survey(session, root)
    dirty: dict[str, str] = {}
    for top in tops:
        head = services.history.head(root, parts_of(top))
        if head is not None:
            for change in services.history.changes_since(root, head, parts_of(top)):
                dirty["/".join(change.parts)] = change.kind
    return dirty


def _ended(record: ContractRecord, now: datetime) -> bool:
    """A contract whose work nobody governs any more: cancelled, or open past its expiry. (An open one
    this server cannot verify may be another server's, live: its work stays its own until it expires.)"""
    return record.status == Status.CANCELLED or (
        record.status == Status.OPEN and not records.live(record, now)
    )


def _kind(work: journal.FileWork) -> str:
    if work.first.before is None:
        return "add"
    return "delete" if work.last.after is None else "modify"
