"""File handlers: read (`ck3_read`); write, edit, delete (`ck3_file`). Resolve, then enforce (mutations
only), then execute.

Text only, bounded sizes. Every mutation is governed (domain.use_cases.governed_writes): permitted by
enforcement, made through the VisibilityRef the session's World Adapter minted, and journaled before it
lands; the Files port makes writes atomic, so a refused or failed call changes nothing on disk.
Mutations are safe to retry: `expected_sha256` refuses a file that changed since it was read (or that
appeared or vanished), `create_only` refuses to replace, and `dry_run` answers exactly as the call would,
with a unified diff, and writes nothing.
"""

from typing import ClassVar, Final, Self

from attrs import frozen

from domain.contracts import journal
from domain.edits import SHAPE as EDIT
from domain.edits import Matched, Missed, Replacement, apply, diff_lines, nearest
from domain.failures import port_failure
from domain.replies import budget
from domain.replies.builder import Reply, ReplyBuilder
from domain.replies.refusal import Refused
from domain.services import Services
from domain.session import Session
from domain.use_cases import arguments as wire
from domain.use_cases import content_queries
from domain.use_cases.file_contents import (
    FILE_LIMIT,
    READ_LIMIT,
    current,
    digest,
    journal_before,
    load,
)
from domain.use_cases.game_writes import UNREAD, game_rules
from domain.use_cases.governed_writes import file_ref, governed, store
from domain.use_cases.request import Args, Request
from domain.vocabulary import Operation
from domain.world.visibility import VisibilityRef
from ports.errors import PortError

WRITE_LIMIT: Final = 2 * 1024 * 1024
MAX_EDITS: Final = 50
"""The most replacements one edit call makes (each may scan the whole file)."""
DRY_RUN: Final = "answer with a unified diff, write nothing"
DIFF_OFFSET: Final = "dry run: the diff's first line to show (0-based; the reply's next_diff_offset)"


@frozen
class Read(Request):
    """A read of a whole file, or a window of its lines: `offset` (1-based) and `limit`, or `head` or
    `tail` lines."""

    TOOL: ClassVar[str] = "ck3_read"
    FILES_ALONE: ClassVar[bool] = True
    path: str | None = wire.given(wire.address())
    offset: int | None = wire.given(wire.number("offset", "the first line (1-based)"), default=None)
    limit: int | None = wire.given(wire.number("limit", "how many lines from offset"), default=None)
    head: int | None = wire.given(wire.number("head", "the first N lines"), default=None)
    tail: int | None = wire.given(wire.number("tail", "the last N lines"), default=None)


@frozen
class Write(Request):
    TOOL: ClassVar[str] = "ck3_file"
    MUTATES: ClassVar[bool] = True
    path: str | None = wire.given(wire.address())
    content: str = wire.given(wire.text("content", "the whole new text", required=True))
    expected_sha256: str | None = wire.given(wire.expected_sha256(), default=None)
    create_only: bool = wire.given(
        wire.flag("create_only", "refuse if the file exists (false)"), default=False
    )
    dry_run: bool = wire.given(wire.flag("dry_run", DRY_RUN), default=False)
    diff_offset: int = wire.given(wire.number("diff_offset", DIFF_OFFSET, low=0, plain=True), default=0)


@frozen
class Edit(Request):
    """Replacements applied in order, all or none."""

    TOOL: ClassVar[str] = "ck3_file"
    ARGS: ClassVar[tuple[wire.Arg, ...]] = (
        wire.address(),
        wire.text("old_string", "text that occurs exactly once"),
        wire.text("new_string", "its replacement"),
        wire.objects("edits", "several replacements (up to 50), in order, all or none", EDIT, most=50),
        wire.expected_sha256(),
        wire.flag("dry_run", DRY_RUN),
        wire.number("diff_offset", DIFF_OFFSET, low=0, plain=True),
    )
    MUTATES: ClassVar[bool] = True
    path: str | None
    replacements: tuple[Replacement, ...]
    expected_sha256: str | None = None
    dry_run: bool = False
    diff_offset: int = 0

    @classmethod
    def build(cls, args: Args) -> Self:
        """One replacement (`old_string`, `new_string`) or several (`edits`), never both."""
        single = "old_string" in args or "new_string" in args
        if single == ("edits" in args) or (single and not {"old_string", "new_string"} <= args.keys()):
            problem = "give old_string and new_string, or edits, not both"
            raise Refused.invalid("MCP-VAL-I-001", {"errors": [{"field": "edits", "problem": problem}]})
        edits = [args] if single else args["edits"]
        replacements = tuple(Replacement(e["old_string"], e["new_string"]) for e in edits)
        dry_run, diff_offset = args.get("dry_run", False), args.get("diff_offset", 0)
        return cls(args.get("path"), replacements, args.get("expected_sha256"), dry_run, diff_offset)


@frozen
class Delete(Request):
    TOOL: ClassVar[str] = "ck3_file"
    MUTATES: ClassVar[bool] = True
    path: str | None = wire.given(wire.address())
    expected_sha256: str | None = wire.given(wire.expected_sha256(), default=None)


def read(session: Session, services: Services, request: Read) -> Reply:
    """The text of a visible file, or a window of its lines, with the whole file's size and SHA-256 and its
    line count. Reads need no contract. Unless the call names how many lines (`limit`, `head`, `tail`),
    the window is what fits the reply budget from `offset`; a reply carries at most READ_LIMIT bytes of
    text however asked. A window cut short ends at a line end and says where to go on (`next_offset`)."""
    if sum(value is not None for value in (request.offset or request.limit, request.head, request.tail)) > 1:
        return ReplyBuilder().invalid(
            "MCP-VAL-I-001", {"errors": [{"field": "offset", "problem": "give offset/limit, head or tail"}]}
        )
    opened = file_ref(session, request.path, "read", must_exist=True)
    text = load(session.world, opened, FILE_LIMIT)
    lines = text.splitlines(keepends=True)
    first, last = _window(len(lines), request)
    shown, cut = _bounded(lines[first:last])
    if request.limit is None and request.head is None and request.tail is None:
        space = budget.room(services.budget, opened.address, opened.address)
        fits = budget.text_fitting(shown, space)
        shown, cut = shown[:fits], cut or fits < len(shown)
        if shown and budget.cost(shown[0]) > space:  # one line longer than the budget: cut inside it
            shown, cut = [budget.clip(shown[0], space)], True
    end = first + len(shown)
    return ReplyBuilder().success(
        "WA-READ-S-003",
        {
            "address": opened.address,
            "content": "".join(shown),
            **digest(text.encode("utf-8", "surrogatepass")),
            "total_lines": len(lines),
            "first_line": first + 1 if shown else 0,
            "last_line": end if shown else 0,
            "truncated": cut or end < len(lines) or first > 0,
            "next_offset": end + 1 if end < len(lines) else None,
        },
    )


def _window(total: int, request: Read) -> tuple[int, int]:
    """The 0-based [first, last) lines a request asks for."""
    if request.head is not None:
        return 0, min(total, request.head)
    if request.tail is not None:
        return max(0, total - request.tail), total
    first = min(total, (request.offset or 1) - 1)
    return first, total if request.limit is None else min(total, first + request.limit)


def _bounded(lines: list[str]) -> tuple[list[str], bool]:
    """The leading lines that fit READ_LIMIT bytes (at least one, itself cut if it alone is larger)."""
    if len("".join(lines).encode("utf-8", "surrogatepass")) <= READ_LIMIT:
        return lines, False
    kept: list[str] = []
    size = 0
    for line in lines:
        size += len(line.encode("utf-8", "surrogatepass"))
        if size > READ_LIMIT:
            if not kept:
                return [line.encode("utf-8", "surrogatepass")[:READ_LIMIT].decode("utf-8", "ignore")], True
            return kept, True
        kept.append(line)
    return kept, False


def write(session: Session, services: Services, request: Write) -> Reply:
    """Create or replace a file with `content` (UTF-8), atomically."""
    data = request.content.encode("utf-8", "surrogatepass")
    if len(data) > WRITE_LIMIT:
        return ReplyBuilder().invalid("WA-WRITE-I-001", {"limit": WRITE_LIMIT})
    opened = governed(session, services, request.path, "write", Operation.WRITE, must_exist=False)
    created = opened.kind is None
    if request.create_only and not created:
        return ReplyBuilder().invalid("WA-WRITE-I-007", {"address": opened.address})
    before = current(session.world, opened, request.expected_sha256, read=request.dry_run, replacing=True)
    existing = None if created else UNREAD
    return _land(
        (session, services),
        opened,
        data,
        (before, existing),
        created=created,
        dry_run=request.dry_run,
        exclusive=request.create_only,
        diff_offset=request.diff_offset,
    )


def edit(session: Session, services: Services, request: Edit) -> Reply:
    """Apply the replacements to a file, all or none (see `domain.edits` for how text is matched)."""
    if not request.replacements or any(not r.old for r in request.replacements):
        return ReplyBuilder().invalid("WA-WRITE-I-004", {"rule": "old-text-empty"})
    given = sum(len(r.old) + len(r.new) for r in request.replacements)
    if len(request.replacements) > MAX_EDITS or given > WRITE_LIMIT:
        problem = f"at most {MAX_EDITS} replacements, {WRITE_LIMIT} characters of text in all"
        return ReplyBuilder().invalid("MCP-VAL-I-001", {"errors": [{"field": "edits", "problem": problem}]})
    opened = governed(session, services, request.path, "edit", Operation.WRITE, must_exist=True)
    text = current(session.world, opened, request.expected_sha256, read=True)
    if len(text or "") > WRITE_LIMIT:  # a file too large to write back: not scanned
        return ReplyBuilder().invalid("WA-WRITE-I-001", {"limit": WRITE_LIMIT})
    data, matched = _edited(opened, text or "", request.replacements)
    existing = (text or "").encode("utf-8", "surrogatepass")
    return _land(
        (session, services),
        opened,
        data,
        (text, existing),
        created=False,
        dry_run=request.dry_run,
        matched=matched,
        diff_offset=request.diff_offset,
    )


def _land(  # noqa: PLR0913 - the call, its result, and what to say of it
    call: tuple[Session, Services],
    ref: VisibilityRef,
    data: bytes,
    before: tuple[str | None, bytes | None],
    *,
    created: bool,
    dry_run: bool,
    matched: list[Matched] | None = None,
    exclusive: bool = False,
    diff_offset: int = 0,
) -> Reply:
    """Apply the game's file rules to `data`, then write it, or (dry run) show the diff from `before`
    (the text now, and the bytes now or UNREAD) from its line `diff_offset`, what fits the reply budget."""
    session, services = call
    existing: bytes | str | None = before[1]
    if existing is UNREAD and not dry_run:  # read once, for the game's rules and the journal alike
        existing = journal_before(session.world, ref)
    data, notes = game_rules(session, ref, data, existing=UNREAD if isinstance(existing, str) else existing)
    if len(data) > WRITE_LIMIT:  # the game's line endings made it longer than a write may be
        return ReplyBuilder().invalid("WA-WRITE-I-001", {"limit": WRITE_LIMIT})
    if dry_run:
        facts = {
            "address": ref.address,
            "created": created,
            "matched": matched,
            "adjusted": notes,
            **digest(data),
        }
        lines = diff_lines(ref.address, before[0] or "", data.decode("utf-8", "surrogatepass"))
        return _preview(facts, lines, diff_offset, services.budget)
    return store(
        call, ref, (existing, data), created=created, matched=matched, notes=notes, exclusive=exclusive
    )


def _edited(
    ref: VisibilityRef, text: str, replacements: tuple[Replacement, ...]
) -> tuple[bytes, list[Matched]]:
    """The file's new bytes and how each replacement matched; raises Refused when one does not match or
    the result is too large to write."""
    applied = apply(text, replacements)
    if isinstance(applied, Missed):
        missed: dict[str, object] = {"address": ref.address, "count": applied.count, "edit": applied.edit}
        close = nearest(text, replacements[applied.edit - 1].old) if applied.count == 0 else None
        if close is not None:  # the old text is not there: show what is most like it, and where
            missed["nearest"] = {"line": close[0], "text": close[1]}
        raise Refused.invalid("WA-WRITE-I-002", missed)
    after, matched = applied
    data = after.encode("utf-8", "surrogatepass")
    if len(data) > WRITE_LIMIT:
        raise Refused.invalid("WA-WRITE-I-001", {"limit": WRITE_LIMIT})
    return data, matched


def delete(session: Session, services: Services, request: Delete) -> Reply:
    """Remove a file."""
    opened = governed(session, services, request.path, "delete", Operation.DELETE, must_exist=True)
    current(session.world, opened, request.expected_sha256, read=False)
    existing = journal_before(session.world, opened)
    try:
        entry = journal.begin(session, services, opened, "delete", before=existing, after=None)
    except PortError as exc:  # nothing changes that the journal could not record first
        return port_failure(exc, opened.address)
    try:
        session.world.delete_file(opened)
    except PortError as exc:
        journal.settle(services, entry, landed=False)
        return port_failure(exc, opened.address)
    journal.settle(services, entry, landed=True)
    content_queries.after_change(session, services, opened)
    return ReplyBuilder().success("WA-WRITE-S-002", {"address": opened.address})


def _preview(facts: dict[str, object], lines: list[str], offset: int, most: int) -> Reply:
    """A dry run's reply: its `facts` and the diff's `lines` from `offset`, cut at a line to fit the
    budget `most`; what follows is named by `next_diff_offset`. A line longer than the whole budget is not
    shown: the new content's sha256 and size stand for it, and the next offset passes it."""
    rest = lines[offset:]
    space = budget.room(most, facts, len(lines), offset)
    count = budget.text_fitting(rest, space) if rest else 0
    passed = count == 1 and budget.cost(rest[0]) > space
    count = 0 if passed else count
    after = offset + max(count, 1) if offset + max(count, 1) < len(lines) else None
    data = facts | {
        "diff": "".join(rest[:count]),
        "diff_truncated": count < len(lines),
        "diff_lines": len(lines),
        "diff_offset": offset,
        "next_diff_offset": after,
        "hint": _rest_of_diff(after, offset if passed else None),
    }
    return ReplyBuilder().success("WA-WRITE-S-006", data)


def _rest_of_diff(after: int | None, passed: int | None) -> str | None:
    """How to see the rest of a dry run's diff, from `after`; `passed`: the line not shown (too long)."""
    said = (
        ""
        if passed is None
        else (
            f"Line {passed} of the diff is longer than the reply budget: data.sha256 and data.size stand for "
            "the new content. "
        )
    )
    if after is None:
        return said or None
    return said + f"More of the diff follows: repeat the call with diff_offset={after}."
