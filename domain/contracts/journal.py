"""The journal of governed changes (SPEC §7): what a governed call changed, recorded before it changed it.

`begin` writes a pending entry (address, kind, digests before and after, size, the content before) under the
contract that governs the session, if any, with the change's audit row in the same transaction; `settle` marks
it done or failed once the change landed or did not. An entry still pending later (the server died between the
two) is settled by the file's digest. What the journal says per file — who changed it, what it was before the
first change, what the last one left — is what close, revert, carry-over and stash attribute work by.
"""

from collections.abc import Iterable
from contextlib import suppress
from datetime import datetime, timedelta
from typing import Final

from attrs import evolve, frozen

from domain.compliance.closeout import lineage
from domain.contracts.baseline import content_digest, digest
from domain.contracts.lifecycle import governing
from domain.services import Services
from domain.session import Session
from domain.trail import change_row
from domain.world.visibility import VisibilityRef
from ports.contracts import ContractRecord
from ports.errors import PortError
from ports.journal import JournalEntry

UNKNOWN: Final = "unknown"
"""The digest before of a file too large to keep: it cannot be restored."""
IN_FLIGHT: Final = timedelta(minutes=10)
"""How long before a contract opened a governed write may have been begun and still land after the
contract's manifest was taken: another server's write in flight at the open (a write of the largest file
the server writes takes seconds)."""


def begin(  # noqa: PLR0913 - the call, its file and both contents
    session: Session,
    services: Services,
    ref: VisibilityRef,
    kind: str,
    *,
    before: bytes | str | None,
    after: bytes | None,
    detail: str = "",
) -> JournalEntry:
    """Record, before the change, that `ref` goes from `before` (bytes, None when absent, or UNKNOWN) to
    `after`. Raises PortError: then nothing may change."""
    place = session.world.location_of(ref)
    digest_before = UNKNOWN if isinstance(before, str) else digest(before)
    changed = (digest_before, digest(after))
    what = (kind, *changed, len(after or b""))
    entry = _entry(session, services, (place.root, place.parts, ref.address), what)
    entry = evolve(entry, detail=detail)
    _recorded(services, entry, before if isinstance(before, bytes) else None)
    return entry


def commit(
    session: Session,
    services: Services,
    repository: tuple[str, tuple[str, ...]],
    parent: str | None,
    made: str,
) -> None:
    """Record a commit that landed: its repository (root and top), the old HEAD and the new. Raises
    PortError. (A commit changes history, not files: it is recorded once it is made, and stays in history
    whatever a revert does.)"""
    root, top = repository
    where = (root, top, session.world.address_of(root, top))
    entry = evolve(_entry(session, services, where, ("commit", parent, made, 0)), state="done")
    _recorded(services, entry, None)


def _recorded(services: Services, entry: JournalEntry, content_before: bytes | None) -> None:
    """The entry and its audit row, in one transaction: both land, or neither (and raises PortError)."""
    with services.transactions.atomic():
        services.journal.begin(entry, content_before)
        services.audit.append(change_row(entry, services.call))


def _entry(
    session: Session,
    services: Services,
    where: tuple[str, tuple[str, ...], str],
    what: tuple[str, str | None, str | None, int],
) -> JournalEntry:
    """A pending entry under the contract that governs the session (None: no contract): `where` is the
    root, parts and address, `what` the kind, the digests before and after, and the size after."""
    root, parts, address = where
    kind, before, after, size = what
    contract = governing(session, services)
    authority = services.authority
    return JournalEntry(
        entry_id=authority.ids.new_id("jr"),
        at=authority.clock.now().isoformat(),
        session_id=session.session_id,
        contract_id=contract.contract_id if contract is not None else None,
        root=root,
        address=address,
        kind=kind,
        before=before,
        after=after,
        size=size,
        path="/".join(parts),
        server_id=services.servers.own if services.servers is not None else None,
    )


def settle(services: Services, entry: JournalEntry, *, landed: bool) -> None:
    """Mark the entry done or failed, as the call that made the change (its writer) knows it: this decides,
    even over another call's settling by digest, except that a done entry is never turned failed. A store
    failure leaves it pending, to be settled by digest later."""
    with suppress(PortError):
        services.journal.settle(entry.entry_id, "done" if landed else "failed")


def chain(services: Services, record: ContractRecord) -> list[str]:
    """The contract and every one it renews, back to the first: they share one journal (as they share
    their NSTs and LXEs: one lineage)."""
    return lineage(services, record)


def in_flight_before(opened: str) -> str:
    """The time from which journal entries may hold work that landed after a contract opened at `opened`."""
    return (datetime.fromisoformat(opened) - IN_FLIGHT).isoformat()


def opened_at(services: Services, record: ContractRecord) -> str:
    """When the first contract of `record`'s chain opened: its baseline's time."""
    first = record
    for contract_id in chain(services, record)[1:]:
        found = services.contracts.get(contract_id)
        first = found if found is not None else first
    return first.created_at


@frozen
class FileWork:
    """What the journal says of one file: its landed entries, oldest first (the first one's content
    before, the last one's after; whose work it is now: the contract of the last)."""

    root: str
    path: str
    address: str
    entries: tuple[JournalEntry, ...]

    @property
    def first(self) -> JournalEntry:
        return self.entries[0]

    @property
    def last(self) -> JournalEntry:
        return self.entries[-1]


def per_file(  # noqa: PLR0913 - whose work, where, since when, and how in-flight work counts
    session: Session,
    services: Services,
    contract_ids: Iterable[str | None] | None,
    root: str,
    *,
    since: str = "",
    in_flight: bool = False,
) -> dict[str, FileWork]:
    """The landed work of these contracts (None: of all) on `root` since `since`, per root-relative path
    (pending entries judged by the file's digest now; failed ones left out). `in_flight`: pending entries
    are kept as they are, unsettled: another writer's change may be landing, or may have landed and been
    overwritten by its next one already, which the digest now cannot tell from a change that never landed."""
    found: dict[str, FileWork] = {}
    for stored in services.journal.entries(contract_ids, root=root, since=since):
        if stored.kind == "commit":
            continue
        entry = stored if in_flight and stored.state == "pending" else _settled(session, services, stored)
        if entry.state not in {"done", "pending"}:  # failed: left out (pending only when in flight)
            continue
        known = found.get(entry.path)
        earlier = known.entries if known is not None else ()
        found[entry.path] = FileWork(root, entry.path, entry.address, (*earlier, entry))
    return found


def undoable(work: FileWork, now: str | None) -> JournalEntry | None:
    """The oldest of a file's journaled changes that can be undone, given the file's digest `now`: undone
    newest first, each only while the file is what that change left (so a human's edit between two of
    the changes is kept: the undoing stops there). None when even the newest was changed since."""
    reached = None
    for entry in reversed(work.entries):
        if now != entry.after:
            break
        reached, now = entry, entry.before
    return reached


def commits(services: Services, contract_ids: Iterable[str]) -> list[JournalEntry]:
    """The commits these contracts made, oldest first."""
    return [e for e in services.journal.entries(contract_ids) if e.kind == "commit" and e.state != "failed"]


def _settled(session: Session, services: Services, entry: JournalEntry) -> JournalEntry:
    """A pending entry as the file's digest now tells it. Settled in the store only once its writer is gone
    (the server that began it no longer runs: it crashed or was killed between begin and settle), so a
    writer still at work, on this server or another, alone settles its own entry; and then only while
    still pending. An entry that names no server is settled as before servers were told apart: as done
    once the file shows it, as failed once it was begun longer than IN_FLIGHT ago."""
    if entry.state != "pending":
        return entry
    now = content_digest(session, entry.root, entry.path)
    landed = now == entry.after and now != entry.before
    if _writer_gone(services, entry, landed=landed):
        with suppress(PortError):
            services.journal.settle(entry.entry_id, "done" if landed else "failed", if_pending=True)
    return evolve(entry, state="done" if landed else "failed")


def _writer_gone(services: Services, entry: JournalEntry, *, landed: bool) -> bool:
    """Whether no writer can settle `entry` any more, so a reader settles it by the file's digest."""
    servers = services.servers
    if servers is not None and entry.server_id is not None:
        return not servers.running(entry.server_id)
    return landed or _stale(entry, services.authority.clock.now())


def _stale(entry: JournalEntry, now: datetime) -> bool:
    """Whether the entry was begun longer than IN_FLIGHT before `now` (an entry whose time cannot be read,
    edited in the store, is taken as old: no writer can be at work on it)."""
    try:
        return datetime.fromisoformat(entry.at) + IN_FLIGHT < now
    except (ValueError, TypeError):
        return True
