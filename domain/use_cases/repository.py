"""`ck3_git` use cases: status, diff and log read the history of the repository holding a root; add and
commit are governed WRITEs (each file they touch goes through enforcement, so they need a contract), and
a commit's message is recorded as audit evidence."""

import difflib

from attrs import frozen

from domain.contracts import reconciliation
from domain.policy.enforcement import ActiveContract, enforce
from domain.replies.builder import Reply, ReplyBuilder
from domain.session import Session
from domain.vocabulary import Operation, RootCategory
from domain.world.adapter import WorldAdapter
from ports.errors import PortError
from ports.files import Location
from ports.history import Change, History

DIFF_LIMIT = 200_000


@frozen
class GitOptions:
    """The arguments of a ck3_git call."""

    root: str = "ROOT_REPO"
    path: str | None = None
    paths: tuple[str, ...] = ()
    message: str = ""
    limit: int = 20


@frozen
class Bench:
    """What the git commands work with."""

    session: Session
    world: WorldAdapter
    history: History
    contract: ActiveContract | None


def status(bench: Bench, root: str) -> Reply:
    """Every change of the working tree against HEAD under `root`, as canonical addresses."""
    try:
        head = bench.history.head(root)
        changes = bench.history.changes_since(root, head) if head else []
    except PortError:
        return ReplyBuilder().error("CT-GATE-E-001", {"root": root})
    entries = _visible(bench, root, changes)
    return ReplyBuilder().success(
        "WA-READ-S-004", {"root": root, "head": head, "changes": entries, "count": len(entries)}
    )


def diff(bench: Bench, path: str | None) -> Reply:
    """A unified diff of one visible file between HEAD and the working tree."""
    reply, ref = bench.world.resolve(path, bench.session.home, must_exist=False)
    if ref is None:
        return reply
    target = bench.world.target(ref)
    try:
        head = bench.history.head(target.root.value)
        old = bench.history.content_at(target.root.value, head, target.parts) if head else None
        new = bench.world.read_file(ref, DIFF_LIMIT) if ref.kind == "file" else None
    except PortError:
        return ReplyBuilder().error("CT-GATE-E-001", {"root": target.root.value})
    lines = difflib.unified_diff(
        _lines(old), _lines(new), fromfile=f"HEAD:{ref.address}", tofile=ref.address, lineterm=""
    )
    return ReplyBuilder().success("WA-READ-S-005", {"address": ref.address, "diff": "\n".join(lines)})


def log(bench: Bench, root: str, limit: int) -> Reply:
    """The newest commits of the repository holding `root`."""
    try:
        if bench.history.head(root) is None:
            return ReplyBuilder().invalid("WA-RES-I-018", {"root": root})
        commits = bench.history.log(root, limit)
    except PortError:
        return ReplyBuilder().error("CT-GATE-E-001", {"root": root})
    rows = [{"sha": c.sha, "message": c.message, "author": c.author, "time": c.time} for c in commits]
    return ReplyBuilder().success("WA-READ-S-006", {"root": root, "commits": rows, "count": len(rows)})


def add(bench: Bench, paths: list[str]) -> Reply:
    """Stage files (present or deleted): a governed WRITE on each."""
    places: list[Location] = []
    for path in paths:
        reply, ref = bench.world.resolve(path, bench.session.home, must_exist=False)
        if ref is None:
            return reply
        target = bench.world.target(ref)
        decision = enforce(bench.session.mode, Operation.WRITE, target, bench.contract)
        if decision.terminal:
            return decision
        places.append(Location(target.root.value, target.parts))
    roots = {place.root for place in places}
    if len(roots) != 1:
        return ReplyBuilder().invalid("WA-WRITE-I-005", {"problem": "name files of one root"})
    root = roots.pop()
    try:
        if bench.history.head(root) is None:
            return ReplyBuilder().invalid("WA-RES-I-018", {"root": root})
        bench.history.stage(root, [place.parts for place in places])
    except PortError:
        return ReplyBuilder().error("CT-GATE-E-001", {"root": root})
    staged = [bench.world.address_of(root, place.parts) for place in places]
    return ReplyBuilder().success("WA-WRITE-S-003", {"staged": staged})


def commit(bench: Bench, root: str, message: str) -> Reply:
    """Commit what is staged: a governed WRITE on every staged file; the message goes to the audit."""
    if not message.strip():
        return ReplyBuilder().invalid("WA-WRITE-I-005", {"problem": "a commit needs a message"})
    staged = _staged(bench, root)
    if isinstance(staged, Reply):
        return staged
    refusal = _governed(bench, root, staged)
    if refusal is not None:
        return refusal
    try:
        sha = bench.history.commit(root, message, "ck3raven agent <agent@ck3raven>")
    except PortError:
        return ReplyBuilder().error("CT-GATE-E-001", {"root": root})
    paths = _visible(bench, root, staged)
    _record(bench, sha, message, paths)
    return ReplyBuilder().success("WA-WRITE-S-004", {"sha": sha, "message": message, "paths": paths})


def _staged(bench: Bench, root: str) -> list[Change] | Reply:
    """What the index holds beyond HEAD, or why there is nothing to commit."""
    try:
        if bench.history.head(root) is None:
            return ReplyBuilder().invalid("WA-RES-I-018", {"root": root})
        staged = bench.history.staged(root)
    except PortError:
        return ReplyBuilder().error("CT-GATE-E-001", {"root": root})
    return staged or ReplyBuilder().invalid("WA-WRITE-I-005", {"problem": "nothing is staged"})


def _governed(bench: Bench, root: str, staged: list[Change]) -> Reply | None:
    """The first refusal among the staged files (each a WRITE), or None when all may be committed."""
    for change in staged:
        address = bench.world.address_of(root, change.parts)
        reply, ref = bench.world.resolve(address, bench.session.home, must_exist=False)
        if ref is None:
            return reply
        decision = enforce(bench.session.mode, Operation.WRITE, bench.world.target(ref), bench.contract)
        if decision.terminal:
            return decision
    return None


def _visible(bench: Bench, root: str, changes: list[Change]) -> list[dict[str, object]]:
    entries: list[dict[str, object]] = []
    for change in changes:
        address = bench.world.address_of(root, change.parts)
        reply, _ = bench.world.resolve(address, RootCategory(root), must_exist=False)
        if not reply.terminal:
            entries.append({"address": address, "kind": change.kind})
    return entries


def _record(bench: Bench, sha: str, message: str, paths: list[dict[str, object]]) -> None:
    contract_id = bench.contract.contract_id if bench.contract else None
    evidence = {"commit": sha, "message": message, "paths": paths, "contract_id": contract_id}
    reconciliation.write_evidence(
        bench.world, f"commit-{sha}", evidence
    )  # no data root: the commit is the record


def _lines(data: bytes | None) -> list[str]:
    return data.decode("utf-8", "replace").splitlines() if data is not None else []
