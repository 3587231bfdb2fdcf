"""The tools an MCP client sees: thin shims whose parameters are the input schema and whose docstrings are
what the model reads. Each takes primitives, strictly validated, and hands its command to the dispatcher.

Tools come in three kinds, and their annotations say which (a test checks every command against them):
read tools change nothing (read-only, idempotent); session tools change only the caller's own session
(its mode, home or playset lens: neither read-only nor destructive); mutation tools may change or remove
files (destructive). A `read_only` server lists the read and session tools only.
"""

from collections.abc import Callable
from typing import Annotated, Final, Literal

import anyio.from_thread
from fastmcp import Context, FastMCP
from mcp.types import InputRequiredResult
from pydantic import BaseModel, ConfigDict, Field

from adapters.mcp_dispatch import Dispatcher, HumanLoop
from adapters.output_schemas import output_schema
from adapters.reply_middleware import ReplyResult

Address = Annotated[
    str | None, Field(description="ROOT_X:/rel/path, mod:<Name>:/rel/path or a path relative to the home")
]
RootCategory = Annotated[
    str | None, Field(description="a root category, e.g. ROOT_USER_DOCS (ck3_mode status lists them)")
]
ContractId = Annotated[
    str | None, Field(description="a contract's id (default: the session's open contract)")
]


def _hints(*, read_only: bool, destructive: bool, idempotent: bool) -> dict[str, bool]:
    """Tool annotations; informational only: enforcement never reads them."""
    return {
        "readOnlyHint": read_only,
        "destructiveHint": destructive,
        "idempotentHint": idempotent,
        "openWorldHint": False,
    }


READS: Final = _hints(read_only=True, destructive=False, idempotent=True)
SESSION: Final = _hints(read_only=False, destructive=False, idempotent=True)
MUTATES: Final = _hints(read_only=False, destructive=True, idempotent=False)

READ_TOOLS: Final = ("ck3_dir", "ck3_read", "ck3_search", "ck3_git")
SESSION_TOOLS: Final = ("ck3_mode", "ck3_playset")
MUTATION_TOOLS: Final = ("ck3_file", "ck3_commit", "ck3_contract", "ck3_token")
ADDS: Final = _hints(read_only=False, destructive=False, idempotent=False)
"""A tool that may add files but never changes or removes one."""


class Replacement(BaseModel):
    """One replacement of an edit."""

    model_config = ConfigDict(extra="forbid", strict=True)
    old_string: str = Field(description="text that occurs exactly once when this replacement's turn comes")
    new_string: str = Field(description="its replacement")


Sha256 = Annotated[
    str | None,
    Field(
        pattern="^[0-9a-fA-F]{64}$",
        description="the sha256 a read returned: refused if the file changed since (a missing file too)",
    ),
]


class Symbol(BaseModel):
    """A symbol intended as new: its name, and the address of the file it is in (optional)."""

    model_config = ConfigDict(extra="forbid", strict=True)
    name: str = Field(description="the symbol's name, or * for every symbol the file adds")
    path: str | None = Field(default=None, description="the address of the file it is in")
    kind: str | None = Field(default=None, description="removal: the key's kind, e.g. traits")


class DeclaredTarget(BaseModel):
    """A target declared in a contract."""

    model_config = ConfigDict(extra="forbid", strict=True)
    path: str = Field(description="the target's address")
    edit_kind: Literal["add", "modify", "delete"] = Field(description="what the work does to it")


def add_read_tools(server: FastMCP, dispatcher: Dispatcher) -> None:
    @server.tool(output_schema=output_schema("ck3_dir"), annotations=READS)
    def ck3_dir(  # noqa: PLR0913, PLR0917 - a tool's parameters are its input schema
        ctx: Context,
        command: Annotated[Literal["pwd", "list", "tree"], Field(description="what to do")] = "pwd",
        path: Address = None,
        depth: Annotated[
            int | None, Field(ge=1, le=64, description="tree: folder levels to descend (3)")
        ] = None,
        glob: Annotated[str | None, Field(description="list: only names matching, e.g. *.yml")] = None,
        cursor: Annotated[str | None, Field(description="list, tree: next_cursor of the page before")] = None,
        limit: Annotated[
            int | None,
            Field(ge=1, le=20_000, description="list: entries per page; tree: folders (what fits)"),
        ] = None,
        include_ignored: Annotated[
            bool | None, Field(description="list, tree: include git-ignored entries and .git (false)")
        ] = None,
    ) -> ReplyResult:
        """Look around the visible world (changes nothing). `pwd`: the session home. `list`: the children
        of a folder (address, kind file/dir/symlink/special, size), sorted by name, in pages: `limit` per
        page, `cursor` from the reply's next_cursor, `glob` to keep matching names; data.total counts
        all that match. `tree`: the folders below a folder, `depth` levels down. list and tree leave out
        what the repository's .gitignore ignores, and .git, unless include_ignored. list rows name
        entries below the folder (data.address). To move the home, use ck3_mode cd."""
        progress = _progress(ctx) if command == "tree" else None
        args: dict[str, object] = {"path": path, "depth": depth, "progress": progress}
        args |= {"glob": glob, "cursor": cursor}
        args |= {"limit": limit, "include_ignored": include_ignored}
        return ReplyResult.of(dispatcher.answer(ctx, "ck3_dir", command, args))

    @server.tool(output_schema=output_schema("ck3_read"), annotations=READS)
    def ck3_read(  # noqa: PLR0913, PLR0917 - a tool's parameters are its input schema
        ctx: Context,
        path: Address,
        offset: Annotated[int | None, Field(ge=1, description="the first line (1-based)")] = None,
        limit: Annotated[int | None, Field(ge=1, description="how many lines from offset")] = None,
        head: Annotated[int | None, Field(ge=1, description="the first N lines")] = None,
        tail: Annotated[int | None, Field(ge=1, description="the last N lines")] = None,
    ) -> ReplyResult:
        """Read a visible text file (changes nothing), whole or a window of lines: `offset`+`limit`,
        `head` or `tail`. The reply gives total_lines, the lines shown (first_line, last_line),
        next_offset when there is more, and the whole file's sha256 (pass it to ck3_file as
        expected_sha256 so a write is refused if the file changed since)."""
        args = {"path": path, "offset": offset, "limit": limit, "head": head, "tail": tail}
        return ReplyResult.of(dispatcher.answer(ctx, "ck3_read", "read", args))

    @server.tool(output_schema=output_schema("ck3_search"), annotations=READS)
    def ck3_search(  # noqa: PLR0913, PLR0917 - a tool's parameters are its input schema
        ctx: Context,
        command: Annotated[Literal["names", "contents"], Field(description="what to search")],
        glob: Annotated[
            str | None, Field(description="names: the glob to match; contents: only in files it matches")
        ] = None,
        pattern: Annotated[str | None, Field(description="contents: the text to find")] = None,
        regex: Annotated[
            bool | None, Field(description="contents: pattern is an RE2 regex, no lookaround (false)")
        ] = None,
        ignore_case: Annotated[bool | None, Field(description="match case-insensitively (false)")] = None,
        path: Annotated[
            str | None, Field(description="the folder to search, an address (default: the whole world)")
        ] = None,
        include_ignored: Annotated[
            bool | None, Field(description="include git-ignored files and .git (false)")
        ] = None,
        limit: Annotated[
            int | None, Field(ge=1, le=10_000, description="names: matches (500); contents: lines (200)")
        ] = None,
        max_files: Annotated[
            int | None, Field(ge=1, le=200_000, description="contents: files read (20000)")
        ] = None,
        max_bytes: Annotated[int | None, Field(ge=1, le=2**31, description="contents: bytes read")] = None,
        max_seconds: Annotated[
            int | None, Field(ge=1, le=120, description="contents: time budget in seconds (2)")
        ] = None,
        cursor: Annotated[str | None, Field(description="next_cursor of the search before")] = None,
    ) -> ReplyResult:
        """Search the visible world, or the folder `path` (changes nothing). `names`: files and folders
        whose path matches `glob` (`*.yml` matches a name at any depth; `common/**/*.txt` a path below
        the folder searched). `contents`: lines holding `pattern` (literal, or with regex=true a regex in
        RE2 syntax: no lookaround or backreferences), each hit an address, line, column and the line's
        text; binary and large files are skipped and counted; it stops at max_seconds. Both leave out
        what .gitignore ignores unless include_ignored, and report `truncated` and the `cap` reached."""
        args: dict[str, object] = {"glob": glob, "pattern": pattern, "regex": regex, "path": path}
        args |= {"ignore_case": ignore_case}
        args |= {"include_ignored": include_ignored, "limit": limit, "max_files": max_files}
        args |= {"max_bytes": max_bytes, "max_seconds": max_seconds, "cursor": cursor}
        return ReplyResult.of(dispatcher.answer(ctx, "ck3_search", command, args))

    @server.tool(output_schema=output_schema("ck3_git"), annotations=READS)
    def ck3_git(
        ctx: Context,
        command: Annotated[Literal["status", "diff", "log"], Field(description="what to show")],
        path: Annotated[
            str | None,
            Field(description="status, log: an address in the repository (ROOT_REPO); diff: the file"),
        ] = None,
        limit: Annotated[int | None, Field(ge=1, le=200, description="log: newest commits (20)")] = None,
        cursor: Annotated[str | None, Field(description="status: next_cursor of the status before")] = None,
    ) -> ReplyResult:
        """Git history of the repository holding `path` (changes nothing): a root (default ROOT_REPO)
        or any visible address, such as `mod:Name:/` for a mod folder that is its own repository.
        `status`: changes since HEAD; `diff`: one file against HEAD; `log` (limit): newest commits.
        To stage and commit, use ck3_commit."""
        args = {"path": path, "limit": limit, "cursor": cursor}
        return ReplyResult.of(dispatcher.answer(ctx, "ck3_git", command, args))


def add_session_tools(server: FastMCP, dispatcher: Dispatcher, loop: HumanLoop) -> None:
    @server.tool(output_schema=output_schema("ck3_mode"), annotations=SESSION)
    async def ck3_mode(
        ctx: Context,
        command: Annotated[Literal["status", "init", "cd"], Field(description="what to do")] = "status",
        mode: Annotated[
            Literal["ck3lens", "ck3raven-dev"] | None, Field(description="init: the mode to ask for")
        ] = None,
        root_category: Annotated[
            str | None, Field(description="cd: the root to make home, e.g. ROOT_GAME")
        ] = None,
    ) -> ReplyResult | InputRequiredResult:
        """This session's settings (no file changes). `status`: the mode (ck3lens or ck3raven-dev) or
        that none is initialised. `init`: ask for `mode`; it takes effect only once a human approves:
        your client may ask its user directly, otherwise the reply names an approval id for the user to
        approve; then call `init` again. `cd`: make a root (`root_category`) the session home."""
        args = {"mode": mode, "root_category": root_category}
        return await loop.answer(ctx, "ck3_mode", command, args)

    @server.tool(output_schema=output_schema("ck3_playset"), annotations=SESSION)
    def ck3_playset(  # noqa: PLR0913, PLR0917 - a tool's parameters are its input schema
        ctx: Context,
        command: Annotated[
            Literal[
                "list",
                "show",
                "switch",
                "which",
                "overrides",
                "define",
                "conflicts",
                "mentions",
                "missing",
                "index",
            ],
            Field(description="what to do"),
        ] = "list",
        name: Annotated[str | None, Field(description="show, switch: a playset; overrides: a mod")] = None,
        path: Annotated[
            str | None,
            Field(description="which, overrides: a game-relative path, e.g. common/traits/00_traits.txt"),
        ] = None,
        key: Annotated[str | None, Field(description="define, mentions: e.g. brave")] = None,
        kind: Annotated[
            str | None, Field(description="define, conflicts: traits, event, localisation…")
        ] = None,
        language: Annotated[str | None, Field(description="missing: e.g. french (against english)")] = None,
        cursor: Annotated[str | None, Field(description="next_cursor of the page before")] = None,
        limit: Annotated[int | None, Field(ge=1, le=1_000, description="rows per page")] = None,
    ) -> ReplyResult:
        """Playsets (no file changes): `list` every playset; `show` one (default: the active one), mods
        in load order with what each descriptor.mod says; `switch` makes the named playset this
        session's lens (its mods become the visible mods at once); `which` answers, for a game-relative
        `path`, every source that provides it (vanilla, then mods in load order), which one the game
        loads, what a mod's replace_path hid and whose it was; for a folder, the winner of each file in
        it. `overrides`: every file below `path` (default: everywhere) that the mod `name` (default:
        every mod) provides where another source does too, or hides by its replace_path, at any depth,
        in pages (`cursor`, `limit`). By key, from the content index: `define` (which definition of
        `key` the game uses), `conflicts`, `mentions`, `missing` localisation, `index` (its last build);
        `pending` counts files not indexed yet. Replies name the rules they used and whether they are
        confirmed."""
        args: dict[str, object] = {"name": name, "path": path, "cursor": cursor, "limit": limit}
        args |= {"key": key, "kind": kind, "language": language}
        return ReplyResult.of(dispatcher.answer(ctx, "ck3_playset", command, args))


def add_mutation_tools(server: FastMCP, dispatcher: Dispatcher, loop: HumanLoop) -> None:
    @server.tool(output_schema=output_schema("ck3_file"), annotations=MUTATES)
    def ck3_file(  # noqa: PLR0913, PLR0917 - a tool's parameters are its input schema
        ctx: Context,
        command: Annotated[Literal["write", "edit", "delete", "override"], Field(description="what to do")],
        path: Address,
        content: Annotated[str | None, Field(description="write: the whole new text")] = None,
        old_string: Annotated[str | None, Field(description="edit: text that occurs exactly once")] = None,
        new_string: Annotated[str | None, Field(description="edit: its replacement")] = None,
        edits: Annotated[
            list[Replacement] | None,
            Field(max_length=50, description="edit: several replacements (up to 50), in order, all or none"),
        ] = None,
        expected_sha256: Sha256 = None,
        create_only: Annotated[
            bool | None, Field(description="write: refuse if the file exists (false)")
        ] = None,
        dry_run: Annotated[
            bool | None, Field(description="write, edit: answer with a unified diff, write nothing")
        ] = None,
        name: Annotated[str | None, Field(description="override: the local mod to copy into")] = None,
    ) -> ReplyResult:
        """Change text files (to read one, use ck3_read). `write` (create or replace) with `content`;
        `edit` replaces `old_string` by `new_string`, or applies `edits` in order, all or none: each
        old text must occur exactly once (line endings and trailing blanks are disregarded when the
        exact text is not found; the file keeps its own line endings); `delete` a file; `override`
        copies a game or workshop file (`path`) into the local mod `name` at the same game path, bytes
        as they are, for you to edit there.
        `expected_sha256` (from ck3_read) refuses a file that changed since; `create_only` refuses to
        replace; `dry_run` answers with a unified diff and writes nothing. Every command is governed: a
        refusal is a D reply whose data.required says what it needs (contract, human_approval, mode).
        Writes are atomic."""
        args: dict[str, object] = {"path": path, "content": content}
        args |= {"old_string": old_string, "new_string": new_string}
        args |= {"edits": [e.model_dump() for e in edits] if edits is not None else None}
        args |= {"expected_sha256": expected_sha256, "create_only": create_only, "dry_run": dry_run}
        args |= {"name": name}
        return ReplyResult.of(dispatcher.answer(ctx, "ck3_file", command, args))

    @server.tool(output_schema=output_schema("ck3_commit"), annotations=MUTATES)
    def ck3_commit(
        ctx: Context,
        command: Annotated[Literal["add", "commit"], Field(description="what to do")],
        path: Annotated[
            str | None, Field(description="commit: an address in the repository (ROOT_REPO)")
        ] = None,
        paths: Annotated[list[str] | None, Field(description="add: the files' addresses")] = None,
        message: Annotated[str | None, Field(description="commit: the commit message")] = None,
    ) -> ReplyResult:
        """Stage and commit in the repository holding `path` (default ROOT_REPO, or any visible address).
        `add` (paths) stages the files' current content; `commit` (message, path) commits the index. Both
        are governed writes: every file they touch needs a contract that permits WRITE on its root; links,
        special and hard-linked files are refused as ck3_file refuses them."""
        args = {"path": path, "paths": paths, "message": message}
        return ReplyResult.of(dispatcher.answer(ctx, "ck3_commit", command, args))

    @server.tool(output_schema=output_schema("ck3_contract"), annotations=MUTATES)
    async def ck3_contract(  # noqa: PLR0913, PLR0917 - a tool's parameters are its input schema
        ctx: Context,
        command: Annotated[
            Literal["open", "close", "cancel", "renew", "status", "list", "stash_carry_over", "revert"],
            Field(description="what to do"),
        ],
        root_category: Annotated[
            str | None, Field(description="open, stash_carry_over: the root the work is in")
        ] = None,
        intent: Annotated[str | None, Field(description="open: why the work is done")] = None,
        operations: Annotated[
            list[Literal["READ", "WRITE", "DELETE"]] | None, Field(description="open: what the work does")
        ] = None,
        targets: Annotated[
            list[DeclaredTarget] | None, Field(description="open: each file the work changes")
        ] = None,
        work_declaration: Annotated[
            str | None, Field(description="open: what the work is, in a sentence")
        ] = None,
        contract_id: ContractId = None,
        ttl_minutes: Annotated[
            int | None, Field(ge=1, le=480, description="open, renew: minutes it lasts (120)")
        ] = None,
        dry_run: Annotated[bool | None, Field(description="revert: only show what it would do")] = None,
        cursor: Annotated[
            str | None, Field(description="close: the next_cursor of a refusal, for the rest of its list")
        ] = None,
    ) -> ReplyResult | InputRequiredResult:
        """Contracts of intended work. `open` declares root_category, intent, operations, targets
        (path and edit_kind add/modify/delete) and work_declaration; writes needing a contract are
        then permitted on that root. `close` reconciles every change in the contract's scope since it
        opened with the targets (undeclared work is listed, a page at a time with next_cursor, and keeps
        it open). `cancel`, `renew` (a new contract
        inheriting scope and baseline of an ended one; ttl_minutes, default 120), `status`, `list`, and
        `stash_carry_over` (root_category and contract_id: the cluster of carried-over files to save and
        revert, or none for the unattributed ones; needs a human), and `revert` (the open contract's
        own journaled changes back to what they replaced: dry_run=true shows the files first (and those
        changed since, which it leaves alone); then, approved by a human, it
        saves their current content and restores them). Protected targets and the launcher
        registry need a human's approval: your client may ask its user directly, otherwise the reply names
        an approval id; then call again. A contract governs only this session."""
        args = {
            "root_category": root_category,
            "intent": intent,
            "operations": operations,
            "targets": [t.model_dump() for t in targets] if targets is not None else None,
            "work_declaration": work_declaration,
            "contract_id": contract_id,
            "ttl_minutes": ttl_minutes,
            "dry_run": dry_run,
            "cursor": cursor,
        }
        return await loop.answer(ctx, "ck3_contract", command, args)


def add_token_tool(server: FastMCP, loop: HumanLoop) -> None:
    @server.tool(output_schema=output_schema("ck3_token"), annotations=ADDS)
    async def ck3_token(  # noqa: PLR0913, PLR0917 - a tool's parameters are its input schema
        ctx: Context,
        command: Annotated[Literal["nst", "lxe", "removal", "list"], Field(description="what to do")],
        symbols: Annotated[list[Symbol] | None, Field(description="nst: the symbols intended as new")] = None,
        reason: Annotated[str | None, Field(description="nst, lxe: why")] = None,
        rules: Annotated[list[str] | None, Field(description="lxe: rule codes, e.g. F401, CK3-BOM")] = None,
        paths: Annotated[list[str] | None, Field(description="lxe: addresses in the contract's root")] = None,
        max_violations: Annotated[
            int | None, Field(ge=1, le=10_000, description="lxe: at most this many")
        ] = None,
        contract_id: ContractId = None,
    ) -> ReplyResult | InputRequiredResult:
        """Compliance tokens for the open contract, checked at close. `nst`: declare `symbols` (name, and
        the file's path) that the work adds on purpose, with a `reason`: close refuses new symbols
        without one and says which (its reply holds the ready ck3_token call). `lxe`: ask for an
        exception from lint `rules` in `paths`, up to `max_violations`, with a `reason`; a human approves
        it (your client may ask its user; otherwise the reply names an approval id); it is then written
        under policy/tokens/ of the contract's root and lasts 8 hours. `removal`: declare keys (`symbols`
        with kind) the work removes though other files mention them. `list`: the contract's tokens."""
        args: dict[str, object] = {
            "symbols": [x.model_dump() for x in symbols] if symbols is not None else None
        }
        args |= {"reason": reason, "rules": rules, "paths": paths, "max_violations": max_violations}
        args |= {"contract_id": contract_id}
        return await loop.answer(ctx, "ck3_token", command, args)


def _progress(ctx: Context) -> Callable[[int], None]:
    """Report walk progress to the client (a no-op unless the request carried a progress token)."""

    def report(done: int) -> None:
        anyio.from_thread.run(ctx.report_progress, done, None, f"{done} folders")

    return report
