"""`ck3_search log`: the game's logs read safely (SPEC §17), read-only, streamed a window of bytes at a time
(memory flat), and answered within the reply budget: a summary, the emissions grouped by template, the
emissions themselves (a search with `pattern`), one emission in full, cascades, and the raw lines by
window. Every host path the game wrote is shown as the address it lies at, or a placeholder naming its
root category, or `<outside>`. Each file an emission names is attributed through the file-level merged
view to the source the game read it from, and to the contract whose journal changed it, before or after
the log was written. A log that is malformed, binary, truncated or not UTF-8 answers what parsed, with
findings."""

import re
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import ClassVar, Final, NamedTuple

from attrs import frozen

from domain.ck3 import game_log, log_paths, log_questions, log_summary
from domain.failures import port_failure
from domain.replies import budget
from domain.replies.builder import Reply, ReplyBuilder
from domain.replies.refusal import Refused
from domain.services import Services
from domain.session import Session
from domain.use_cases.arguments import choice, given, number, text
from domain.use_cases.log_attribution import Attribution
from domain.use_cases.request import Request
from domain.world.visibility import VisibilityRef
from ports.errors import PortError

CHUNK: Final = 1 << 20
LIVE: Final = "ROOT_USER_DOCS:/logs/error.log"
VIEWS: Final = ("summary", "groups", "emissions", "emission", "cascades", "raw")
LEVELS: Final = ("error", "warning", "info", "debug", "unknown")
PAGE: Final = 50
MOST: Final = 10_000
TOP: Final = 20


@frozen
class LogQuery(Request):
    """A question about one log of the game (or a kept copy)."""

    TOOL: ClassVar[str] = "ck3_search"
    view: str | None = given(choice("view", "default summary", VIEWS), default=None)
    path: str | None = given(text("path", "a log (default ROOT_USER_DOCS:/logs/error.log)"), default=None)
    pattern: str | None = given(text("pattern", "text to hold"), default=None)
    glob: str | None = given(text("glob", "a named file's address matches"), default=None)
    level: str | None = given(choice("level", "this level only", LEVELS), default=None)
    offset: int | None = given(number("offset", "emission: its number; raw: first line"), default=None)
    limit: int | None = given(number("limit", "rows", high=MOST), default=None)
    cursor: str | None = given(text("cursor", "next_cursor of the search before"), default=None)


@frozen
class Opened:
    """A log opened for one question: its address, a ref to read it by, and when it was last written."""

    address: str
    ref: VisibilityRef
    written: str


class Question(NamedTuple):
    """What a view answers from: the parser (for its findings), the log, the request, attribution and
    the services (for the reply budget)."""

    parser: game_log.LogParser
    opened: Opened
    request: LogQuery
    attribution: Attribution
    services: Services


def query(session: Session, services: Services, request: LogQuery) -> Reply:
    """The one reply to a question about a log."""
    if request.cursor is not None and _CURSOR.fullmatch(request.cursor) is None:
        problem = {"field": "cursor", "problem": "give the next_cursor of the page before"}
        return ReplyBuilder().invalid("MCP-VAL-I-001", {"errors": [problem]})
    ref = session.world.log_ref(request.path or LIVE, session.home)
    if ref.kind == "dir":
        return _listed(session, ref)
    opened = open_log(session, ref)
    view = request.view or "summary"
    attribution = Attribution.of(session, services, opened.written)
    parser = game_log.LogParser.for_log(opened.address)
    try:
        if view == "raw":
            return _raw(session, opened, request, services)
        where = log_questions.Filter(request.level, request.pattern, request.glob, attribution.addresses)
        asked = Question(parser, opened, request, attribution, services)
        if view in _TALLIED:
            return _TALLIED[view](_tally(session, asked, where), asked)
        stream = (e for e in emissions(session, opened.ref, parser) if where.keeps(e))
        return _VIEWS[view](stream, asked)
    except PortError as exc:
        return port_failure(exc, opened.address)


def open_log(session: Session, ref: VisibilityRef) -> Opened:
    """The log behind `ref` (minted by domain.world.adapter.log_ref), when it was last written; raises
    Refused for what is no file or cannot be read."""
    world = session.world
    if ref.kind != "file":
        raise Refused.invalid("WA-RES-I-013", {"address": ref.address})
    try:
        part = world.read_part(ref, 0, 0)
    except PortError as exc:
        raise Refused(port_failure(exc, ref.address)) from None
    written = datetime.fromtimestamp(part.mtime_ns / 1e9, UTC).isoformat()
    return Opened(ref.address, ref, written)


def _listed(session: Session, folder: VisibilityRef) -> Reply:
    """The logs in a log folder (the game's logs/, crashes/ and a crash report's folder, a kept copy's
    folder), each with its kind and size: what to ask next."""
    try:
        listed = session.world.log_files(folder)
    except PortError as exc:
        return port_failure(exc, folder.address)
    rows: list[object] = [{"address": e.address, "kind": e.kind, "size": e.size} for e, _ in listed]
    data: dict[str, object] = {"address": folder.address, "written_at": "", "line_count": 0, "findings": []}
    data |= _paged(rows, None, len(rows)) | {"logs": rows}
    return ReplyBuilder().success("WA-LOG-S-002", data)


def emissions(
    session: Session, ref: VisibilityRef, parser: game_log.LogParser
) -> Iterator[game_log.Emission]:
    """The emissions of the log behind `ref`, read CHUNK bytes at a time up to its size when first read.
    Raises port errors."""
    for chunk in chunks(session, ref):
        yield from parser.feed(chunk)
    yield from parser.finish()


def chunks(session: Session, ref: VisibilityRef) -> Iterator[bytes]:
    offset, size = 0, None
    while size is None or offset < size:
        part = session.world.read_part(ref, offset, CHUNK)
        size = part.size if size is None else size
        if not part.data:
            return
        offset += len(part.data)
        yield part.data


def _tally(session: Session, asked: Question, where: log_questions.Filter) -> log_questions.Tally:
    """The tally of the log's emissions `where` keeps, read a chunk at a time: counted by shape a chunk at
    a time when it keeps them all and the log is clean text (domain.ck3.log_summary), else emission by
    emission. Raises port errors."""
    parser, opened, request = asked.parser, asked.opened, asked.request
    if request.level is None and request.pattern is None and request.glob is None:
        tally = log_questions.Tally()
        lines = log_summary.summarise(chunks(session, opened.ref), parser.level, tally)
        if lines is not None:
            parser.line_number = lines
            return tally
    tally = log_questions.Tally()
    for emission in emissions(session, opened.ref, parser):
        if where.keeps(emission):
            tally.add(emission)
    return tally


def _summary(tally: log_questions.Tally, asked: Question) -> Reply:
    parser, opened, request, attribution, services = asked
    groups = [attribution.screened(group.row()) for group in tally.ranked()]
    space = budget.room(services.budget, tally.levels, tally.top_sources(TOP)) - 1024
    shown = groups[: budget.rows_fitting(groups, space)][: request.limit or TOP]
    data = _about(opened, parser) | {
        "emissions": tally.emissions,
        "levels": tally.levels,
        "sources": [attribution.screened(row) for row in tally.top_sources(TOP)],
        "templates": shown,
        "template_count": len(groups),
    }
    return ReplyBuilder().success("WA-LOG-S-001", data)


def _groups(tally: log_questions.Tally, asked: Question) -> Reply:
    attribution = asked.attribution
    rows: list[object] = [attribution.screened(group.row()) for group in tally.ranked()]
    return _page(rows, "groups", asked)


def _emissions(stream: Iterator[game_log.Emission], asked: Question) -> Reply:
    parser, opened, request, attribution, services = asked
    start = int(request.cursor or 0)
    most = request.limit or PAGE
    space = budget.room(services.budget) - 2048
    rows: list[object] = []
    total = used = 0
    more = False
    for emission in stream:
        total += 1
        if emission.number <= start or more:
            continue
        if len(rows) >= most or used >= space:
            more = True
            continue
        row = attribution.row(emission, whole=False)
        rows.append(row)
        used += budget.cost(row)
    cursor = str(rows[-1]["number"]) if more and rows else None  # type: ignore[index]
    data = _about(opened, parser) | _paged(rows, cursor, total) | {"emissions": rows}
    return ReplyBuilder().success("WA-LOG-S-002", data)


def _emission(stream: Iterator[game_log.Emission], asked: Question) -> Reply:
    parser, opened, request, attribution, _ = asked
    wanted = request.offset or 1
    found = next((e for e in stream if e.number == wanted), None)
    if found is None:
        problem = {"field": "offset", "problem": "no emission of this number matches (see view=emissions)"}
        return ReplyBuilder().invalid("MCP-VAL-I-001", {"errors": [problem]})
    data = _about(opened, parser) | {"emission": attribution.row(found, whole=True)}
    return ReplyBuilder().success("WA-LOG-S-003", data)


def _cascades(stream: Iterator[game_log.Emission], asked: Question) -> Reply:
    attribution = asked.attribution
    found = log_questions.cascades(stream, attribution.origins)
    rows: list[object] = [attribution.screened(cascade.row()) for cascade in found]
    return _page(rows, "cascades", asked)


def _raw(session: Session, opened: Opened, request: LogQuery, services: Services) -> Reply:
    """The lines of the log from `offset` (1-based), as many as `limit` and the budget allow, each with
    its host paths replaced; read a window of bytes at a time."""
    first = request.offset or 1
    most = request.limit or 200
    space = budget.room(services.budget) - 1024
    spell = Attribution.of(session, services, opened.written).spell
    lines: list[str] = []
    number = used = 0
    parser = game_log.LogParser()
    carry = b""
    more = False
    for chunk in chunks(session, opened.ref):
        split = (carry + chunk).split(b"\n")
        carry = split.pop()
        for raw in split:
            number += 1
            if number < first:
                continue
            if len(lines) >= most or used >= space:
                more = True
                break
            line = log_paths.replaced(parser._decoded(raw), spell)  # noqa: SLF001 - one line's decoding
            lines.append(line)
            used += budget.cost(line)
        if more:
            break
    if carry and not more and len(lines) < most and number + 1 >= first:
        number += 1
        lines.append(log_paths.replaced(parser._decoded(carry), spell))  # noqa: SLF001
    data = _about(opened, parser) | {
        "first_line": first,
        "lines": lines,
        "count": len(lines),
        "next_offset": first + len(lines) if more else None,
    }
    return ReplyBuilder().success("WA-LOG-S-004", data)


def _page(rows: list[object], name: str, asked: Question) -> Reply:
    parser, opened, request, _, services = asked
    start = int(request.cursor or 0)
    most = request.limit or PAGE
    fits = budget.rows_fitting(rows[start:], budget.room(services.budget) - 2048)
    end = start + max(1, min(most, fits)) if rows[start:] else start
    cursor = str(end) if end < len(rows) else None
    data = _about(opened, parser) | _paged(rows[start:end], cursor, len(rows)) | {name: rows[start:end]}
    return ReplyBuilder().success("WA-LOG-S-002", data)


def _about(opened: Opened, parser: game_log.LogParser) -> dict[str, object]:
    return {
        "address": opened.address,
        "written_at": opened.written,
        "line_count": parser.line_number,
        "findings": parser.findings.listed(),
    }


def _paged(shown: list[object], cursor: str | None, total: int) -> dict[str, object]:
    return {
        "count": len(shown),
        "total": total,
        "truncated": cursor is not None,
        "next_cursor": cursor,
        "hint": "More follow: call again with cursor=next_cursor." if cursor else None,
    }


_CURSOR: Final = re.compile(r"[0-9]{1,12}")
"""A cursor this module gives: ASCII digits, few enough to be a line's number (`"²".isdigit()` is true, and
Python refuses to read thousands of digits)."""
_TALLIED: Final = {"summary": _summary, "groups": _groups}
_VIEWS: Final = {
    "emissions": _emissions,
    "emission": _emission,
    "cascades": _cascades,
}
