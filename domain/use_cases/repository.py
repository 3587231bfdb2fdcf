"""`ck3_git` handlers (status, diff and log read the history of the repository holding a visible address:
a root, or a mod folder that is its own repository) and `ck3_commit` handlers (add and commit are governed
WRITEs: each file they touch goes through enforcement, so they need a contract; a commit's message is
recorded as evidence).

The file rules hold on this route too: `add` stages the bytes it read through the file's ref, so a link,
a special file, a file with several links or an invisible one is refused exactly as `ck3_file` refuses
it, and `diff` shows only regular-file content the agent could read.
"""

import difflib
import json
from contextlib import suppress
from typing import ClassVar, Final, Self

from attrs import frozen

from domain.contracts import journal
from domain.contracts.lifecycle import active_contract
from domain.contracts.reconciliation import visible_changes
from domain.failures import history_failure, port_failure
from domain.policy.enforcement import ActiveContract, Target, permit, permit_each
from domain.replies import budget
from domain.replies.builder import Reply, ReplyBuilder
from domain.replies.refusal import Refused
from domain.services import Services
from domain.session import Session
from domain.use_cases.arguments import given, number, text, texts
from domain.use_cases.file_contents import READ_LIMIT
from domain.use_cases.request import Args, Request
from domain.vocabulary import Operation
from domain.world.visibility import VisibilityRef
from ports.errors import PortError, TooLarge
from ports.history import Change

AUTHOR: Final = "ck3raven agent <agent@ck3raven>"
IN_REPOSITORY: Final = "an address in the repository (ROOT_REPO)"
LOG_LIMIT: Final = 20
"""The commits a log shows when the call names no limit."""


@frozen
class GitStatus(Request):
    TOOL: ClassVar[str] = "ck3_git"
    path: str = given(text("path", IN_REPOSITORY), default="ROOT_REPO")
    """A root, or any visible address: the repository holding it is the one read."""
    cursor: str | None = given(text("cursor", "next_cursor of the status before"), default=None)
    """The next_cursor of the status before: the changes it showed are passed over."""


@frozen
class GitDiff(Request):
    TOOL: ClassVar[str] = "ck3_git"
    path: str | None = given(text("path", "the file"))


@frozen
class GitLog(Request):
    TOOL: ClassVar[str] = "ck3_git"
    path: str = given(text("path", IN_REPOSITORY), default="ROOT_REPO")
    limit: int | None = given(number("limit", "newest commits (20)", high=200), default=None)
    """The newest commits; None: LOG_LIMIT, and only those that fit the reply budget."""


@frozen
class GitAdd(Request):
    TOOL: ClassVar[str] = "ck3_commit"
    MUTATES: ClassVar[bool] = True
    paths: tuple[str, ...] = given(texts("paths", "the files' addresses"))

    @classmethod
    def build(cls, args: Args) -> Self:
        return cls(tuple(args.get("paths", ())))


@frozen
class GitCommit(Request):
    TOOL: ClassVar[str] = "ck3_commit"
    MUTATES: ClassVar[bool] = True
    path: str = given(text("path", "an address in the repository (ROOT_REPO)"), default="ROOT_REPO")
    """A root, or any visible address: the repository holding it is the one committed to."""
    message: str = given(text("message", "the commit message"), default="")


@frozen
class Repository:
    """The repository a request works on: the root, and the root-relative top of a repository inside it
    (() when it is the one holding the root)."""

    root: str
    folder: tuple[str, ...]


def status(session: Session, services: Services, request: GitStatus) -> Reply:
    """Every change of the working tree against HEAD under a root, as canonical addresses: counted in
    full, those that fit the reply budget shown, from the call's cursor on."""
    start = budget.position(request.cursor)
    if start is None:
        problem = "cursor is the next_cursor of an earlier status"
        return ReplyBuilder().invalid("MCP-VAL-I-001", {"errors": [{"field": "cursor", "problem": problem}]})
    repo = _repository(session, services, request.path)
    try:
        head = services.history.head(repo.root, repo.folder)
        changes = services.history.changes_since(repo.root, head, repo.folder) if head else []
    except PortError:
        return history_failure(repo.root)
    entries = visible_changes(session.world, repo.root, changes)
    end = start + budget.rows_fitting(entries[start:], budget.room(services.budget, repo.root, head))
    data = {"root": repo.root, "head": head, "changes": entries[start:end], "count": len(entries)}
    data["repository"] = session.world.address_of(repo.root, repo.folder)
    return ReplyBuilder().success(
        "WA-READ-S-004", {**data, "next_cursor": str(end) if end < len(entries) else None}
    )


def diff(session: Session, services: Services, request: GitDiff) -> Reply:
    """A unified diff of one visible file between HEAD and the working tree."""
    ref = session.world.ref(request.path, session.home, must_exist=False)
    if ref.kind not in {"file", None}:
        return _not_a_file(ref, "diff")
    target = session.world.target(ref)
    root = target.root.value
    try:
        new = session.world.read_file(ref, READ_LIMIT) if ref.kind == "file" else None
    except TooLarge:
        return ReplyBuilder().invalid("WA-READ-I-002", {"address": ref.address, "limit": READ_LIMIT})
    except PortError as exc:
        return port_failure(exc, ref.address)
    try:
        head = services.history.head(root, target.parts[:-1])
        old = services.history.content_at(root, head, target.parts) if head else None
    except PortError:
        return history_failure(root)
    lines = list(
        difflib.unified_diff(
            _lines(old), _lines(new), fromfile=f"HEAD:{ref.address}", tofile=ref.address, lineterm=""
        )
    )
    # cut at a line to fit the reply budget; the whole file is read with ck3_read
    ended = [line + "\n" for line in lines]  # each line's end is counted: the diff joins them with one
    shown = lines[: budget.text_fitting(ended, budget.room(services.budget, ref.address, ref.address))]
    data = {"address": ref.address, "diff": "\n".join(shown), "truncated": len(shown) < len(lines)}
    return ReplyBuilder().success("WA-READ-S-005", data)


def log(session: Session, services: Services, request: GitLog) -> Reply:
    """The newest commits of the repository holding a visible address."""
    repo = _repository(session, services, request.path)
    try:
        if services.history.head(repo.root, repo.folder) is None:
            return ReplyBuilder().invalid("WA-RES-I-018", {"root": request.path})
        wanted = request.limit or LOG_LIMIT
        commits = services.history.log(repo.root, wanted + 1, repo.folder)  # one more: are there older?
    except PortError:
        return history_failure(repo.root)
    older, commits = len(commits) > wanted, commits[:wanted]
    rows = [{"sha": c.sha, "message": c.message, "author": c.author, "time": c.time} for c in commits]
    if request.limit is None:  # the call did not ask: the newest that fit the budget
        rows = rows[: budget.rows_fitting(rows, budget.room(services.budget, repo.root))]
    data = {"root": repo.root, "commits": rows, "count": len(rows)}
    return ReplyBuilder().success("WA-READ-S-006", {**data, "truncated": older or len(rows) < len(commits)})


def add(session: Session, services: Services, request: GitAdd) -> Reply:
    """Stage files (present or deleted): a governed WRITE on each, staging the bytes read through its ref.
    A file in no repository is said first: no contract would make staging it possible."""
    _outside_repositories(session, services, request.paths)
    staged = _governed_contents(session, services, request.paths)
    targets = [session.world.target(ref) for ref, _ in staged]
    try:
        tops = [services.history.repository(t.root.value, t.parts[:-1]) for t in targets]
        if None in tops:
            return ReplyBuilder().invalid("WA-RES-I-018", {"root": targets[tops.index(None)].root.value})
        repos = {
            Repository(t.root.value, top) for t, top in zip(targets, tops, strict=True) if top is not None
        }
        if len(repos) != 1:
            return ReplyBuilder().invalid("WA-WRITE-I-005", {"problem": "name files of one git repository"})
        repo = repos.pop()
        if services.history.head(repo.root, repo.folder) is None:
            return ReplyBuilder().invalid("WA-RES-I-018", {"root": repo.root})
        files = [(t.parts, content) for t, (_, content) in zip(targets, staged, strict=True)]
        services.history.stage(repo.root, files, repo.folder)
    except PortError:
        return history_failure(targets[0].root.value)
    addresses = [ref.address for ref, _ in staged]
    shown = addresses[: budget.rows_fitting(addresses, budget.room(services.budget))]
    return ReplyBuilder().success("WA-WRITE-S-003", {"staged": shown, "count": len(addresses)})


def _outside_repositories(session: Session, services: Services, paths: tuple[str, ...]) -> None:
    """Raises Refused (WA-RES-I-018) for the first path that lies in no git repository with a commit (a
    path that does not resolve is passed over: the governed staging says why)."""
    for path in paths:
        ref = session.world.ref_or_none(path, session.home, must_exist=False)
        if ref is None:
            continue
        target = session.world.target(ref)
        try:
            top = services.history.repository(target.root.value, target.parts[:-1])
            head = services.history.head(target.root.value, top) if top is not None else None
        except PortError:
            raise Refused(history_failure(target.root.value)) from None
        if head is None:
            raise Refused.invalid("WA-RES-I-018", {"root": target.root.value})


def _governed_contents(
    session: Session, services: Services, paths: tuple[str, ...]
) -> list[tuple[VisibilityRef, bytes | None]]:
    """Each path's ref, permitted a WRITE, with the content to stage; raises Refused with the first
    terminal reply."""
    contract = active_contract(session, services)
    refs: list[VisibilityRef] = []
    targets: list[tuple[Target, str]] = []
    for path in paths:
        ref = session.world.ref(path, session.home, must_exist=False)
        target = session.world.target(ref)
        kind = _kind_since_head(services, target.root.value, target.parts, exists=ref.kind is not None)
        refs.append(ref)
        targets.append((target, kind))
    # the ready call of a refusal holds what fits half the reply (the refusal also names the first target)
    permit_each(session.mode, Operation.WRITE, targets, contract, budget.room(services.budget) // 2)
    staged: list[tuple[VisibilityRef, bytes | None]] = []
    for ref in refs:
        content = _content(session, ref)
        staged.append((ref, content))
    return staged


def _kind_since_head(services: Services, root: str, parts: tuple[str, ...], *, exists: bool) -> str:
    """What staging a file records against HEAD (add, modify, delete): the edit kind a contract declares
    for it, since a contract's close reconciles against the repository's HEAD."""
    if not exists:
        return "delete"
    try:
        top = services.history.repository(root, parts[:-1])
        head = services.history.head(root, top) if top is not None else None
        known = head is not None and services.history.content_at(root, head, parts, top) is not None
    except PortError:
        return "modify"
    return "modify" if known else "add"


def _content(session: Session, ref: VisibilityRef) -> bytes | None:
    """What `add` stages for a ref: the file's bytes read by the file rules, None for a deleted file;
    raises Refused for what is no file or cannot be read."""
    if ref.kind is None:
        return None
    if ref.kind != "file":
        raise Refused(_not_a_file(ref, "add"))
    try:
        return session.world.read_file(ref, READ_LIMIT)
    except TooLarge:
        raise Refused.invalid("WA-READ-I-002", {"address": ref.address, "limit": READ_LIMIT}) from None
    except PortError as exc:
        raise Refused(port_failure(exc, ref.address)) from None


def _not_a_file(ref: VisibilityRef, command: str) -> Reply:
    if ref.kind == "symlink":
        return ReplyBuilder().invalid("WA-RES-I-012", {"address": ref.address})
    if ref.kind == "special":
        return ReplyBuilder().invalid("WA-RES-I-013", {"address": ref.address})
    return ReplyBuilder().invalid("WA-RES-I-017", {"address": ref.address, "command": command})


def commit(session: Session, services: Services, request: GitCommit) -> Reply:
    """Commit what is staged: a governed WRITE on every staged file; the message goes to the evidence."""
    problem = _message_problem(services, request.message)
    if problem is not None:
        return ReplyBuilder().invalid("WA-WRITE-I-005", {"problem": problem})
    repo = _repository(session, services, request.path)
    staged = _staged(services, repo)
    contract = active_contract(session, services)
    _governed(session, repo.root, staged, contract)
    try:
        parent = services.history.head(repo.root, repo.folder)
        sha = services.history.commit(repo.root, request.message, AUTHOR, repo.folder)
    except PortError:
        return history_failure(repo.root)
    with suppress(PortError):  # the commit is in history whatever the journal says: never an Error for it
        journal.commit(session, services, (repo.root, repo.folder), parent, sha)
    paths = visible_changes(session.world, repo.root, staged)
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
    shown = paths[: budget.rows_fitting(paths, budget.room(services.budget, sha, request.message))]
    data = {"sha": sha, "message": request.message, "paths": shown, "count": len(paths)}
    return ReplyBuilder().success("WA-WRITE-S-004", data)


def _message_problem(services: Services, message: str) -> str | None:
    if not message.strip():
        return "a commit needs a message"
    if services.leaks.leaks_in_content(message):  # its reply would be withheld: refuse before committing
        return "the message names a host path"
    return None


def _repository(session: Session, services: Services, text: str) -> Repository:
    """The repository a root name or a visible address lies in; raises Refused when there is none."""
    roots = {r.value for r in session.world.view.roots}
    folder: tuple[str, ...] = ()
    if text in roots:
        root = text
    elif text.startswith("ROOT_") and ":" not in text:  # meant as a root name, and none is configured so
        raise Refused.invalid("WA-RES-I-009", {"roots": sorted(roots)})
    else:
        ref = session.world.ref(text, session.home)
        target = session.world.target(ref)
        root, folder = target.root.value, target.parts if ref.kind == "dir" else target.parts[:-1]
    try:
        top = services.history.repository(root, folder)
    except PortError:
        raise Refused(history_failure(root)) from None
    if top is None:
        raise Refused.invalid("WA-RES-I-018", {"root": text})
    return Repository(root, top)


def _staged(services: Services, repo: Repository) -> list[Change]:
    """What the index holds beyond HEAD; raises Refused saying why it cannot be committed here."""
    try:
        head = services.history.head(repo.root, repo.folder)
        staging = services.history.staged(repo.root, repo.folder) if head is not None else None
    except PortError:
        raise Refused(history_failure(repo.root)) from None
    if staging is None:
        raise Refused.invalid("WA-RES-I-018", {"root": repo.root})
    if staging.elsewhere:  # a commit takes the whole index: never the operator's work outside the root
        raise Refused.invalid(
            "WA-WRITE-I-005", {"problem": "files outside the root are staged in its repository"}
        )
    if not staging.changes:
        raise Refused.invalid("WA-WRITE-I-005", {"problem": "nothing is staged"})
    return staging.changes


def _governed(session: Session, root: str, staged: list[Change], contract: ActiveContract | None) -> None:
    """Raises Refused with the first refusal among the staged files (each a WRITE to be committed)."""
    for change in staged:
        address = session.world.address_of(root, change.parts)
        ref = session.world.ref(address, session.home, must_exist=False)
        permit(session.mode, Operation.WRITE, session.world.target(ref), contract)


def _lines(data: bytes | None) -> list[str]:
    return data.decode("utf-8", "replace").splitlines() if data is not None else []
