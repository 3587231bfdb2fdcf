"""`ck3_git` handlers: status, diff and log read the history of the repository holding a root; add and
commit are governed WRITEs (each file they touch goes through enforcement, so they need a contract), and
a commit's message is recorded as evidence in the state store."""

import difflib
import json
from contextlib import suppress
from typing import ClassVar, Final

from attrs import frozen

from domain.contracts.lifecycle import active_contract
from domain.failures import history_failure
from domain.policy.enforcement import ActiveContract, enforce
from domain.replies.builder import Reply, ReplyBuilder
from domain.services import Services
from domain.session import Session
from domain.use_cases.request import Request
from domain.vocabulary import Operation, RootCategory
from domain.world.visibility import VisibilityRef
from ports.errors import PortError
from ports.history import Change

DIFF_LIMIT: Final = 200_000
AUTHOR: Final = "ck3raven agent <agent@ck3raven>"


@frozen
class GitStatus(Request):
    TOOL: ClassVar[str] = "ck3_git"
    root: str = "ROOT_REPO"


@frozen
class GitDiff(Request):
    TOOL: ClassVar[str] = "ck3_git"
    path: str | None


@frozen
class GitLog(Request):
    TOOL: ClassVar[str] = "ck3_git"
    root: str = "ROOT_REPO"
    limit: int = 20


@frozen
class GitAdd(Request):
    TOOL: ClassVar[str] = "ck3_git"
    paths: tuple[str, ...]


@frozen
class GitCommit(Request):
    TOOL: ClassVar[str] = "ck3_git"
    message: str
    root: str = "ROOT_REPO"


def status(session: Session, services: Services, request: GitStatus) -> Reply:
    """Every change of the working tree against HEAD under a root, as canonical addresses."""
    root = _root(session, request.root)
    if isinstance(root, Reply):
        return root
    try:
        head = services.history.head(root)
        changes = services.history.changes_since(root, head) if head else []
    except PortError:
        return history_failure(root)
    entries = _visible(session, root, changes)
    return ReplyBuilder().success(
        "WA-READ-S-004", {"root": root, "head": head, "changes": entries, "count": len(entries)}
    )


def diff(session: Session, services: Services, request: GitDiff) -> Reply:
    """A unified diff of one visible file between HEAD and the working tree."""
    reply, ref = session.world.resolve(request.path, session.home, must_exist=False)
    if ref is None:
        return reply
    target = session.world.target(ref)
    root = target.root.value
    try:
        head = services.history.head(root)
        old = services.history.content_at(root, head, target.parts) if head else None
        new = session.world.read_file(ref, DIFF_LIMIT) if ref.kind == "file" else None
    except PortError:
        return history_failure(root)
    lines = difflib.unified_diff(
        _lines(old), _lines(new), fromfile=f"HEAD:{ref.address}", tofile=ref.address, lineterm=""
    )
    return ReplyBuilder().success("WA-READ-S-005", {"address": ref.address, "diff": "\n".join(lines)})


def log(session: Session, services: Services, request: GitLog) -> Reply:
    """The newest commits of the repository holding a root."""
    root = _root(session, request.root)
    if isinstance(root, Reply):
        return root
    try:
        if services.history.head(root) is None:
            return ReplyBuilder().invalid("WA-RES-I-018", {"root": root})
        commits = services.history.log(root, request.limit)
    except PortError:
        return history_failure(root)
    rows = [{"sha": c.sha, "message": c.message, "author": c.author, "time": c.time} for c in commits]
    return ReplyBuilder().success("WA-READ-S-006", {"root": root, "commits": rows, "count": len(rows)})


def add(session: Session, services: Services, request: GitAdd) -> Reply:
    """Stage files (present or deleted): a governed WRITE on each, through the ref each resolved to."""
    refs = _governed_refs(session, services, request.paths)
    if isinstance(refs, Reply):
        return refs
    targets = [session.world.target(ref) for ref in refs]
    roots = {target.root.value for target in targets}
    if len(roots) != 1:
        return ReplyBuilder().invalid("WA-WRITE-I-005", {"problem": "name files of one root"})
    root = roots.pop()
    try:
        if services.history.head(root) is None:
            return ReplyBuilder().invalid("WA-RES-I-018", {"root": root})
        services.history.stage(root, [target.parts for target in targets])
    except PortError:
        return history_failure(root)
    return ReplyBuilder().success("WA-WRITE-S-003", {"staged": [ref.address for ref in refs]})


def _governed_refs(
    session: Session, services: Services, paths: tuple[str, ...]
) -> list[VisibilityRef] | Reply:
    """A ref per path, each permitted a WRITE; or the first terminal reply."""
    contract = active_contract(session, services)
    refs = []
    for path in paths:
        reply, ref = session.world.resolve(path, session.home, must_exist=False)
        if ref is None:
            return reply
        decision = enforce(session.mode, Operation.WRITE, session.world.target(ref), contract)
        if decision.terminal:
            return decision
        refs.append(ref)
    return refs


def commit(session: Session, services: Services, request: GitCommit) -> Reply:
    """Commit what is staged: a governed WRITE on every staged file; the message goes to the evidence."""
    problem = _message_problem(services, request.message)
    if problem is not None:
        return ReplyBuilder().invalid("WA-WRITE-I-005", {"problem": problem})
    root = _root(session, request.root)
    if isinstance(root, Reply):
        return root
    staged = _staged(services, root)
    if isinstance(staged, Reply):
        return staged
    contract = active_contract(session, services)
    refusal = _governed(session, root, staged, contract)
    if refusal is not None:
        return refusal
    try:
        sha = services.history.commit(root, request.message, AUTHOR)
    except PortError:
        return history_failure(root)
    paths = _visible(session, root, staged)
    evidence = {
        "commit": sha,
        "message": request.message,
        "paths": paths,
        "contract_id": contract.contract_id if contract else None,
    }
    with suppress(
        PortError
    ):  # the commit itself is the record: a reply never says Error for work that landed
        services.evidence.put("commit", sha, json.dumps(evidence, indent=1))
    return ReplyBuilder().success("WA-WRITE-S-004", {"sha": sha, "message": request.message, "paths": paths})


def _message_problem(services: Services, message: str) -> str | None:
    if not message.strip():
        return "a commit needs a message"
    if services.leaks.leaks_in_content(message):  # its reply would be withheld: refuse before committing
        return "the message names a host path"
    return None


def _root(session: Session, root: str) -> str | Reply:
    roots = session.world.view.roots
    if root not in {r.value for r in roots}:
        return ReplyBuilder().invalid("WA-RES-I-009", {"roots": sorted(r.value for r in roots)})
    return root


def _staged(services: Services, root: str) -> list[Change] | Reply:
    """What the index holds beyond HEAD, or why there is nothing to commit."""
    try:
        if services.history.head(root) is None:
            return ReplyBuilder().invalid("WA-RES-I-018", {"root": root})
        staged = services.history.staged(root)
    except PortError:
        return history_failure(root)
    return staged or ReplyBuilder().invalid("WA-WRITE-I-005", {"problem": "nothing is staged"})


def _governed(
    session: Session, root: str, staged: list[Change], contract: ActiveContract | None
) -> Reply | None:
    """The first refusal among the staged files (each a WRITE), or None when all may be committed."""
    for change in staged:
        address = session.world.address_of(root, change.parts)
        reply, ref = session.world.resolve(address, session.home, must_exist=False)
        if ref is None:
            return reply
        decision = enforce(session.mode, Operation.WRITE, session.world.target(ref), contract)
        if decision.terminal:
            return decision
    return None


def _visible(session: Session, root: str, changes: list[Change]) -> list[dict[str, object]]:
    entries: list[dict[str, object]] = []
    for change in changes:
        address = session.world.address_of(root, change.parts)
        reply, _ = session.world.resolve(address, RootCategory(root), must_exist=False)
        if not reply.terminal:
            entries.append({"address": address, "kind": change.kind})
    return entries


def _lines(data: bytes | None) -> list[str]:
    return data.decode("utf-8", "replace").splitlines() if data is not None else []
