"""`ck3_dir` handlers (seed 004 §5.3): pwd, list and tree over the session's World Adapter (and cd, the
session's home, which `ck3_mode` offers since it changes the session).

Resolve, return at once on a terminal reply, then open the VisibilityRef through the World Adapter.
Listings and trees leave out what the repository ignores, and `.git`, unless asked (`include_ignored`).
Results are bounded: a listing comes in pages (`cursor`, `limit`) with its total; a tree that reaches its
cap says so (`truncated`) and how to narrow it.
"""

from collections.abc import Callable, Iterator
from itertools import islice
from typing import ClassVar, Final

from attrs import field, frozen

from domain.failures import port_failure
from domain.globs import Glob, compile_glob
from domain.replies import budget
from domain.replies.builder import Reply, ReplyBuilder
from domain.replies.frozen import FrozenMap
from domain.replies.refusal import Refused
from domain.services import Services
from domain.session import Session, home_address
from domain.use_cases.arguments import address, flag, given, number, text
from domain.use_cases.ignoring import skip_for
from domain.use_cases.request import Request
from domain.vocabulary import RootCategory
from domain.world.visibility import VisibilityRef
from domain.world.walks import NamedSkip
from ports.errors import PortError

TREE_CAP: Final = 20_000
LIST_CAP: Final = TREE_CAP
"""The most entries one page of a listing carries: a tree's cap, as `limit` is one argument of both in the
tool's schema (its maximum is this)."""
LIST_PAGE: Final = 1_000
"""A listing's page size when the call gives no `limit`."""
MAX_DEPTH: Final = 64
PROGRESS_EVERY: Final = 1_000

Progress = Callable[[int], None]
IGNORED: Final = "include git-ignored entries and .git (false)"


@frozen
class Pwd(Request):
    TOOL: ClassVar[str] = "ck3_dir"
    MODELESS: ClassVar[bool] = True
    SESSION_ONLY: ClassVar[bool] = True


@frozen
class Cd(Request):
    TOOL: ClassVar[str] = "ck3_mode"
    root_category: str | None = given(text("root_category", "the root to make home, e.g. ROOT_GAME"))


@frozen
class ListFolder(Request):
    """A page of a folder's children: those whose name matches `glob`, after the name `cursor`."""

    TOOL: ClassVar[str] = "ck3_dir"
    FILES_ALONE: ClassVar[bool] = True  # the folder, and the repository's ignore rules
    path: str | None = given(address())
    glob: str | None = given(text("glob", "only names matching, e.g. *.yml"), default=None)
    cursor: str | None = given(text("cursor", "next_cursor of the page before"), default=None)
    limit: int | None = given(number("limit", "entries per page", high=LIST_CAP), default=None)
    """Entries per page; None: what fits the reply budget, at most LIST_PAGE."""
    include_ignored: bool = given(flag("include_ignored", IGNORED), default=False)


@frozen
class Tree(Request):
    TOOL: ClassVar[str] = "ck3_dir"
    FILES_ALONE: ClassVar[bool] = True  # the folders, and the repository's ignore rules
    path: str | None = given(address())
    depth: int = given(number("depth", "folder levels to descend (3)", high=MAX_DEPTH), default=3)
    progress: Progress | None = field(default=None, eq=False)
    include_ignored: bool = given(flag("include_ignored", IGNORED), default=False)
    limit: int | None = given(number("limit", "folders (what fits)", high=TREE_CAP), default=None)
    """The most folders (up to TREE_CAP); None: what fits the reply budget."""
    cursor: str | None = given(text("cursor", "next_cursor of the page before"), default=None)
    """The next_cursor of the window before: the folders already shown are skipped."""


def pwd(session: Session, _: Services, __: Pwd) -> Reply:
    """The session home. Touches no filesystem and needs no mode."""
    return ReplyBuilder().success(
        "MCP-CFG-S-001", {"home": session.home.value, "address": home_address(session.home)}
    )


def cd(session: Session, _: Services, request: Cd) -> Reply:
    """Move this session's home to another configured root (root categories only)."""
    name = (request.root_category or "").removesuffix(":/")
    if name not in {root.value for root in RootCategory}:
        return ReplyBuilder().invalid(
            "WA-RES-I-016", {"rule": "cd-root-only", "expected": "a root category such as ROOT_GAME"}
        )
    root = RootCategory(name)
    roots = session.world.view.roots
    if root not in roots:
        return ReplyBuilder().invalid("WA-RES-I-009", {"roots": sorted(r.value for r in roots)})
    reply = ReplyBuilder().success("MCP-CFG-S-003", {"home": root.value, "address": home_address(root)})
    session.home = root
    return reply


def list_folder(session: Session, services: Services, request: ListFolder) -> Reply:
    """One page of the visible children of a folder (address, kind, size), sorted by name, with the total
    that match and the cursor of the next page. Unless the call names a `limit`, a page is what fits the
    reply budget."""
    if request.limit is not None and not 1 <= request.limit <= LIST_CAP:
        raise _refused("limit", f"must be from 1 to {LIST_CAP}")
    glob = _glob(request.glob)
    opened = _folder(session, request.path)
    skip = skip_for(session, services, opened, include_ignored=request.include_ignored)
    try:
        listed = session.world.list_dir(opened, None if glob is None else lambda name: glob.matches((name,)))
    except PortError as exc:
        return port_failure(exc, opened.address)
    if isinstance(skip, NamedSkip):  # refused by name alone: the names are checked, no call each
        kept = [entry for entry in listed if entry.name not in skip.names]
    else:
        kept = [entry for entry in listed if not skip((entry.name,), entry.kind)] if skip else listed
    after = [entry for entry in kept if entry.name > request.cursor] if request.cursor else kept
    below = opened.address if opened.address.endswith("/") else opened.address + "/"
    # a row is named below the folder listed; one the world spells elsewhere (a playset's mod listed in the
    # workshop folder: `mod:<Name>:/`) keeps its whole address
    rows = [
        FrozenMap(name=address.removeprefix(below), kind=kind, size=size)
        for address, _, kind, size in after[: request.limit or LIST_PAGE]
    ]
    if request.limit is None:  # the call did not ask: a page is what fits
        rows = rows[: budget.rows_fitting(rows, budget.room(services.budget, opened.address))]
    page = after[: len(rows)]
    more = len(after) > len(page)
    return ReplyBuilder().success(
        "WA-READ-S-001",
        {
            "address": opened.address,
            # each row made frozen once, above: the builder keeps a FrozenMap as it is
            "entries": rows,
            "count": len(page),
            "total": len(kept),
            "truncated": more,
            "next_cursor": page[-1].name if more else None,
            "hint": "More entries follow: call again with cursor=next_cursor." if more else None,
        },
    )


def tree(session: Session, services: Services, request: Tree) -> Reply:
    """Visible folders below a folder, `depth` levels down, depth-first, capped at TREE_CAP."""
    skipped = budget.position(request.cursor)
    _hold_tree(request, skipped)
    opened = _folder(session, request.path)
    skipped = skipped or 0  # a cursor no window gave is refused above
    skip = skip_for(session, services, opened, include_ignored=request.include_ignored)
    walk = session.world.walk_dirs(
        opened, request.depth, skip
    )  # a generator: closed below, releasing descriptors
    try:
        # a later window passes over the rows shown before it
        folders = _gathered(islice(walk, skipped, None), request.progress)
    except PortError as exc:
        return port_failure(exc, opened.address)
    finally:
        walk.close()
    truncated = len(folders) == TREE_CAP
    most = request.limit or budget.rows_fitting(folders, budget.room(services.budget, opened.address))
    truncated, folders = truncated or most < len(folders), folders[:most]
    return ReplyBuilder().success(
        "WA-READ-S-002",
        {
            "address": opened.address,
            "depth": request.depth,
            "directories": folders,
            "count": len(folders),
            "truncated": truncated,
            "next_cursor": str(skipped + len(folders)) if truncated else None,
            "hint": _hint(truncated),
        },
    )


def _gathered(walk: Iterator[str], progress: Progress | None) -> list[str]:
    """Up to TREE_CAP folders of `walk`, taken a progress step at a time (each step's folders gathered
    at C speed, not one by one), `progress` told the count after each whole step."""
    folders: list[str] = []
    while len(folders) < TREE_CAP:
        before, step = len(folders), min(PROGRESS_EVERY, TREE_CAP - len(folders))
        folders += islice(walk, step)
        if len(folders) - before < step:  # a step the walk could not fill: it has ended
            break
        if progress is not None:
            progress(len(folders))
    return folders


def _hold_tree(request: Tree, skipped: int | None) -> None:
    """Refused unless the tree's depth, limit and cursor are ones it can take."""
    if not 1 <= request.depth <= MAX_DEPTH:
        raise _refused("depth", f"must be from 1 to {MAX_DEPTH}")
    if request.limit is not None and not 1 <= request.limit <= TREE_CAP:
        raise _refused("limit", f"must be from 1 to {TREE_CAP}")
    if skipped is None:
        raise _refused("cursor", "must be the next_cursor of a tree before")


def _folder(session: Session, path: str | None) -> VisibilityRef:
    """The ref of the folder `path` names; raises Refused for anything else."""
    ref = session.world.ref(path, session.home)
    if ref.kind == "symlink":
        raise Refused.invalid("WA-RES-I-012", {"address": ref.address})
    if ref.kind != "dir":
        raise Refused.invalid("WA-RES-I-014", {"address": ref.address})
    return ref


def _glob(pattern: str | None) -> Glob | None:
    if pattern is None:
        return None
    try:
        return compile_glob(pattern)
    except ValueError as exc:
        raise _refused("glob", str(exc)) from None


def _refused(name: str, problem: str) -> Refused:
    return Refused.invalid("MCP-VAL-I-001", {"errors": [{"field": name, "problem": problem}]})


def _hint(truncated: bool) -> str | None:  # noqa: FBT001 - a plain flag from the caller's own count
    return (
        "The result reached its cap or the reply budget: call again with cursor=next_cursor, or list a "
        "narrower folder or lower depth."
        if truncated
        else None
    )
