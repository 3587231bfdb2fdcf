"""`ck3_search` handlers: names by glob and contents by literal or regex, over the visible world or below
one folder.

A search walks only what `list` would show (hidden, invisible, ignored and `.git` entries never enter it;
`include_ignored` brings the ignored ones back) and reads a file only through a ref the World Adapter minted
for it, so a hit is always a file `ck3_read` would answer. Links, special files and files with several
hard links are never read; binary (a NUL byte, or not UTF-8) and over-large files are skipped and counted.
Every search is capped (files read, hits, bytes, seconds), and a reply that reached a cap says which. A
search of the whole world walks the playset's mods first and the game last (`WorldAdapter.places`), and
shares the file and byte caps out: each source may read its share of what is left, so the game's 40,000
files cannot use up a search before the mod an agent came to patch is read; `unreached` names every source
a cap cut short or kept from being walked.

Patterns are matched by the Patterns port, whose engine takes time linear in the text for any pattern, a
window of lines at a time (domain.matches): the time budget is checked between windows, so one file cannot
hold a search past it by more than one window's matching.
"""

from collections.abc import Callable, Iterator
from datetime import datetime, timedelta
from typing import ClassVar, Final

from attrs import Factory, define, frozen

from domain.failures import port_failure
from domain.globs import Glob
from domain.matches import hits, is_text
from domain.replies import budget
from domain.replies.builder import Reply, ReplyBuilder
from domain.replies.frozen import FrozenMap
from domain.services import Services
from domain.session import Session
from domain.use_cases import search_scope
from domain.use_cases.arguments import flag, given, number, text
from domain.use_cases.request import Request
from domain.world.visibility import VisibilityRef
from domain.world.walks import FileNames, Found, Skip
from ports.errors import PortError, TooLarge
from ports.files import Kind
from ports.patterns import Matcher, PatternRefused

FILE_LIMIT: Final = 8 * 1024 * 1024
"""A file larger than this is skipped by a content search (and counted)."""
MAX_PATTERN: Final = 1_000
BATCH: Final = 64
"""Files a content search reads together (those of one folder with the folder opened once)."""
SEARCH_WIDE: Final = frozenset({"limit", "max_seconds"})
"""Caps that end the whole search; the file and byte caps are shared out, each source reaching its own."""
SECONDS: Final = 2
"""A content search's time budget when the call names none (max_seconds)."""
NAMES_LIMIT: Final = 500
"""The most matches a name search gives when the call names no `limit`."""
HITS_LIMIT: Final = 200
"""The most lines a content search gives when the call names no `limit`."""
MAX_SECONDS: Final = 120
HINTS: Final = {
    "max_seconds": f"The search stopped at its time budget: search under a folder or with a glob, or raise "
    f"max_seconds (up to {MAX_SECONDS}).",
    "limit": "More lines follow: call again with cursor=next_cursor, or narrow the pattern or the folder "
    "searched; limit caps the lines.",
    "budget": "The lines shown fill the reply budget: call again with cursor=next_cursor, narrow the "
    "pattern, the folder or the glob, or ask for more with limit.",
    "max_files": "Search under a folder or with a glob; max_files caps the files read.",
    "max_bytes": "Search under a folder or with a glob; max_bytes caps the bytes read.",
}
LIMIT_CAP: Final = 10_000
_PATH: Final = text("path", "the folder to search, an address (default: the whole world)", plain=True)
_IGNORED: Final = flag("include_ignored", "include git-ignored files and .git (false)", plain=True)
_CASE: Final = flag("ignore_case", "match case-insensitively (false)", plain=True)
_CURSOR: Final = text("cursor", "next_cursor of the search before")


@frozen
class SearchNames(Request):
    """Files and folders whose path below the searched folder matches `glob`."""

    TOOL: ClassVar[str] = "ck3_search"
    glob: str = given(text("glob", "the glob to match", required=True))
    path: str | None = given(_PATH, default=None)
    include_ignored: bool = given(_IGNORED, default=False)
    ignore_case: bool = given(_CASE, default=False)
    limit: int | None = given(number("limit", "matches (500)", high=LIMIT_CAP), default=None)
    """The most matches; None: NAMES_LIMIT, and only what fits the reply budget."""
    cursor: str | None = given(_CURSOR, default=None)
    """The next_cursor of the window before: the matches already shown are skipped."""


@frozen
class SearchContents(Request):
    """Lines of text files that hold `pattern` (a literal, or a regex), in files `glob` matches."""

    TOOL: ClassVar[str] = "ck3_search"
    pattern: str = given(text("pattern", "the text to find", required=True))
    regex: bool = given(flag("regex", "pattern is an RE2 regex, no lookaround (false)"), default=False)
    ignore_case: bool = given(_CASE, default=False)
    glob: str | None = given(text("glob", "only in files it matches"), default=None)
    path: str | None = given(_PATH, default=None)
    include_ignored: bool = given(_IGNORED, default=False)
    max_files: int = given(number("max_files", "files read (20000)", high=200_000), default=20_000)
    limit: int | None = given(number("limit", "lines (200)", high=LIMIT_CAP), default=None)
    """The most lines; None: HITS_LIMIT, and only what fits the reply budget."""
    max_bytes: int = given(number("max_bytes", "bytes read", high=2**31), default=256 * 1024 * 1024)
    max_seconds: int = given(
        number("max_seconds", "time budget in seconds (2)", high=MAX_SECONDS), default=SECONDS
    )
    cursor: str | None = given(_CURSOR, default=None)
    """The next_cursor of the window before: the lines already shown are skipped."""


def names(session: Session, services: Services, request: SearchNames) -> Reply:
    """Canonical addresses (and kinds) of the visible entries whose path matches the glob."""
    glob = search_scope.glob_of(request.glob, ignore_case=request.ignore_case)
    bases = search_scope.bases(session, request.path, request.cursor)
    matches: list[FrozenMap] = []
    scanned = [0]
    # a glob of a name alone lets the walk leave out a folder's other files at once (it counts them)
    named = glob.name_matcher()
    files = None if named is None else FileNames(named)
    passing = budget.Passing(budget.position(request.cursor) or 0)
    for base in bases:
        skip = _matching(session, services, base, request, glob, scanned)
        walk = session.world.walk(base, search_scope.MAX_DEPTH, skip, files=files)
        try:
            for found in walk:  # files come only when they match: folders always, to be descended
                # a later window passes over the matches shown before
                if (found.kind != "dir" or glob.matches(found.parts)) and passing.past():
                    if len(matches) == (request.limit or NAMES_LIMIT):
                        return _names_reply(
                            services, request, matches, _looked(scanned, files), truncated=True
                        )
                    matches.append(FrozenMap(address=found.address, kind=found.kind))
        except PortError as exc:
            return port_failure(exc, base.address)
        finally:
            walk.close()
    return _names_reply(services, request, matches, _looked(scanned, files), truncated=False)


def _looked(scanned: list[int], files: FileNames | None) -> int:
    """The visible entries a name search looked at: those its filter was asked of, and the files the walk
    left out by name."""
    return scanned[0] + (files.passed if files is not None else 0)


def _matching(  # noqa: PLR0913, PLR0917 - one walk of one search, and its tally
    session: Session,
    services: Services,
    base: VisibilityRef,
    request: SearchNames,
    glob: Glob,
    scanned: list[int],
) -> Skip:
    """The walk's filter: what the ignore rules leave out, and files the glob does not match (counted)."""
    rules = search_scope.ignoring(session, services, base, include_ignored=request.include_ignored)
    named = glob.name_matcher()

    def skip(parts: tuple[str, ...], kind: Kind) -> bool:
        scanned[0] += 1
        if rules is not None and rules(parts, kind):
            return True
        if kind == "dir":
            return False
        return not (named(parts[-1]) if named is not None else glob.matches(parts))

    return skip


def _names_reply(
    services: Services, request: SearchNames, matches: list[FrozenMap], scanned: int, *, truncated: bool
) -> Reply:
    if request.limit is None:  # the call did not ask for more: what fits the budget
        fits = budget.rows_fitting(matches, budget.room(services.budget, request.glob))
        truncated, matches = truncated or fits < len(matches), matches[:fits]
    return ReplyBuilder().success(
        "WA-READ-S-007",
        {
            "glob": request.glob,
            "matches": matches,
            "count": len(matches),
            "scanned": scanned,
            "truncated": truncated,
            "next_cursor": str((budget.position(request.cursor) or 0) + len(matches)) if truncated else None,
            "hint": "More match: call again with cursor=next_cursor, or narrow the glob or search under a "
            "folder; limit caps the matches."
            if truncated
            else None,
        },
    )


@define
class _ContentSearch:
    """One content search under way: what it looks for, until when, and what it did so far."""

    session: Session
    request: SearchContents
    matcher: Matcher
    over: Callable[[], bool]
    """Whether the time budget is spent."""
    hits: list[FrozenMap]
    counts: dict[str, int]
    share: tuple[int, int] = (0, 0)
    """How many files and bytes (counted from the search's start) the source being walked may reach."""
    passing: budget.Passing = Factory(lambda: budget.Passing(0))
    """The hits an earlier window showed (the call's cursor): found again, and passed over."""

    def begin(self, sources_left: int) -> None:
        """Give the next source its share of what is left of the file and byte caps (a source that used
        less than its share leaves the rest to those after it)."""
        files, used = self.counts["files"], self.counts["bytes"]
        self.share = (
            files + (self.request.max_files - files) // sources_left,
            used + (self.request.max_bytes - used) // sources_left,
        )

    def cap(self) -> str | None:
        """The cap reached before the next file, if any."""
        if self.counts["files"] >= min(self.share[0], self.request.max_files):
            return "max_files"
        if self.counts["bytes"] >= min(self.share[1], self.request.max_bytes):
            return "max_bytes"
        return "max_seconds" if self.over() else None

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
        allowed = min(self.share[0], self.request.max_files) - self.counts["files"]
        budget = min(self.share[1], self.request.max_bytes) - self.counts["bytes"]
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
        if text is None or (not request.regex and not request.ignore_case and self._absent(text)):
            return None
        matched = False
        for hit in hits(text, self.matcher, self.over):
            if hit is None:
                return "max_seconds"
            if not self.passing.past():  # shown by an earlier window
                continue
            if len(self.hits) == (request.limit or HITS_LIMIT):
                return "limit"
            if not matched:
                self.counts["files_matched"] += 1
                matched = True
            line, column, context = hit
            self.hits.append(FrozenMap(address=found.address, line=line, column=column, text=context))
        return None

    def _absent(self, data: bytes) -> bool:
        return self.request.pattern.encode("utf-8") not in data

    def _text_of(self, data: bytes | PortError) -> bytes | None:
        counts = self.counts
        counts["files"] += 1
        if isinstance(data, TooLarge):
            counts["large"] += 1
            return None
        if isinstance(data, PortError):  # a link, a special or hard-linked file, or one that vanished
            counts["unreadable"] += 1
            return None
        counts["bytes"] += len(data)
        if not is_text(data):
            counts["binary"] += 1
            return None
        return data


def contents(session: Session, services: Services, request: SearchContents) -> Reply:
    """Each line (address, line number, column, the line's text) holding the pattern, file by file."""
    matcher = _matcher(services, request)
    glob = (
        search_scope.glob_of(request.glob, ignore_case=request.ignore_case)
        if request.glob is not None
        else None
    )
    bases = search_scope.bases(session, request.path, request.cursor)
    kinds = ("files", "files_matched", "bytes", "binary", "large", "unreadable")
    over = _budget(services, request.max_seconds)
    run = _ContentSearch(session, request, matcher, over, [], dict.fromkeys(kinds, 0))
    run.passing = budget.Passing(budget.position(request.cursor) or 0)
    cap: str | None = None
    unreached: list[str] = []
    for index, base in enumerate(bases):
        if cap in SEARCH_WIDE:  # out of hits or time: no source after it is reached
            unreached.append(base.address)
            continue
        run.begin(len(bases) - index)
        walk = session.world.walk(
            base,
            search_scope.MAX_DEPTH,
            search_scope.ignoring(session, services, base, include_ignored=request.include_ignored),
            refs=True,
        )
        try:
            found = run.walk(walk, glob)
        except PortError as exc:
            return port_failure(exc, base.address)
        finally:
            walk.close()
        if found is not None:  # this source was cut short at its share, or the search as a whole
            unreached.append(base.address)
            cap = found if cap not in SEARCH_WIDE else cap
    return _contents_reply(services, run, cap, unreached)


def _contents_reply(services: Services, run: _ContentSearch, cap: str | None, unreached: list[str]) -> Reply:
    counts, request, hits = run.counts, run.request, run.hits
    if request.limit is None:  # the call did not ask for more: what fits the budget
        fits = budget.rows_fitting(hits, budget.room(services.budget, request.pattern, unreached))
        cap, hits = (cap if fits == len(hits) else cap or "budget"), hits[:fits]
    skipped = {"binary": counts["binary"], "too_large": counts["large"], "unreadable": counts["unreadable"]}
    return ReplyBuilder().success(
        "WA-READ-S-008",
        {
            "pattern": request.pattern,
            "syntax": services.patterns.syntax if request.regex else "literal",
            "hits": hits,
            "count": len(hits),
            "files_read": counts["files"],
            "files_matched": counts["files_matched"],
            "bytes_read": counts["bytes"],
            "skipped": skipped,
            "truncated": cap is not None,
            "cap": cap,
            "hint": HINTS.get(cap) if cap is not None else None,
            "unreached": unreached,
            # only a cut at the lines' count goes on by cursor: a cap of time or reading would cut it again
            "next_cursor": str((budget.position(request.cursor) or 0) + len(hits))
            if cap in {"limit", "budget"}
            else None,
        },
    )


def _budget(services: Services, seconds: int) -> Callable[[], bool]:
    """Whether `seconds` have passed since now, by the clock port."""
    clock = services.clock
    deadline: datetime = clock.now() + timedelta(seconds=seconds)
    return lambda: clock.now() >= deadline


def _matcher(services: Services, request: SearchContents) -> Matcher:
    if not request.pattern or len(request.pattern) > MAX_PATTERN:
        raise search_scope.refused("pattern", f"1 to {MAX_PATTERN} characters")
    if not 1 <= request.max_seconds <= MAX_SECONDS:
        raise search_scope.refused("max_seconds", f"from 1 to {MAX_SECONDS}")
    patterns = services.patterns
    try:
        return patterns.compile(request.pattern, literal=not request.regex, ignore_case=request.ignore_case)
    except PatternRefused as exc:
        raise search_scope.refused("pattern", f"not accepted in {patterns.syntax} syntax: {exc}") from None
