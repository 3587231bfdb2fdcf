"""`ck3_search` handlers: names by glob and contents by literal or regex, over the visible world or below
one folder.

A search walks only what `list` would show (hidden, invisible, ignored and `.git` entries never enter it;
`include_ignored` brings the ignored ones back) and reads a file only through a ref the World Adapter minted
for it, so a hit is always a file `ck3_read` would answer. Links, special files and files with several
hard links are never read; binary (a NUL byte, or not UTF-8) and over-large files are skipped and counted.
Every search is capped (files read, hits, bytes), and a reply that reached a cap says which.
"""

import re
from collections.abc import Iterator
from typing import ClassVar, Final

from attrs import define, frozen

from domain.failures import port_failure
from domain.globs import Glob, compile_glob
from domain.replies.builder import Reply, ReplyBuilder
from domain.replies.frozen import FrozenMap
from domain.services import Services
from domain.session import Session
from domain.use_cases.ignoring import skip_for
from domain.use_cases.request import Request
from domain.world.adapter import Found, Skip
from domain.world.visibility import VisibilityRef
from ports.errors import PortError, TooLarge
from ports.files import Kind

MAX_DEPTH: Final = 64
FILE_LIMIT: Final = 8 * 1024 * 1024
"""A file larger than this is skipped by a content search (and counted)."""
CONTEXT: Final = 240
"""The most characters of a hit's line a reply carries."""
MAX_PATTERN: Final = 1_000
BATCH: Final = 64
"""Files a content search reads together (those of one folder with the folder opened once)."""


@frozen
class SearchNames(Request):
    """Files and folders whose path below the searched folder matches `glob`."""

    TOOL: ClassVar[str] = "ck3_search"
    glob: str
    under: str | None = None
    include_ignored: bool = False
    ignore_case: bool = False
    max_results: int = 500


@frozen
class SearchContents(Request):
    """Lines of text files that hold `pattern` (a literal, or a regex), in files `glob` matches."""

    TOOL: ClassVar[str] = "ck3_search"
    pattern: str
    regex: bool = False
    ignore_case: bool = False
    glob: str | None = None
    under: str | None = None
    include_ignored: bool = False
    max_files: int = 20_000
    max_hits: int = 200
    max_bytes: int = 256 * 1024 * 1024


def names(session: Session, services: Services, request: SearchNames) -> Reply:
    """Canonical addresses (and kinds) of the visible entries whose path matches the glob."""
    glob = _glob(request.glob, ignore_case=request.ignore_case)
    if isinstance(glob, Reply):
        return glob
    bases = _bases(session, request.under)
    if isinstance(bases, Reply):
        return bases
    matches: list[FrozenMap] = []
    scanned = [0]
    for base in bases:
        walk = session.world.walk(base, MAX_DEPTH, _matching(session, services, base, request, glob, scanned))
        try:
            for found in walk:  # files come only when they match: folders always, to be descended
                if found.kind != "dir" or glob.matches(found.parts):
                    if len(matches) == request.max_results:
                        return _names_reply(request, matches, scanned[0], truncated=True)
                    matches.append(FrozenMap(address=found.address, kind=found.kind))
        except PortError as exc:
            return port_failure(exc, base.address)
        finally:
            walk.close()
    return _names_reply(request, matches, scanned[0], truncated=False)


def _matching(  # noqa: PLR0913, PLR0917 - one walk of one search, and its tally
    session: Session,
    services: Services,
    base: VisibilityRef,
    request: SearchNames,
    glob: Glob,
    scanned: list[int],
) -> Skip:
    """The walk's filter: what the ignore rules leave out, and files the glob does not match (counted)."""
    rules = _skip(session, services, base, request.include_ignored)

    def skip(parts: tuple[str, ...], kind: Kind) -> bool:
        scanned[0] += 1
        if rules is not None and rules(parts, kind):
            return True
        return kind != "dir" and not glob.matches(parts)

    return skip


def _names_reply(request: SearchNames, matches: list[FrozenMap], scanned: int, *, truncated: bool) -> Reply:
    return ReplyBuilder().success(
        "WA-READ-S-007",
        {
            "glob": request.glob,
            "matches": matches,
            "count": len(matches),
            "scanned": scanned,
            "truncated": truncated,
            "hint": "Narrow the glob or search under a folder; max_results caps the matches."
            if truncated
            else None,
        },
    )


@define
class _ContentSearch:
    """One content search under way: what it looks for and what it did so far."""

    session: Session
    request: SearchContents
    matcher: re.Pattern[str]
    hits: list[FrozenMap]
    counts: dict[str, int]

    def cap(self) -> str | None:
        """The cap reached before the next file, if any."""
        if self.counts["files"] == self.request.max_files:
            return "max_files"
        if self.counts["bytes"] >= self.request.max_bytes:
            return "max_bytes"
        return None

    def walk(self, walk: Iterator[Found], glob: Glob | None) -> str | None:
        """Search every file of `walk` that `glob` matches, reading them a folder's batch at a time; the
        name of the cap reached, if one was."""
        batch: list[Found] = []
        for found in walk:
            if found.kind != "file" or (glob is not None and not glob.matches(found.parts)):
                continue
            batch.append(found)
            if len(batch) == BATCH:
                cap = self._batch(batch)
                if cap is not None:
                    return cap
                batch = []
        return self._batch(batch) if batch else None

    def _batch(self, batch: list[Found]) -> str | None:
        allowed = self.request.max_files - self.counts["files"]
        budget = self.request.max_bytes - self.counts["bytes"]
        if allowed <= 0 or budget <= 0:
            return "max_files" if allowed <= 0 else "max_bytes"
        chosen = batch[:allowed]
        contents = self.session.world.read_files([f.ref for f in chosen if f.ref is not None], FILE_LIMIT)
        for found, data in zip(chosen, contents, strict=True):
            cap = self.cap() or self.search(found, data)
            if cap is not None:
                return cap
        return "max_files" if len(chosen) < len(batch) else None

    def search(self, found: Found, data: bytes | PortError) -> str | None:
        """Search one file's content; the name of the cap reached, if one was."""
        text = self._text_of(data)
        request = self.request
        if text is None or (not request.regex and not request.ignore_case and request.pattern not in text):
            return None
        matched = False
        for line, column, context in _hits(text, self.matcher):
            if len(self.hits) == request.max_hits:
                return "max_hits"
            if not matched:
                self.counts["files_matched"] += 1
                matched = True
            self.hits.append(FrozenMap(address=found.address, line=line, column=column, text=context))
        return None

    def _text_of(self, data: bytes | PortError) -> str | None:
        counts = self.counts
        counts["files"] += 1
        if isinstance(data, TooLarge):
            counts["large"] += 1
            return None
        if isinstance(data, PortError):  # a link, a special or hard-linked file, or one that vanished
            counts["unreadable"] += 1
            return None
        counts["bytes"] += len(data)
        text = _text(data)
        if text is None:
            counts["binary"] += 1
        return text


def contents(session: Session, services: Services, request: SearchContents) -> Reply:
    """Each line (address, line number, column, the line's text) holding the pattern, file by file."""
    matcher = _matcher(request)
    if isinstance(matcher, Reply):
        return matcher
    glob = _glob(request.glob, ignore_case=request.ignore_case) if request.glob is not None else None
    if isinstance(glob, Reply):
        return glob
    bases = _bases(session, request.under)
    if isinstance(bases, Reply):
        return bases
    kinds = ("files", "files_matched", "bytes", "binary", "large", "unreadable")
    run = _ContentSearch(session, request, matcher, [], dict.fromkeys(kinds, 0))
    cap: str | None = None
    for base in bases:
        walk = session.world.walk(
            base, MAX_DEPTH, _skip(session, services, base, request.include_ignored), refs=True
        )
        try:
            cap = run.walk(walk, glob)
        except PortError as exc:
            return port_failure(exc, base.address)
        finally:
            walk.close()
        if cap is not None:
            break
    counts = run.counts
    skipped = {"binary": counts["binary"], "too_large": counts["large"], "unreadable": counts["unreadable"]}
    return ReplyBuilder().success(
        "WA-READ-S-008",
        {
            "pattern": request.pattern,
            "hits": run.hits,
            "count": len(run.hits),
            "files_read": counts["files"],
            "files_matched": counts["files_matched"],
            "bytes_read": counts["bytes"],
            "skipped": skipped,
            "truncated": cap is not None,
            "cap": cap,
        },
    )


def _hits(text: str, matcher: re.Pattern[str]) -> Iterator[tuple[int, int, str]]:
    """(line, column, the line's text around the match) for the first match on each matching line."""
    line, last, seen = 1, 0, 0
    for match in matcher.finditer(text):
        start = match.start()
        line += text.count("\n", last, start)
        last = start
        if line == seen:
            continue
        seen = line
        begin = text.rfind("\n", 0, start) + 1
        end = text.find("\n", start)
        whole = text[begin : len(text) if end == -1 else end].rstrip("\r")
        column = start - begin
        window = max(0, column - CONTEXT // 3)
        yield line, column + 1, whole[window : window + CONTEXT]


def _matcher(request: SearchContents) -> re.Pattern[str] | Reply:
    if not request.pattern or len(request.pattern) > MAX_PATTERN:
        return _invalid("pattern", f"1 to {MAX_PATTERN} characters")
    flags = re.MULTILINE | (re.IGNORECASE if request.ignore_case else 0)
    try:
        return re.compile(request.pattern if request.regex else re.escape(request.pattern), flags)
    except re.error as exc:
        return _invalid("pattern", f"not a valid regular expression ({exc.msg})")


def _glob(pattern: str, *, ignore_case: bool) -> Glob | Reply:
    try:
        return compile_glob(pattern, ignore_case=ignore_case)
    except ValueError as exc:
        return _invalid("glob", str(exc))


def _bases(session: Session, under: str | None) -> list[VisibilityRef] | Reply:
    """The folders to walk: the one `under` names, or every place of the visible world."""
    world = session.world
    if under is not None:
        reply, ref = world.resolve(under, session.home)
        if ref is None:
            return reply
        if ref.kind != "dir":
            return ReplyBuilder().invalid("WA-RES-I-014", {"address": ref.address})
        return [ref]
    bases: list[VisibilityRef] = []
    for address in world.places():
        _, ref = world.resolve(address, session.home)
        if ref is not None and ref.kind == "dir":
            bases.append(ref)
    return bases


def _skip(session: Session, services: Services, base: VisibilityRef, include_ignored: bool) -> Skip | None:  # noqa: FBT001
    return skip_for(session, services, base, include_ignored=include_ignored)


def _text(data: bytes) -> str | None:
    if b"\x00" in data[:8192]:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _invalid(name: str, problem: str) -> Reply:
    return ReplyBuilder().invalid("MCP-VAL-I-001", {"errors": [{"field": name, "problem": problem}]})
