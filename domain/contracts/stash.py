"""`stash_carry_over` (law §13.5): a human-approved dismissal of one carry-over cluster.

Only what the journal attributes to the chosen contract is in its cluster; a file made through no
contract only when the approval names it (the "unattributed" cluster, listed whole to the human). Every
file of the cluster is saved first — content, or the fact that it was deleted, so an unstaged deletion is
never lost — in the state store, then put back as it was before that contract's first change (the
journal kept it), else as it is at HEAD of its repository (an added file is removed), each through a ref
the session's World Adapter minted and journaled as a stash. The files' escalation counters start over.
Nothing happens without a human approval bound to exactly this cluster and session.
"""

import base64
import json
from contextlib import suppress
from typing import Final

from attrs import frozen

from domain.contracts import carry_over, journal
from domain.contracts.baseline import content_digest
from domain.contracts.carried import carried_files
from domain.failures import history_failure
from domain.policy import approvals
from domain.policy.approvals import State
from domain.replies.builder import Reply, ReplyBuilder
from domain.replies.refusal import Refused
from domain.services import Services
from domain.session import Session
from domain.vocabulary import RootCategory
from domain.world.adapter import WorldAdapter
from domain.world.visibility import VisibilityRef
from ports.errors import NotFound, PortError

LIMIT: Final = 8 * 1024 * 1024


class _Unknown:
    """Stands for content before that nothing kept."""


_UNKNOWN: Final = _Unknown()


Restoring = list[tuple[str, str, VisibilityRef, bytes | None]]
"""Files to put back: address, kind of change, ref, and the content to restore (None: remove the file)."""


UNATTRIBUTED: Final = "unattributed"
"""The cluster of carried-over files made through no contract."""


def stash_carry_over(session: Session, services: Services, root: str, cluster: str | None) -> Reply:
    """Save and revert the carry-over files attributed to `cluster` (a contract id or "unattributed");
    raises Refused for a cluster that cannot be stashed, before a human is asked."""
    roots = sorted(r.value for r in session.world.view.roots)
    if root not in roots:
        return ReplyBuilder().invalid("WA-RES-I-009", {"roots": roots})
    stash = _stash(session, services, root, cluster)
    payload = json.dumps([root, cluster, sorted((f.address, f.kind) for f in stash.chosen)]).encode()
    state, record = approvals.settle(
        services.authority, "stash", payload, stash.summary, session_id=session.session_id
    )
    if state is not State.APPROVED:
        return ReplyBuilder().invalid(
            "CT-GATE-I-005",
            {
                "approval_id": record.approval_id,
                "state": state.value,
                "targets": stash.addresses,
                "hint": approvals.hint(services.authority, record.approval_id, "stash again"),
            },
        )
    restore(session, services, root, stash.restoring(), ("stash", record.approval_id, cluster))
    _start_counts_over(services, root, stash.addresses)
    return ReplyBuilder().success("CT-GATE-S-007", {"stash_id": record.approval_id, "files": stash.addresses})


@frozen
class _Stash:
    """A cluster that can be stashed: its files, a ref for each, and what each is put back to."""

    chosen: list[carry_over.CarriedFile]
    refs: list[VisibilityRef]
    earlier: list[bytes | _Unknown | None]

    @property
    def addresses(self) -> list[str]:
        return [f.address for f in self.chosen]

    @property
    def summary(self) -> str:
        """What the human is asked to approve: every file, named."""
        listed = ", ".join(self.addresses)
        return f"Stash (save, then put back as before) {len(self.chosen)} carried-over files: {listed}"

    def restoring(self) -> Restoring:
        return [
            (f.address, f.kind, ref, content)
            for f, ref, content in zip(self.chosen, self.refs, self.earlier, strict=True)
            if not isinstance(content, _Unknown)
        ]


def _stash(session: Session, services: Services, root: str, cluster: str | None) -> _Stash:
    """The cluster's stash; raises Refused before a human is asked when it cannot be stashed."""
    try:
        carried = carried_files(session, services, RootCategory(root))
        chosen = [f for f in carried if (f.origin or UNATTRIBUTED) == (cluster or UNATTRIBUTED)]
        refs = _refs(session, chosen)
        earlier = _earlier(session, services, root, chosen)
    except PortError:
        raise Refused(history_failure(root)) from None
    checked = _checked(session, chosen, refs, earlier)
    if isinstance(checked, str):
        raise Refused.invalid("CT-GATE-I-006", {"contract_id": cluster, "problem": checked})
    return checked


def _checked(
    session: Session,
    chosen: list[carry_over.CarriedFile],
    refs: list[VisibilityRef],
    earlier: list[bytes | _Unknown | None],
) -> _Stash | str:
    """The stash, or why it is refused: nothing to stash; a file whose content could not be saved first
    (the stash would fail); or more files than a person can be shown (never cut: they approve all of it)."""
    if not chosen:
        return "no carry-over to stash"
    unsaveable = readable(session, [(f.address, f.kind, r) for f, r in zip(chosen, refs, strict=True)])
    unsaveable = unsaveable or next(
        (f.address for f, e in zip(chosen, earlier, strict=True) if e is _UNKNOWN), None
    )
    if unsaveable:
        return f"{unsaveable} cannot be saved before it is restored (too large, or not a regular file)"
    stash = _Stash(chosen, refs, earlier)
    return stash if approvals.fits(stash.summary) else "too many files to show a person at once"


def _start_counts_over(services: Services, root: str, addresses: list[str]) -> None:
    """The stashed files' escalation counters start over. The files are stashed and reverted already: a
    counter left high is recomputed by the next open, so a store failure here must not turn the reply
    into an Error for work that landed."""
    with suppress(PortError), services.transactions.atomic():
        counts = services.ledger.load(root)
        services.ledger.save(root, {a: n for a, n in counts.items() if a not in set(addresses)})


def _refs(session: Session, chosen: list[carry_over.CarriedFile]) -> list[VisibilityRef]:
    """A ref for every chosen file (carry-over names only addresses that resolve in this session)."""
    refs = []
    for item in chosen:
        ref = session.world.ref_or_none(item.address, session.home, must_exist=False)
        assert ref is not None  # noqa: S101 - carried_files left out every address that does not resolve
        refs.append(ref)
    return refs


def _earlier(
    session: Session, services: Services, root: str, chosen: list[carry_over.CarriedFile]
) -> list[bytes | _Unknown | None]:
    """What each file is put back to: for journaled work, what the journal kept before the changes that
    can be undone (newest first, stopping at a change made since), else what the repository holding the
    file has at HEAD (None: absent there), else unknown."""
    origins = {f.origin for f in chosen if f.origin is not None}
    work = journal.per_file(session, services, origins, root)  # no origins: no work
    found: list[bytes | _Unknown | None] = []
    for item in chosen:
        ref = session.world.ref_or_none(item.address, session.home, must_exist=False)
        parts = session.world.location_of(ref).parts if ref is not None else ()
        done = work.get("/".join(parts))  # a cluster is one contract's files, or files of none (no work)
        if done is not None:
            found.append(_journaled(session, services, root, done))
            continue
        head = services.history.head(root, parts[:-1])
        found.append(services.history.content_at(root, head, parts) if head else _UNKNOWN)
    return found


def _journaled(
    session: Session, services: Services, root: str, done: journal.FileWork
) -> bytes | _Unknown | None:
    reached = journal.undoable(done, content_digest(session, root, done.path))
    if reached is None or reached.before == journal.UNKNOWN:
        return _UNKNOWN
    if reached.before is None:
        return None
    kept = services.journal.content_before(reached.entry_id)
    return kept if kept is not None else _UNKNOWN


class RestoreStopped(PortError):
    """Restoring stopped partway; what could be put back was, and `left_changed` names the rest."""

    def __init__(self, left_changed: list[str]) -> None:
        super().__init__("restoring stopped partway")
        self.left_changed = left_changed


def readable(session: Session, files: list[tuple[str, str, VisibilityRef]]) -> str | None:
    """The address of the first file whose content cannot be saved (too large, not a regular file), so
    the request is refused before a human is asked; None when all can be."""
    for address, _, ref in files:
        try:
            session.world.read_file(ref, LIMIT)
        except NotFound:
            continue
        except PortError:
            return address
    return None


def save_and_restore(
    session: Session, services: Services, root: str, files: Restoring, saved_as: tuple[str, str]
) -> None:
    """Save each file's content now (or that it is absent) in the state store under `saved_as` (kind,
    id), then, only once all is saved, put each back to the content given for it, each change journaled
    as `saved_as`'s kind. Every file goes through its ref. When a restore fails, the files restored so far
    are put back as they were and RestoreStopped names any that could not be; raises PortError when the
    saving fails (then nothing changed)."""
    world = session.world
    saved: list[dict[str, object]] = []
    before_now: list[bytes | None] = []
    for address, kind, ref, _ in files:
        try:
            now: bytes | None = world.read_file(ref, LIMIT)
        except NotFound:
            now = None
        before_now.append(now)
        content = base64.b64encode(now).decode("ascii") if now is not None else None
        saved.append({"address": address, "kind": kind, "content": content})
    services.evidence.put(saved_as[0], saved_as[1], json.dumps({"root": root, "files": saved}))
    for done, ((_, _, ref, back), was) in enumerate(zip(files, before_now, strict=True)):
        entry = journal.begin(session, services, ref, saved_as[0], before=was, after=back, detail=saved_as[1])
        try:
            _put(world, ref, back)
        except PortError as exc:
            journal.settle(services, entry, landed=False)
            undone = files[:done]
            left = [
                a
                for (a, _, r, _), saved_now in zip(undone, before_now, strict=False)
                if not _restored(world, r, saved_now)
            ]
            raise RestoreStopped(left) from exc
        journal.settle(services, entry, landed=True)


def _put(world: WorldAdapter, ref: VisibilityRef, content: bytes | None) -> None:
    if content is None:
        with suppress(NotFound):  # already absent: nothing to remove
            world.delete_file(ref)
    else:
        world.write_file(ref, content)


def _restored(world: WorldAdapter, ref: VisibilityRef, content: bytes | None) -> bool:
    """Put one file back as it was; whether that worked."""
    try:
        _put(world, ref, content)
    except PortError:
        return False
    return True


def restore(
    session: Session, services: Services, root: str, files: Restoring, saved_as: tuple[str, str, str | None]
) -> None:
    """`save_and_restore`, every file put back; raises Refused with the Error saying what is left
    otherwise (`saved_as`: the evidence kind and id, and the contract or cluster it is for)."""
    kind, name, contract_id = saved_as
    try:
        save_and_restore(session, services, root, files, (kind, name))
    except RestoreStopped as stopped:
        data = {"contract_id": contract_id, "saved_as": name, "left_changed": stopped.left_changed}
        raise Refused.error("CT-GATE-E-004", data) from None
    except PortError:
        raise Refused(history_failure(root)) from None
