"""`ck3_dir` use cases (seed 004 §5.3): cd, list and tree over the World Adapter.

Resolve, return at once on a terminal reply, then open the VisibilityRef through the World Adapter.
Results are bounded: a listing or tree that reaches its cap says so (`truncated`) and how to narrow it.
"""

from collections.abc import Callable
from typing import Final

from domain.replies.builder import Reply, ReplyBuilder
from domain.session import Session, home_address
from domain.vocabulary import RootCategory
from domain.world.adapter import WorldAdapter
from domain.world.visibility import VisibilityRef
from ports.errors import LinkRefused, NotADirectory, NotFound, Unavailable

LIST_CAP: Final = 10_000
TREE_CAP: Final = 20_000
MAX_DEPTH: Final = 64
PROGRESS_EVERY: Final = 1_000

Progress = Callable[[int], None]


def change_home(session: Session, world: WorldAdapter, target: str | None) -> Reply:
    """Move the session home to another configured root (root categories only)."""
    name = (target or "").removesuffix(":/")
    if name not in {root.value for root in RootCategory}:
        return ReplyBuilder().invalid(
            "WA-RES-I-016", {"rule": "cd-root-only", "expected": "a root category such as ROOT_GAME"}
        )
    root = RootCategory(name)
    if root not in world.view.roots:
        return ReplyBuilder().invalid("WA-RES-I-009", {"roots": sorted(r.value for r in world.view.roots)})
    reply = ReplyBuilder().success("MCP-CFG-S-003", {"home": root.value, "address": home_address(root)})
    session.home = root
    return reply


def list_folder(session: Session, world: WorldAdapter, path: str | None) -> Reply:
    """The visible children of a folder: address, kind and size of each, capped at LIST_CAP."""
    opened = _folder(session, world, path)
    if isinstance(opened, Reply):
        return opened
    try:
        listed = world.list_dir(opened)
    except (NotFound, NotADirectory, LinkRefused, Unavailable) as exc:
        return _port_failure(exc, opened.address)
    entries = [{"address": e.address, "kind": e.kind, "size": e.size} for e in listed[:LIST_CAP]]
    return ReplyBuilder().success(
        "WA-READ-S-001",
        {
            "address": opened.address,
            "entries": entries,
            "count": len(entries),
            **_bounds(len(listed), LIST_CAP),
        },
    )


def tree(
    session: Session, world: WorldAdapter, path: str | None, depth: int, progress: Progress | None
) -> Reply:
    """Visible folders below a folder, `depth` levels down, depth-first, capped at TREE_CAP."""
    if not 1 <= depth <= MAX_DEPTH:
        return ReplyBuilder().invalid(
            "MCP-VAL-I-001", {"errors": [{"field": "depth", "problem": f"must be from 1 to {MAX_DEPTH}"}]}
        )
    opened = _folder(session, world, path)
    if isinstance(opened, Reply):
        return opened
    folders: list[str] = []
    walk = world.walk_dirs(opened, depth)  # a generator: closed below, releasing its descriptors
    try:
        for address in walk:
            if len(folders) == TREE_CAP:
                break
            folders.append(address)
            if progress is not None and len(folders) % PROGRESS_EVERY == 0:
                progress(len(folders))
    except (NotFound, NotADirectory, LinkRefused, Unavailable) as exc:
        return _port_failure(exc, opened.address)
    finally:
        walk.close()
    truncated = len(folders) == TREE_CAP
    return ReplyBuilder().success(
        "WA-READ-S-002",
        {
            "address": opened.address,
            "depth": depth,
            "directories": folders,
            "count": len(folders),
            "truncated": truncated,
            "hint": _hint(truncated),
        },
    )


def _folder(session: Session, world: WorldAdapter, path: str | None) -> VisibilityRef | Reply:
    reply, ref = world.resolve(path, session.home)
    if ref is None:
        return reply
    if ref.kind == "symlink":
        return ReplyBuilder().invalid("WA-RES-I-012", {"address": ref.address})
    if ref.kind != "dir":
        return ReplyBuilder().invalid("WA-RES-I-014", {"address": ref.address})
    return ref


def _port_failure(exc: Exception, address: str) -> Reply:
    if isinstance(exc, Unavailable):
        return ReplyBuilder().error("WA-IO-E-001", {"address": address})
    if isinstance(exc, LinkRefused):
        return ReplyBuilder().invalid("WA-RES-I-012", {"address": address})
    return ReplyBuilder().invalid("WA-RES-I-001", {"address": address})


def _bounds(total: int, cap: int) -> dict[str, object]:
    truncated = total > cap
    return {"truncated": truncated, "hint": _hint(truncated)}


def _hint(truncated: bool) -> str | None:  # noqa: FBT001 - a plain flag from the caller's own count
    return "The result reached its cap: list a narrower folder or lower depth." if truncated else None
