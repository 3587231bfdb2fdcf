"""`ck3_playset` handlers: list, show, switch, which and overrides. A switch changes this session's lens
only; `which` and `overrides` answer from the merged view of the active playset (domain.ck3.merged)."""

from typing import ClassVar

from attrs import evolve, frozen

from domain.addresses import parse
from domain.ck3 import descriptors, key_queries, merged
from domain.ck3 import overrides as overrides_view
from domain.contracts.lifecycle import governing
from domain.replies import budget
from domain.replies.builder import Reply, ReplyBuilder
from domain.replies.refusal import Refused
from domain.services import Services
from domain.session import Session
from domain.use_cases import content_queries
from domain.use_cases.arguments import CURSOR, LIMIT, given, text
from domain.use_cases.request import Request
from domain.world import catalog
from domain.world.catalog import Catalog
from domain.world.playsets import mod_folders
from ports.errors import PortError, Unavailable

GAME_PATH = "a game-relative path, e.g. common/traits/00_traits.txt"


@frozen
class ListPlaysets(Request):
    TOOL: ClassVar[str] = "ck3_playset"


@frozen
class ShowPlayset(Request):
    TOOL: ClassVar[str] = "ck3_playset"
    name: str | None = given(text("name", "a playset"), default=None)


@frozen
class Which(Request):
    """Which source the game loads a game-relative path from (a file), or each file of a folder, a page at
    a time (`cursor`, `limit`: a file's sources come whole)."""

    TOOL: ClassVar[str] = "ck3_playset"
    path: str = given(text("path", GAME_PATH, required=True))
    cursor: str | None = given(CURSOR, default=None)
    limit: int | None = given(LIMIT, default=None)
    """Files per page; None: what fits the reply budget (a limit asked: up to key_queries.PAGE_BYTES)."""


@frozen
class Overrides(Request):
    """Recursively, what a mod (or every mod) overrides below a game-relative folder, a page at a time."""

    TOOL: ClassVar[str] = "ck3_playset"
    name: str | None = given(text("name", "a mod"), default=None)
    path: str | None = given(text("path", GAME_PATH), default=None)
    cursor: str | None = given(CURSOR, default=None)
    limit: int = given(LIMIT, default=overrides_view.PAGE)


@frozen
class SwitchPlayset(Request):
    TOOL: ClassVar[str] = "ck3_playset"
    name: str = given(text("name", "a playset", required=True))


def list_playsets(session: Session, services: Services, _: ListPlaysets) -> Reply:
    """Every playset file: its name, whether it is valid and active, and its mod count."""
    loaded = _catalog(session, services)
    leaks = services.leaks
    return catalog.list_playsets(
        loaded, lambda text: not (leaks.findings(text) or leaks.leaks_in_content(text))
    )


def show(session: Session, services: Services, request: ShowPlayset) -> Reply:
    """One playset (default: the active one), mods in load order with their addresses."""
    loaded = _catalog(session, services)
    reply = catalog.show_playset(
        loaded, request.name, session.mode, lambda folder: _described(session, folder)
    )
    return _with_index(services, reply)


def _with_index(services: Services, reply: Reply) -> Reply:
    """The reply with the playset's last content-index build (MCP-DB-S-001) in `data.index`."""
    if reply.code != "WA-CFG-S-002" or services.index is None:
        return reply
    try:
        last = services.index.last_build(str(reply.data["name"]))
    except PortError:
        return reply
    index = {"code": "MCP-DB-S-001", **content_queries.built(last)} if last else None
    return ReplyBuilder().success("WA-CFG-S-002", {**reply.data, "index": index})


def _described(session: Session, folder: str) -> dict[str, object] | None:
    """What the mod folder's descriptor.mod says, and the registry file beside it where it is visible."""
    found = descriptors.read(session.world, session.home, f"{folder}/descriptor.mod")
    if found is None:
        return None
    registry_address = descriptors.registry_of(folder)
    registry = descriptors.read(session.world, session.home, registry_address) if registry_address else None
    return {
        **found.summary(),
        "problems": [f"line {line}: {problem}" for line, problem in found.problems],
        "registry": registry.summary() if registry else None,
    }


def which(session: Session, services: Services, request: Which) -> Reply:
    """Every source of a game-relative path, vanilla then mods in load order, and what the game loads;
    what a replace_path hid and whose it was, and the rules the answer relied on. A folder's files come a
    page at a time."""
    content_queries.check_page(request.cursor, request.limit)
    path, found = _game_path(request.path, session), _sources(session)
    world = session.world
    shown = "/".join(path)
    if not path or _is_folder(session, path, found):
        return _which_folder(session, services, request, (path, found))
    sources, winner, hidden = merged.which(world, session.home, path, found)
    notes = merged.replace_paths(found, path[:-1], hidden)
    data: dict[str, object] = {"path": shown, "sources": sources, "winner": winner, "note": merged.PER_FILE}
    data |= {"replace_path": notes, "rules": merged.rules_for(notes)}
    return ReplyBuilder().success("WA-READ-S-009", data)


def _which_folder(
    session: Session, services: Services, request: Which, asked: tuple[tuple[str, ...], list[merged.Source]]
) -> Reply:
    """Each file directly in the folder `asked` names, from the sources `asked` gives: one page of them."""
    path, found = asked
    files, cut, hidden = merged.folder(session.world, session.home, path, found)
    notes = merged.replace_paths(found, path, hidden)
    data: dict[str, object] = {"path": "/".join(path), "note": merged.PER_FILE, "replace_path": notes}
    data["rules"] = merged.rules_for(notes)
    space = key_queries.PAGE_BYTES if request.limit is not None else budget.room(services.budget, data)
    shown, cursor = key_queries.page(list(files), request.cursor, request.limit, space)
    data |= {
        "files": shown,
        "count": len(shown),
        "total": len(files),
        "truncated": cursor is not None or cut,
        "next_cursor": cursor,
        "hint": "More files follow: call again with cursor=next_cursor." if cursor else None,
    }
    return ReplyBuilder().success("WA-READ-S-010", data)


def overrides(session: Session, _: Services, request: Overrides) -> Reply:
    """Every path below a game-relative folder (default: all) that a mod (default: every mod) provides
    where another source does too, or hides by its replace_path: sorted by path, one page at a time."""
    if not 1 <= request.limit <= overrides_view.MAX_PAGE:
        problem = f"must be from 1 to {overrides_view.MAX_PAGE}"
        return ReplyBuilder().invalid("MCP-VAL-I-001", {"errors": [{"field": "limit", "problem": problem}]})
    under = _game_path(request.path or "", session)
    found = _sources(session)
    chosen = _chosen(found, request.name)
    if chosen is None:
        return ReplyBuilder().invalid("WA-RES-I-010", {"mods": [source.label for source in found[1:]]})
    rows = overrides_view.rows(session.world, session.home, found, chosen, under)
    shown, cursor = overrides_view.page(rows, request.cursor, request.limit)
    hides = any(row.hidden for row in rows)
    data = {
        "mods": [found[index].label for index in sorted(chosen)],
        "path": "/".join(under),
        "files": [row.data() for row in shown],
        "count": len(shown),
        "total": len(rows),
        "truncated": cursor is not None,
        "next_cursor": cursor,
        "hint": "More files follow: call again with cursor=next_cursor." if cursor else None,
        "rules": [rule.summary() for rule in merged.RULES] if hides else [merged.SAME_PATH.summary()],
    }
    return ReplyBuilder().success("WA-READ-S-011", data)


def _game_path(text: str, session: Session) -> tuple[str, ...]:
    """The parts of a game-relative path, checked by the address grammar (raises Refused with its
    refusal)."""
    return parse(f"ROOT_GAME:/{text.strip('/')}", session.home.value).parts


def _sources(session: Session) -> list[merged.Source]:
    world = session.world
    return merged.sources(
        world, lambda folder: descriptors.read(world, session.home, f"{folder}/descriptor.mod")
    )


def _chosen(found: list[merged.Source], name: str | None) -> frozenset[int] | None:
    """The indexes of the mods asked about: the one named (by name or workshop id), or every mod."""
    if name is None:
        return frozenset(range(1, len(found)))
    named = [i for i, source in enumerate(found) if i and name in {source.label, source.workshop_id}]
    return frozenset(named[:1]) or None


def _is_folder(session: Session, path: tuple[str, ...], found: list[merged.Source]) -> bool:
    for source in found:
        ref = session.world.ref_or_none(f"{source.folder.rstrip('/')}/{'/'.join(path)}", session.home)
        if ref is not None and ref.kind == "dir":
            return True
    return False


def switch(session: Session, services: Services, request: SwitchPlayset) -> Reply:
    """Make the named playset active for this session: its mods become the visible mods at once. Not while
    a contract is open: its targets and approvals were read in the mods the session saw then."""
    current = governing(session, services)
    if current is not None:
        return ReplyBuilder().invalid("CT-GATE-I-002", {"contract_id": current.contract_id})
    loaded = _catalog(session, services)
    record = loaded.usable(request.name)
    folders = mod_folders(record)
    reply = ReplyBuilder().success(
        "MCP-CFG-S-004", {"name": record.name, "mods": [folder.name for folder in folders]}
    )
    # One assignment swaps the whole view: no call ever sees the old mods with the new name.
    session.world.set_view(evolve(session.world.view, mods=folders))
    session.playset = record.name
    content_queries.rebuild(session, services)
    return reply


def _catalog(session: Session, services: Services) -> Catalog:
    """The playsets; raises Refused (Error) when their folder cannot be read."""
    try:
        return Catalog(tuple(services.playsets.load()), session.playset)
    except Unavailable:
        raise Refused.error("WA-IO-E-001", {"address": "ROOT_CK3RAVEN_DATA:/playsets"}) from None
