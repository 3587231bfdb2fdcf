"""`ck3_playset` commands of the content index (read-only, scoped to the session's playset, paged):
`define` (where a key is defined and which definition the game uses), `conflicts`, `mentions`,
`missing` (localisation keys a language lacks), `index` (the last build). Each first re-checks by stat
the folders it concerns and indexes what changed (at most content_index.INLINE files; the reply's
`pending` counts the rest); a folder in which change notification saw nothing change since its last
complete re-check is not looked at again (domain.ck3.rechecks). The index is written by the server
alone: `build` runs a whole build off the request path (at start, after a playset switch)."""

import re
from typing import ClassVar, Final, Self

from attrs import frozen

from domain.addresses import canonical
from domain.ck3 import content_index, key_queries, merge_rules, merged
from domain.ck3 import definitions as defs
from domain.replies import budget
from domain.replies.builder import Reply, ReplyBuilder
from domain.replies.refusal import Refused
from domain.services import Services
from domain.session import Session
from domain.use_cases.arguments import CURSOR, LIMIT, given, text
from domain.use_cases.request import Args, Request
from domain.world.adapter import WorldAdapter
from domain.world.view import WorldView
from domain.world.visibility import VisibilityRef
from ports.clock import Clock
from ports.content_index import Build, ContentIndex, Parsing
from ports.errors import PortError

_TOOL = "ck3_playset"
_KEY: Final = re.compile(r"[^\s\x00-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff]{1,256}")
_KIND: Final = re.compile(r"[A-Za-z0-9_]{1,64}(?:/[A-Za-z0-9_]{1,64}){0,3}")
_LANGUAGE: Final = re.compile(r"[a-z_]{1,32}")
_MENTIONED_IN: Final = ("common", "events", "gui")
"""Where mentions are indexed: script and GUI files (localisation mentions nothing)."""
KIND = "traits, event, localisation…"


@frozen
class Define(Request):
    TOOL: ClassVar[str] = _TOOL
    key: str = given(text("key", "e.g. brave", required=True))
    kind: str | None = given(text("kind", KIND), default=None)


@frozen
class Conflicts(Request):
    TOOL: ClassVar[str] = _TOOL
    kind: str | None = given(text("kind", KIND), default=None)
    cursor: str | None = given(CURSOR, default=None)
    limit: int | None = given(LIMIT, default=None)
    """Rows per page; None: PAGE, and only what fits the reply budget (a limit asked: up to PAGE_BYTES)."""


@frozen
class Mentions(Request):
    TOOL: ClassVar[str] = _TOOL
    key: str = given(text("key", "e.g. brave", required=True))
    cursor: str | None = given(CURSOR, default=None)
    limit: int | None = given(LIMIT, default=None)
    """Rows per page; None: PAGE, and only what fits the reply budget (a limit asked: up to PAGE_BYTES)."""


@frozen
class Missing(Request):
    TOOL: ClassVar[str] = _TOOL
    language: str = given(text("language", "e.g. french (against english)", required=True))
    reference: str = "english"
    cursor: str | None = given(CURSOR, default=None)
    limit: int | None = given(LIMIT, default=None)
    """Rows per page; None: PAGE, and only what fits the reply budget (a limit asked: up to PAGE_BYTES)."""

    @classmethod
    def build(cls, args: Args) -> Self:
        """Against english, the one reference language."""
        return cls(args["language"], "english", args.get("cursor"), args.get("limit"))


def define(session: Session, services: Services, request: Define) -> Reply:
    """Every definition of a key (of a kind) in the playset, and the one the game uses, by which rule."""
    _check_names(key=request.key, kind=request.kind)
    asked: list[str | None] = [request.kind] if request.kind else _kinds_of(services, session, request.key)
    playset, pending = _ready(session, services, _scope(asked))
    try:
        found = playset.index.defined(playset.folders, request.key, request.kind)
    except PortError:
        return _unavailable()
    kinds, rules = key_queries.decide(playset, found)
    data: dict[str, object] = {
        "key": request.key,
        "kinds": kinds,
        "count": len(found),
        "pending": pending,
        "rules": [rule.summary() for rule in sorted(rules, key=lambda r: r.name)],
    }
    if any(not rule.confirmed for rule in rules):
        data["note"] = "unconfirmed: " + "; ".join(
            r.says for r in sorted(rules, key=lambda r: r.name) if not r.confirmed
        )
    return ReplyBuilder().success("WA-READ-S-012", data)


def conflicts(session: Session, services: Services, request: Conflicts) -> Reply:
    """Keys more than one source of the playset defines, with the winner and the rule, a page at a time."""
    _check_names(kind=request.kind)
    check_page(request.cursor, request.limit)
    ready = _ready(session, services, _scope([request.kind]))
    playset, pending = ready
    try:
        found = key_queries.conflicts(playset, request.kind)
        shown, cursor = key_queries.page_of(
            found,
            request.cursor,
            request.limit,
            _space(services, request.limit),
            lambda conflict: key_queries.spelled(playset, conflict),
        )
    except PortError:
        return _unavailable()
    files = sum(1 for conflict in found if conflict.providers)
    data = _paged(shown, cursor, len(found), pending) | {"conflicts": shown}
    data |= {"file_conflicts": files, "key_conflicts": len(found) - files, "rules": _rules()}
    return ReplyBuilder().success("WA-READ-S-013", data)


def mentions(session: Session, services: Services, request: Mentions) -> Reply:
    """The script and GUI files of the playset that mention a key (its first line in each)."""
    _check_names(key=request.key)
    check_page(request.cursor, request.limit)
    ready = _ready(session, services, _MENTIONED_IN)
    playset, pending = ready
    try:
        found = playset.index.mentions(playset.folders, request.key)
    except PortError:
        return _unavailable()
    labels = {source.folder: source.label for source in playset.found}
    rows: list[object] = [{"source": labels[s], "path": p, "line": line} for s, p, line in found]
    shown, cursor = key_queries.page(rows, request.cursor, request.limit, _space(services, request.limit))
    data = _paged(shown, cursor, len(rows), pending) | {"key": request.key, "files": shown}
    return ReplyBuilder().success("WA-READ-S-014", data)


def missing(session: Session, services: Services, request: Missing) -> Reply:
    """Localisation keys the playset has in the reference language but not in `language`."""
    _check_names(language=request.language)
    check_page(request.cursor, request.limit)
    ready = _ready(session, services, _scope([defs.LOCALISATION]))
    playset, pending = ready
    try:
        keys: list[object] = list(key_queries.missing(playset, request.language, request.reference))
    except PortError:
        return _unavailable()
    shown, cursor = key_queries.page(keys, request.cursor, request.limit, _space(services, request.limit))
    data = _paged(shown, cursor, len(keys), pending)
    data |= {"language": request.language, "reference": request.reference, "keys": shown}
    return ReplyBuilder().success("WA-READ-S-015", data)


def _ready(session: Session, services: Services, folders: tuple[str, ...]) -> tuple[key_queries.Playset, int]:
    """The playset over the index, after `folders` (below each source) were re-checked by stat (files left
    not indexed counted); raises Refused when there is no index to ask."""
    index = services.index
    if index is None:
        raise Refused(_unavailable())
    found = content_index.sources_of(session.world)
    try:
        done = content_index.refresh(
            session.world, index, found, folders, budget=content_index.INLINE, rechecks=services.rechecks
        )
    except PortError:
        raise Refused(_unavailable()) from None
    return key_queries.Playset(index, found), done.pending


def _scope(kinds: list[str | None]) -> tuple[str, ...]:
    """The folders where definitions of `kinds` lie (None: every kind)."""
    return tuple(sorted({folder for kind in kinds for folder in content_index.scope_of(kind)}))


def _kinds_of(services: Services, session: Session, key: str) -> list[str | None]:
    """The kinds the index knows `key` by (every kind when it knows none)."""
    index = services.index
    if index is None:
        return [None]
    try:
        known = {d.kind for d in index.defined(merged.folders(session.world), key)}  # no descriptor read
    except PortError:
        return [None]
    return [*sorted(known)] or [None]


def _rules() -> list[object]:
    """The merge rules a conflicts page names beside its rows."""
    return [rule.summary() for rule in (merged.SAME_PATH, *merge_rules.RULES)]


def _space(services: Services, limit: int | None) -> int:
    """The bytes a page's rows may take: what the reply budget leaves (the rules listed beside them
    included), or the hard cap when the call asked for a number of rows."""
    return budget.room(services.budget, _rules()) if limit is None else key_queries.PAGE_BYTES


def check_page(cursor: str | None, limit: int | None) -> None:
    """Raises Refused (Invalid) naming a `limit` out of bounds and a `cursor` that is no offset."""
    problems = []
    if limit is not None and not 1 <= limit <= key_queries.MAX_PAGE:
        problems.append({"field": "limit", "problem": f"must be from 1 to {key_queries.MAX_PAGE}"})
    if key_queries.offset(cursor) is None:
        problems.append({"field": "cursor", "problem": "give the next_cursor of the page before"})
    if problems:
        raise Refused.invalid("MCP-VAL-I-001", {"errors": problems})


def _check_names(key: str | None = None, kind: str | None = None, language: str | None = None) -> None:
    """Raises Refused (Invalid) naming each of `key`, `kind` and `language` that cannot be one:
    a key is printable text without spaces, a kind a folder below `common/` (or one of the index's own
    kinds), a language a word of lower-case letters."""
    problems = []
    if key is not None and not _KEY.fullmatch(key):
        problems.append({"field": "key", "problem": "a key is printable text without spaces (e.g. brave)"})
    if kind is not None and not _KIND.fullmatch(kind):
        problems.append({"field": "kind", "problem": "a kind names a folder below common/ (e.g. traits)"})
    if language is not None and not _LANGUAGE.fullmatch(language):
        problems.append({"field": "language", "problem": "a language is a word such as french"})
    if problems:
        raise Refused.invalid("MCP-VAL-I-001", {"errors": problems})


def _paged(shown: list[object], cursor: str | None, total: int, pending: int) -> dict[str, object]:
    return {
        "count": len(shown),
        "total": total,
        "truncated": cursor is not None,
        "next_cursor": cursor,
        "hint": "More follow: call again with cursor=next_cursor." if cursor else None,
        "pending": pending,
    }


def _unavailable() -> Reply:
    return ReplyBuilder().error("WA-IO-E-001", {"address": "ROOT_CK3RAVEN_DATA:/content-index"})


def build(services: Services, world: WorldAdapter, playset: str) -> Build | None:
    """A whole build of the playset's index by this server (None: another server is building, or the
    index failed). Runs off the request path."""
    return build_into(services.index, services.clock, world, playset)


def build_into(
    index: ContentIndex | None,
    clock: Clock,
    world: WorldAdapter,
    playset: str,
    parsing: Parsing | None = None,
) -> Build | None:
    """`build` with its index and clock given alone (a process that builds and serves nothing), its files
    parsed by `parsing` (None: in this process)."""
    if index is None:
        return None
    started = clock.now()
    try:
        with index.builder() as mine:
            if not mine:
                return None
            done = content_index.refresh(world, index, content_index.sources_of(world), parsing=parsing)
            finished = clock.now()
            seconds = round((finished - started).total_seconds(), 3)
            record = Build(playset, finished.isoformat(), done.seen, done.parsed, seconds)
            index.record_build(record)
            return record
    except PortError:
        return None


@frozen
class Status(Request):
    TOOL: ClassVar[str] = _TOOL


def status(session: Session, services: Services, _: Status) -> Reply:
    """The last finished build of the session's playset (MCP-DB-S-001), or that it is not built yet."""
    name = session.playset or ""
    try:
        last = services.index.last_build(name) if services.index is not None else None
    except PortError:
        return _unavailable()
    if last is None:
        return ReplyBuilder().invalid("MCP-DB-I-001", {"name": name})
    return ReplyBuilder().success("MCP-DB-S-001", built(last))


def built(last: Build) -> dict[str, object]:
    """A finished build as replies carry it (MCP-DB-S-001, and `ck3_playset show`)."""
    return {
        "name": last.playset,
        "count": last.files,
        "parsed": last.parsed,
        "seconds": last.seconds,
        "at": last.at,
    }


def rebuild(session: Session, services: Services) -> None:
    """Ask for a whole build of the session's playset off the request path (after a switch)."""
    in_background(services, session.world.view, session.playset or "")


def in_background(services: Services, view: WorldView, playset: str) -> None:
    """Have the index of `playset`, as `view` shows the world, built off the request path: by the
    services' index builder (a process of its own) where there is one, else parsed on the background
    thread."""
    if services.index is None or services.background is None:
        return
    builder = services.index_builder
    if builder is not None:
        services.background("content-index", lambda: builder(view, playset))
        return
    world = WorldAdapter(services.files, view)  # the lens as it is now, for the build alone
    services.background("content-index", lambda: build(services, world, playset))


def after_change(session: Session, services: Services, ref: VisibilityRef) -> None:
    """Re-index the one file a governed write or delete changed. Whatever fails here, the change stands:
    the index never refuses or undoes a governed write (SPEC §15); the next query re-checks by stat."""
    index = services.index
    if index is None:
        return
    try:
        place = session.world.location_of(ref)
        address = canonical(place.root, place.parts)
        content_index.after_write(session.world, index, address)
    except Exception:  # noqa: BLE001 - see the docstring: no failure of the index reaches the write
        return
