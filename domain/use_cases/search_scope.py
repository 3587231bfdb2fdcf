"""Where a search looks, and the words it is asked in (`ck3_search`'s two commands share them): the
folders it walks (`bases`: the one the call names, or every place of the visible world in the order
`WorldAdapter.places` gives), the walk's ignore rules, a glob compiled or refused, and a refusal of one
argument. A cursor no earlier window gave, a path that is no visible folder and a glob that cannot be
compiled are Invalid, raised as Refused.
"""

from typing import Final

from domain.globs import Glob, compile_glob
from domain.replies import budget
from domain.replies.refusal import Refused
from domain.services import Services
from domain.session import Session
from domain.use_cases.ignoring import skip_for
from domain.world.visibility import VisibilityRef
from domain.world.walks import Skip

MAX_DEPTH: Final = 64


def glob_of(pattern: str, *, ignore_case: bool) -> Glob:
    """`pattern` compiled; raises Refused naming the glob when it cannot be."""
    try:
        return compile_glob(pattern, ignore_case=ignore_case)
    except ValueError as exc:
        raise refused("glob", str(exc)) from None


def bases(session: Session, under: str | None, cursor: str | None) -> list[VisibilityRef]:
    """The folders to walk: the one `under` names (the call's `path`), or every place of the world; raises
    Refused for a cursor no window gave, or a `path` that is no visible folder."""
    if budget.position(cursor) is None:
        raise refused("cursor", "must be the next_cursor of the same search before")
    world = session.world
    if under is not None:
        folder = world.ref(under, session.home)
        if folder.kind != "dir":
            raise Refused.invalid("WA-RES-I-014", {"address": folder.address})
        return [folder]
    found: list[VisibilityRef] = []
    for address in world.places():
        ref = world.ref_or_none(address, session.home)
        if ref is not None and ref.kind == "dir":
            found.append(ref)
    return found


def ignoring(
    session: Session, services: Services, base: VisibilityRef, *, include_ignored: bool
) -> Skip | None:
    """What a walk of `base` leaves out by the ignore rules there (None: nothing, `include_ignored`)."""
    return skip_for(session, services, base, include_ignored=include_ignored)


def refused(name: str, problem: str) -> Refused:
    """The refusal of the argument `name`, saying its `problem`."""
    return Refused.invalid("MCP-VAL-I-001", {"errors": [{"field": name, "problem": problem}]})
