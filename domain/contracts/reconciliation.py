"""Reconciliation (SPEC §7): everything that changed in a contract's scope since it opened, in every layout.

The manifest taken at open is compared with the scope now: an entry is unchanged only when every recorded
stat field matches (a link: its target text; a file the manifest digested: its content). Where the stat
differs, the content decides when it is known — the digest the manifest took, the content the
repository recorded at open held at its baseline commit, or else the content this contract's journal
found before its first change to the file (when the size is still the size at open) — otherwise the file
is reported modified with its content before unknown. A submodule is a repository of its own; one whose
commit moved is one change at its top (its files' changes the move explains are that change). On a root
whose filesystem ignores case, a path is compared under the spelling the scope has now. What each
repository committed since its baseline commit counts too. Folders are no work; files and links are; a
change to an entry no address can spell is counted, never named. Each net change is then attributed by
the journal: work this contract (or one it renews) did through the server is
its own (`source` "journal"); a file as another contract's journal left it since this one opened (or a
write begun up to `journal.IN_FLIGHT` before, which may have landed after the manifest) is that
contract's; the rest was made outside the server (`outside`), named by what saw it (`repository`,
`manifest`).
"""

from collections.abc import Iterable
from itertools import compress
from operator import ne

from attrs import evolve, frozen

from domain.addresses import addressable_name
from domain.compliance.closeout import AtOpen
from domain.contracts import baseline, journal
from domain.contracts.baseline import Baseline, Row, digest, parts_of
from domain.services import Services
from domain.session import Session
from domain.vocabulary import RootCategory
from domain.world.adapter import WorldAdapter
from ports.contracts import ContractRecord
from ports.errors import PortError
from ports.history import Change


@frozen
class Reconciled:
    """What a contract's scope shows: its own net changes, those that belong to other open contracts, the
    files it wrote whose net change is none (written, then put back or removed), and a file's content when
    the contract opened, where anything knows it."""

    changes: list[dict[str, object]]
    others: list[dict[str, object]]
    transient: list[str]
    at_open: AtOpen
    unnamed: int = 0
    """Changes to entries whose names no address can spell: counted, never named."""


def reconcile(session: Session, services: Services, record: ContractRecord) -> Reconciled:
    """The net changes in `record`'s scope since it opened. Raises PortError, baseline.BaselineChanged,
    baseline.ScopeTooDeep."""
    root = record.root_category
    before = baseline.load(services, record.baseline_sha or "")
    named = tuple(_path(session, t.address) for t in record.targets)
    now, _, pointers = baseline.survey(session, root, tuple(p for p in named if p is not None))
    if session.world.ignores_case(root):
        before = _respelled(before, now)
    mine = journal.chain(services, record)
    ours = journal.per_file(session, services, mine, root)
    found = _changed(session, services, (before, ours), now)
    for path, kind in _committed(services, before).items():
        found.setdefault(path, (kind, "repository", _state(session, root, path, now.get(path))))
    for top, head in _moved(services, before, pointers).items():
        _explained(session, services, (before, top, head), found, now)
    unnamed = [path for path in found if not all(addressable_name(part) for part in parts_of(path))]
    for path in unnamed:
        del found[path]
    # another contract's work since this one opened (older work is in the manifest already), and writes
    # begun a little before it: one still in flight when the manifest was taken lands after it. Read after
    # the scope's digests: a write begins its entry before it changes the file, so every content read
    # above that another contract's write left has its entry here
    since = journal.in_flight_before(journal.opened_at(services, record))
    others = {
        path: work
        for path, work in journal.per_file(session, services, None, root, since=since, in_flight=True).items()
        if any(entry.contract_id is not None and entry.contract_id not in mine for entry in work.entries)
    }
    changes, theirs = _attributed(session, root, found, (ours, others), mine)
    listed = {str(change["address"]) for change in (*changes, *theirs)}
    transient = sorted(work.address for work in ours.values() if work.address not in listed)
    return Reconciled(changes, theirs, transient, _at_open(services, before, ours), len(unnamed))


def _changed(
    session: Session,
    services: Services,
    known: tuple[Baseline, dict[str, journal.FileWork]],
    now: dict[str, Row],
) -> dict[str, tuple[str, str, str | None]]:
    """Each path's net change against the manifest (kind, what saw it, the content's digest now). An
    entry whose row is the row taken at open is unchanged (its stat, and a digest where one was taken,
    all match): most of a scope, passed over without a closer look."""
    before, ours = known
    found: dict[str, tuple[str, str, str | None]] = {}
    paths = before.manifest.keys()
    # the rows compared in one pass the interpreter makes without a step of ours per entry: most of a
    # scope is unchanged, and only the paths whose rows differ come out
    for path in compress(paths, map(ne, map(now.get, paths), before.manifest.values())):
        net = _net(session, services, (before, ours.get(path)), path, now.get(path))
        if net is not None:
            found[path] = net
    for path in now.keys() - before.manifest.keys():
        net = _net(session, services, (before, ours.get(path)), path, now[path])
        if net is not None:
            found[path] = net
    return found


def _attributed(
    session: Session,
    root: str,
    found: dict[str, tuple[str, str, str | None]],
    work: tuple[dict[str, journal.FileWork], dict[str, journal.FileWork]],
    mine: list[str],
) -> tuple[list[dict[str, object]], list[dict[str, object]]]:
    """Each net change as this contract's (through the server, or outside it) or another contract's."""
    ours, others = work
    changes: list[dict[str, object]] = []
    theirs: list[dict[str, object]] = []
    for path, (kind, source, current) in sorted(found.items()):
        address = session.world.address_of(root, parts_of(path))
        owner = _left_by(others.get(path), current, mine)
        if owner is not None:
            theirs.append({"address": address, "kind": kind, "contract_id": owner})
            continue
        own = ours.get(path)
        by_us = own is not None and own.last.after == current
        changes.append(
            {"address": address, "kind": kind, "source": "journal" if by_us else source, "outside": not by_us}
        )
    return changes, theirs


def _left_by(work: journal.FileWork | None, current: str | None, mine: list[str]) -> str | None:
    """The other contract whose journaled write left the file as it is now: the newest such entry, done or
    still in flight, since this contract's own last one (after that, the file is this contract's word) —
    any of them, not only the last, since a later write may have landed after this scope was surveyed."""
    for entry in reversed(work.entries if work is not None else ()):
        if entry.contract_id in mine:
            return None
        if entry.after == current and entry.contract_id is not None:
            return entry.contract_id
    return None


def _committed(services: Services, before: Baseline) -> dict[str, str]:
    """What each repository of the baseline committed since its baseline commit (path → kind); a
    repository that can no longer be read adds nothing (the manifest still covers its files)."""
    found: dict[str, str] = {}
    for top, commit in before.repositories:
        if commit is None:
            continue
        try:
            changed = services.history.committed_since(before.root, commit, parts_of(top))
        except PortError:
            continue
        found.update({"/".join(change.parts): change.kind for change in changed})
    return found


def _respelled(before: Baseline, now: dict[str, Row]) -> Baseline:
    """The baseline with each path spelled as the scope spells it now, on a root whose filesystem ignores
    case: a file renamed only in case is the same file under its one spelling (SPEC §3), its stat and
    content compared as any other's."""
    spelled = {path.casefold(): path for path in now}
    manifest = {
        path if path in now else spelled.get(path.casefold(), path): row
        for path, row in before.manifest.items()
    }
    return evolve(before, manifest=manifest)


def _moved(services: Services, before: Baseline, pointers: list[str]) -> dict[str, str]:
    """The submodules of the baseline whose checkout stands at another commit now (top → that commit)."""
    moved: dict[str, str] = {}
    commits = dict(before.repositories)
    for top in pointers:
        commit = commits.get(top)
        if commit is None:
            continue
        try:
            head = services.history.head(before.root, parts_of(top))
        except PortError:
            continue
        if head is not None and head != commit:
            moved[top] = head
    return moved


def _explained(
    session: Session,
    services: Services,
    submodule: tuple[Baseline, str, str],
    found: dict[str, tuple[str, str, str | None]],
    now: dict[str, Row],
) -> None:
    """A submodule whose commit moved is one change, at its top: the changes of its files that the move
    explains (each file as the new commit holds it) are that change; any other is listed besides."""
    before, top, head = submodule
    inside = [path for path in found if path.startswith(top + "/")]
    for path in inside:
        held = services.history.content_at(before.root, head, parts_of(path), parts_of(top))
        if digest(held) == found[path][2]:
            del found[path]
    found[top] = ("modify", "repository", _state(session, before.root, top, now.get(top)))


def _at_open(services: Services, before: Baseline, ours: dict[str, journal.FileWork]) -> AtOpen:
    def content(parts: tuple[str, ...]) -> tuple[bytes | None, bool]:
        """What the server overwrote first, else what the file's repository held at the baseline."""
        path = "/".join(parts)
        work = ours.get(path)
        if work is not None and work.first.before != journal.UNKNOWN:
            if work.first.before is None:
                return None, True
            kept = services.journal.content_before(work.first.entry_id)
            if kept is not None:
                return kept, True
        if path not in before.manifest:
            return None, True
        holder = before.repository_of(path)
        if holder is not None and holder[1] is not None:
            found = services.history.content_at(before.root, holder[1], parts, parts_of(holder[0]))
            if found is not None:
                return found, True
        return None, False

    return content


def visible_changes(world: WorldAdapter, root: str, found: Iterable[Change]) -> list[dict[str, object]]:
    """The changes an agent could have made, as canonical addresses and kinds: a hidden secret the user
    edited, or a write's temporary file, is no agent's work and is never named to one."""
    changes: list[dict[str, object]] = []
    for change in found:
        address = world.address_of(root, change.parts)
        if world.ref_or_none(address, RootCategory(root), must_exist=False) is not None:
            changes.append({"address": address, "kind": change.kind})
    return changes


def _net(
    session: Session,
    services: Services,
    known: tuple[Baseline, journal.FileWork | None],
    path: str,
    now: Row | None,
) -> tuple[str, str, str | None] | None:
    """(kind, what saw it, the content's digest now) of one path's net change; None when it has none.
    `known`: the baseline, and what this contract's journal says of the path."""
    before, work = known
    was = before.manifest.get(path)
    if was is not None and now is not None and _same(was, now):
        return None
    existed, exists = was is not None and was[0] != "dir", now is not None and now[0] != "dir"
    if not (existed or exists):
        return None  # folders are no work: what is in them is
    current = _state(session, before.root, path, now)
    if not (existed and exists):
        return ("add" if exists else "delete"), "manifest", current
    assert was is not None  # noqa: S101 - it existed, as checked above
    assert now is not None  # noqa: S101 - it exists, as checked above
    digest_before, source = (
        _before(services, before, path, was) if was[0] == now[0] == "file" else (None, "manifest")
    )
    if digest_before is None and _put_back(work, was, now, current):
        return None
    return None if digest_before is not None and digest_before == current else ("modify", source, current)


def _put_back(work: journal.FileWork | None, was: Row, now: Row, current: str | None) -> bool:
    """Whether the journal shows the file back as it was at open, where nothing else knows its content
    then: the content before this contract's first change to it is the content now, and its size is the
    size at open (a human's edit between open and that change, of another size, is never taken for the
    file at open)."""
    if work is None or was[0] != "file" or now[0] != "file" or now[1] != was[1]:
        return False
    first = work.first.before
    return first not in {None, journal.UNKNOWN} and first == current


def _same(was: Row, now: Row) -> bool:
    """Whether the stat alone proves an entry unchanged; a file whose content the manifest digested (it
    was racily clean) is proved so only by its content."""
    if was[0] != now[0]:
        return False
    if was[0] == "dir":
        return True
    if was[0] == "symlink":
        return was[5] == now[5]
    if was[6] is not None:
        return now[6] is not None and was[6] == now[6]
    return was[1:5] == now[1:5]


def _state(session: Session, root: str, path: str, now: Row | None) -> str | None:
    """What stands at `path` now, as a digest: a file's content, a link's target, None when absent."""
    if now is None or now[0] == "dir":
        return None
    if now[0] == "symlink":
        return digest(f"link:{now[5]}".encode())
    if now[0] != "file":
        return f"special:{now[4]}:{now[2]}"
    return now[6] or baseline.content_digest(session, root, path)


def _before(services: Services, before: Baseline, path: str, was: Row) -> tuple[str | None, str]:
    """The digest of a file's content at open when it is known, and what knows it."""
    if was[6] is not None:
        return was[6], "manifest"
    holder = before.repository_of(path)
    if holder is not None and holder[1] is not None:
        top = parts_of(holder[0])
        content = services.history.content_at(before.root, holder[1], parts_of(path), top)
        if content is not None:
            return digest(content), "repository"
    return None, "manifest"


def _path(session: Session, address: str) -> str | None:
    """The root-relative path of a declared target's canonical address."""
    world = session.world
    ref = world.ref_or_none(address, session.home, must_exist=False)
    return "/".join(world.location_of(ref).parts) if ref is not None else None
