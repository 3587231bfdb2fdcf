"""The tools an MCP client sees: thin shims whose docstrings are what the model reads. Each takes
primitives, strictly validated, and hands its command to the dispatcher. The input
schema a tool lists is derived from its commands' requests (adapters.tool_schemas), where each argument is
declared; a shim's signature is made from that schema, so a shim declares no argument of its own.

Tools come in three kinds, and their annotations say which (a test checks every command against them):
read tools change nothing (read-only, idempotent); session tools change only the caller's own session
(its mode, home or playset lens: neither read-only nor destructive); mutation tools may change or remove
files (destructive). A `read_only` server lists the read and session tools only.
"""

import functools
import inspect
from collections.abc import Callable
from typing import Any, Final

import anyio.from_thread
import anyio.to_thread
from fastmcp import Context, FastMCP
from fastmcp.tools import FunctionTool
from mcp.types import InputRequiredResult, ToolAnnotations
from pydantic import BaseModel

from adapters.mcp_dispatch import Dispatcher, HumanLoop
from adapters.output_schemas import output_schema
from adapters.reply_middleware import ReplyResult
from adapters.tool_schemas import input_schema
from adapters.tool_signatures import signature


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
ASKS_HUMAN: Final = frozenset({"ck3_mode", "ck3_contract", "ck3_token"})
"""The tools answered through the human loop: a call of one may ask the client's human during it."""
REPORTS_PROGRESS: Final = frozenset({"ck3_dir"})
"""The tools that report progress (`_progress`) to a call that carries a progress token."""
ADDS: Final = _hints(read_only=False, destructive=False, idempotent=False)
"""A tool that may add files but never changes or removes one."""


def _tool(server: FastMCP, annotations: dict[str, bool]) -> Callable[[Callable[..., Any]], FunctionTool]:
    """Register a tool; it lists the input schema its commands' requests declare (adapters.tool_schemas),
    and FastMCP validates each call against a signature made from that schema (adapters.tool_signatures):
    should pydantic read the signature as any other schema, the server is not built."""

    def register(shim: Callable[..., Any]) -> FunctionTool:
        name = shim.__name__
        shim.__signature__, shim.__annotations__ = signature(name, shim.__annotations__["return"])  # type: ignore[attr-defined]
        hints = ToolAnnotations.model_validate(annotations)
        # The docstring is the description as it stands: given outright, so FastMCP does not load a
        # docstring parser (griffe) at start-up to look for sections the shims never have.
        description, shim.__doc__ = inspect.getdoc(shim), None
        tool = FunctionTool.from_function(
            shim,
            description=description,
            output_schema=output_schema(name),
            annotations=hints,
            run_in_thread=True,
        )
        listed = input_schema(name)
        if _bare(tool.parameters) != _bare(listed):
            raise ValueError(f"{name}: its signature and its commands' requests disagree on an argument")
        tool.parameters = listed
        server.add_tool(tool)
        return tool

    return register


def _bare(schema: dict[str, Any]) -> object:
    """A schema without its descriptions, its shared definitions inlined: what a signature must agree
    on with the requests."""
    shared = schema.get("$defs", {})

    def bare(part: object) -> object:
        if isinstance(part, dict):
            if "$ref" in part:
                return bare(shared[part["$ref"].removeprefix("#/$defs/")])
            return {key: bare(value) for key, value in part.items() if key not in {"description", "$defs"}}
        if isinstance(part, list):
            return [bare(item) for item in part]
        return part

    return bare(schema)


def add_read_tools(server: FastMCP, dispatcher: Dispatcher) -> None:
    @_tool(server, READS)
    async def ck3_dir(ctx: Context, **args: object) -> ReplyResult:
        """Look around the visible world (changes nothing). `pwd`: the session home. `list`: the children
        of a folder (address, kind file/dir/symlink/special, size), sorted by name, in pages: `limit` per
        page, `cursor` from the reply's next_cursor, `glob` to keep matching names; data.total counts
        all that match. `tree`: the folders below a folder, `depth` levels down. list and tree leave out
        what the repository's .gitignore ignores, and .git, unless include_ignored. list rows name
        entries below the folder (data.address). To move the home, use ck3_mode cd."""
        command = str(args.pop("command"))
        args["progress"] = _progress(ctx) if command == "tree" else None  # None: nothing to report to
        return await _answered(dispatcher, ctx, ("ck3_dir", command), args)

    @_tool(server, READS)
    async def ck3_read(ctx: Context, **args: object) -> ReplyResult:
        """Read a visible text file (changes nothing), whole or a window of lines: `offset`+`limit`,
        `head` or `tail`. The reply gives total_lines, the lines shown (first_line, last_line),
        next_offset when there is more, and the whole file's sha256 (pass it to ck3_file as
        expected_sha256 so a write is refused if the file changed since)."""
        return await _answered(dispatcher, ctx, ("ck3_read", "read"), args)

    @_tool(server, READS)
    def ck3_search(ctx: Context, **args: object) -> ReplyResult:
        """Search the visible world, or the folder `path` (changes nothing). `names`: files and folders
        whose path matches `glob` (`*.yml` matches a name at any depth; `common/**/*.txt` a path below
        the folder searched). `contents`: lines holding `pattern` (literal, or with regex=true a regex in
        RE2 syntax: no lookaround or backreferences), each hit an address, line, column and the line's
        text; binary and large files are skipped and counted; it stops at max_seconds. Both leave out
        what .gitignore ignores unless include_ignored, and report `truncated` and the `cap` reached.
        `log`: the game's logs, host paths replaced; `view` summary, groups (by template),
        emissions, emission, cascades (by root cause) or raw; files attributed to mod and contract."""
        return ReplyResult.of(dispatcher.answer(ctx, "ck3_search", str(args.pop("command")), args))

    @_tool(server, READS)
    def ck3_git(ctx: Context, **args: object) -> ReplyResult:
        """Git history of the repository holding `path` (changes nothing): a root (default ROOT_REPO)
        or any visible address, such as `mod:Name:/` for a mod folder that is its own repository.
        `status`: changes since HEAD; `diff`: one file against HEAD; `log` (limit): newest commits.
        To stage and commit, use ck3_commit."""
        return ReplyResult.of(dispatcher.answer(ctx, "ck3_git", str(args.pop("command")), args))


def add_session_tools(server: FastMCP, dispatcher: Dispatcher, loop: HumanLoop) -> None:
    @_tool(server, SESSION)
    async def ck3_mode(ctx: Context, **args: object) -> ReplyResult | InputRequiredResult:
        """This session's settings (no file changes). `status`: the mode (ck3lens or ck3raven-dev) or
        that none is initialised. `init`: ask for `mode`; it takes effect only once a human approves:
        your client may ask its user directly, otherwise the reply names an approval id for the user to
        approve; then call `init` again. `cd`: make a root (`root_category`) the session home."""
        return await loop.answer(ctx, "ck3_mode", str(args.pop("command")), _plain(args))

    @_tool(server, SESSION)
    def ck3_playset(ctx: Context, **args: object) -> ReplyResult:
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
        return ReplyResult.of(dispatcher.answer(ctx, "ck3_playset", str(args.pop("command")), args))


def add_mutation_tools(server: FastMCP, dispatcher: Dispatcher, loop: HumanLoop) -> None:
    @_tool(server, MUTATES)
    def ck3_file(ctx: Context, **args: object) -> ReplyResult:
        """Change text files (to read one, use ck3_read). `write` (create or replace) with `content`;
        `edit` replaces `old_string` by `new_string`, or applies `edits` in order, all or none: each
        old text must occur exactly once (line endings and trailing blanks are disregarded when the
        exact text is not found; the file keeps its own line endings); `delete` a file; `override`
        copies a game or workshop file (`path`) into the local mod `name` at the same game path, bytes
        as they are, for you to edit there.
        `keep` copies the game's logs (path ROOT_USER_DOCS:/logs) to ROOT_CK3RAVEN_DATA:/wip/logs/.
        `expected_sha256` (from ck3_read) refuses a file that changed since; `create_only` refuses to
        replace; `dry_run` answers with a unified diff and writes nothing. Every command is governed: a
        refusal is a D reply whose data.required says what it needs (contract, human_approval, mode).
        Writes are atomic."""
        return ReplyResult.of(dispatcher.answer(ctx, "ck3_file", str(args.pop("command")), _plain(args)))

    @_tool(server, MUTATES)
    def ck3_commit(ctx: Context, **args: object) -> ReplyResult:
        """Stage and commit in the repository holding `path` (default ROOT_REPO, or any visible address).
        `add` (paths) stages the files' current content; `commit` (message, path) commits the index. Both
        are governed writes: every file they touch needs a contract that permits WRITE on its root; links,
        special and hard-linked files are refused as ck3_file refuses them."""
        return ReplyResult.of(dispatcher.answer(ctx, "ck3_commit", str(args.pop("command")), args))

    @_tool(server, MUTATES)
    async def ck3_contract(ctx: Context, **args: object) -> ReplyResult | InputRequiredResult:
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
        return await loop.answer(ctx, "ck3_contract", str(args.pop("command")), _plain(args))


def add_token_tool(server: FastMCP, loop: HumanLoop) -> None:
    @_tool(server, ADDS)
    async def ck3_token(ctx: Context, **args: object) -> ReplyResult | InputRequiredResult:
        """Compliance tokens for the open contract, checked at close. `nst`: declare `symbols` (name, and
        the file's path) that the work adds on purpose, with a `reason`: close refuses new symbols
        without one and says which (its reply holds the ready ck3_token call). `lxe`: ask for an
        exception from lint `rules` in `paths`, up to `max_violations`, with a `reason`; a human approves
        it (your client may ask its user; otherwise the reply names an approval id); it is then written
        under policy/tokens/ of the contract's root and lasts 8 hours. `removal`: declare keys (`symbols`
        with kind) the work removes though other files mention them. `list`: the contract's tokens."""
        return await loop.answer(ctx, "ck3_token", str(args.pop("command")), _plain(args))


def _plain(args: dict[str, object]) -> dict[str, object]:
    """The arguments as JSON values: each object of a list argument as its fields."""
    return {
        name: [item.model_dump() if isinstance(item, BaseModel) else item for item in value]
        if isinstance(value, list)
        else value
        for name, value in args.items()
    }


async def _answered(
    dispatcher: Dispatcher, ctx: Context, command: tuple[str, str], args: dict[str, object]
) -> ReplyResult:
    """The reply made on the event loop when the dispatcher answers the command at once (pwd; a read on a
    server of one client), else on a worker thread."""
    tool, name = command
    at_once = dispatcher.answer_at_once(ctx, tool, name, args)
    if at_once is not None:
        return ReplyResult.of(at_once)
    answer = functools.partial(dispatcher.answer, ctx, tool, name, args)
    return ReplyResult.of(await anyio.to_thread.run_sync(answer))


def _progress(ctx: Context) -> Callable[[int], None] | None:
    """What reports walk progress to the client, when the request carried a progress token; None when it
    did not: each report is a hop from the walk's thread to the event loop and back, that the walk waits
    for, and one nobody asked for would be sent nowhere."""
    asked = ctx.request_context
    if asked is None or not asked.meta or asked.meta.get("progressToken") is None:
        return None

    def report(done: int) -> None:
        anyio.from_thread.run(ctx.report_progress, done, None, f"{done} folders")

    return report
