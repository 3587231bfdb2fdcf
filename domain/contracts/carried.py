"""Carry-over found at open (law §13.3; SPEC §7), from the same sources as close.

A file is carry-over when a repository in the scope shows it changed (uncommitted or untracked work), or,
outside every repository, when the journal says a contract that ended (cancelled, or expired) changed it,
it is still as that contract left it, and that is not as the contract found it. A contract and its
renewals are one line of work, judged by the newest: work whose line is still open (another session's,
another server's) is that line's, and work whose line closed S is never carry-over: neither what the journal
says it did, nor what its close reconciled as its declared work (a human's edit in a repository), while the
file is as that close left it (`closed_work`); a later change by anyone else is carry-over again. The
cluster of a file is the contract whose journaled work it still is; everything else is "unattributed", with
the ended contract that declared it noted (law §13.3), since a stash sets aside only what the journal
attributes.
"""

from datetime import datetime

from domain.compliance import closeout
from domain.contracts import baseline, carry_over, closed_work, journal, records
from domain.contracts.baseline import parts_of
from domain.contracts.records import Status
from domain.services import Services
from domain.session import Session
from domain.vocabulary import RootCategory
from ports.contracts import ContractRecord

Contracts = dict[str, ContractRecord]
Renewals = dict[str, ContractRecord]
"""Each contract's id → the contract that renews it."""


def carried_files(
    session: Session,
    services: Services,
    root: RootCategory,
    found: tuple[dict[str, str], list[str]] | None = None,
) -> list[carry_over.CarriedFile]:
    """The carry-over of `root`; `found` is what its repositories show changed (path → kind) and their
    tops, when the caller has them already. Raises PortError."""
    name = root.value
    dirty, tops = found if found is not None else changed_in_repositories(session, services, name)
    contracts = {r.contract_id: r for r in services.contracts.all()}
    renewals = {r.renewed_from: r for r in contracts.values() if r.renewed_from}
    work = journal.per_file(session, services, None, name)
    now = services.authority.clock.now()
    candidates = dict(dirty)
    for path, landed in work.items():  # outside every repository, only the journal knows
        if path in candidates or _in_any(path, tops) or landed.first.before == landed.last.after:
            continue  # a repository's to tell, or work that left the file as it found it: no change
        line = _newest(contracts.get(landed.last.contract_id or ""), renewals)
        if line is not None and _ended(line, now):
            candidates[path] = _kind(landed)
    carried = []
    for path, kind in sorted(candidates.items()):
        address = session.world.address_of(name, parts_of(path))
        if session.world.ref_or_none(address, root, must_exist=False) is None:
            continue  # a hidden secret the user edited is no agent's work, and never named to one
        owner = _owner(session, name, work.get(path), contracts)
        line = _newest(owner, renewals)
        if line is not None and (records.live(line, now) or line.status == Status.CLOSED):
            continue  # an open line of work's, or work a contract closed S: never carry-over
        if closed_work.closed_with(session, services, name, address, path) is not None:
            continue  # reconciled at an S close as declared work, and the file is still as it was then
        carried.append(carry_over.CarriedFile(address, kind, owner.contract_id if owner else None))
    return _declared(session, services, name, carried, [r for r in contracts.values() if _ended(r, now)])


def changed_in_repositories(
    session: Session, services: Services, root: str
) -> tuple[dict[str, str], list[str]]:
    """What each repository in the scope of `root` shows changed since its HEAD (path → kind), and the
    repositories' tops."""
    manifest, found, pointers = baseline.survey(session, root)
    tops = baseline.served(services, root, found, pointers)
    shares = baseline.shares(manifest, tops, pointers)
    dirty: dict[str, str] = {}
    for top in tops:
        dirty.update(baseline.repository_state(services, root, top, shares[top])[1])
    return dirty, tops


def _declared(
    session: Session,
    services: Services,
    root: str,
    carried: list[carry_over.CarriedFile],
    ended: list[ContractRecord],
) -> list[carry_over.CarriedFile]:
    """The carry-over less the LXE files this server wrote, each with the ended contract that declared it."""
    kept = closeout.agent_work(
        session, services, root, [{"address": f.address, "kind": f.kind} for f in carried]
    )
    addresses = {str(change["address"]) for change in kept}
    key = records.address_key(ignores_case=session.world.ignores_case(root))
    changes = [(f.address, f.kind) for f in carried]
    declared = {f.address: f.origin for f in carry_over.attribute(changes, ended, key=key)}
    return [
        carry_over.CarriedFile(f.address, f.kind, f.origin, declared.get(f.address))
        for f in carried
        if f.address in addresses
    ]


def _owner(
    session: Session, root: str, landed: journal.FileWork | None, contracts: Contracts
) -> ContractRecord | None:
    """The contract whose journaled work a file still is (it is as that contract's last change left it)."""
    if landed is None:
        return None
    owner = contracts.get(landed.last.contract_id or "")
    if owner is None or baseline.content_digest(session, root, landed.path) != landed.last.after:
        return None
    return owner


def _newest(record: ContractRecord | None, renewals: Renewals) -> ContractRecord | None:
    """The newest contract of `record`'s line of work (the one no other renews)."""
    seen: set[str] = set()
    while record is not None and record.contract_id in renewals and record.contract_id not in seen:
        seen.add(record.contract_id)
        record = renewals[record.contract_id]
    return record


def _in_any(path: str, tops: list[str]) -> bool:
    return any(not top or path == top or path.startswith(top + "/") for top in tops)


def _ended(record: ContractRecord, now: datetime) -> bool:
    """A contract whose work nobody governs any more: cancelled, expired, or open past its expiry. (An open
    one this server cannot verify may be another server's, live: its work stays its own until it expires.)"""
    return record.status in {Status.CANCELLED, Status.EXPIRED} or (
        record.status == Status.OPEN and not records.live(record, now)
    )


def _kind(work: journal.FileWork) -> str:
    if work.first.before is None:
        return "add"
    return "delete" if work.last.after is None else "modify"
