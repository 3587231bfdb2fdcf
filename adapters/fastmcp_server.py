"""The driving adapter: a FastMCP server whose tools are thin shims over the domain's handlers.

Every tool takes primitives, strictly validated, finds its command's route (`adapters.tool_routes`), and
answers the handler's Reply in the caller's governance session (`adapters.mcp_sessions`), as a
`ReplyResult` the `ReplyMiddleware` turns into the wire envelope. Tool docstrings are what the model reads.
"""

from collections.abc import Callable, Mapping
from typing import Annotated, Any, Final, Literal

import anyio.from_thread
import anyio.to_thread
from fastmcp import Context, FastMCP
from fastmcp.server.auth import AuthProvider
from mcp.types import InputRequiredResult
from pydantic import BaseModel, ConfigDict, Field

from adapters.elicitation import Elicitor
from adapters.mcp_sessions import McpSessions, SessionSlot
from adapters.reply_middleware import CALL, ReplyMiddleware, ReplyResult
from adapters.tool_routes import ROUTES, Route
from adapters.wire import ENVELOPE_SCHEMA
from domain.leaks import LeakGate
from domain.replies.builder import Reply
from domain.use_cases.core import Core

INSTRUCTIONS = """\
ck3raven serves files in named roots (ROOT_REPO, ROOT_GAME, ROOT_STEAM, ROOT_USER_DOCS, ROOT_VSCODE,
ROOT_CK3RAVEN_DATA) and mods of the active playset (mod:<Name>:/path). Address files as ROOT_X:/rel/path,
mod:<Name>:/rel/path, or a path relative to the session home; host paths are refused.
Every tool answers one envelope: branch on reply_type (S success, I invalid: fix the request,
D denied: policy refused, E error: stop and report meta.trace_id) and on code, never on message.
"""


class DeclaredTarget(BaseModel):
    """A target declared in a contract."""

    model_config = ConfigDict(extra="forbid", strict=True)
    address: str
    edit_kind: Literal["add", "modify", "delete"]


Address = Annotated[
    str | None, Field(description="ROOT_X:/rel/path, mod:<Name>:/rel/path or a relative path")
]


TOOL_NAMES = frozenset({"ck3_dir", "ck3_file", "ck3_mode", "ck3_playset", "ck3_contract", "ck3_git"})


def _hints(*, read_only: bool, destructive: bool = False, idempotent: bool = False) -> dict[str, bool]:
    """Tool annotations; informational only: enforcement never reads them."""
    return {
        "readOnlyHint": read_only,
        "destructiveHint": destructive,
        "idempotentHint": idempotent,
        "openWorldHint": False,
    }


_READ_ONLY = _hints(read_only=True, idempotent=True)
Routes = Mapping[str, Mapping[str, Route]]


class Dispatcher:
    """Answers one tool command in the caller's session: route, per-command arguments, session lock."""

    def __init__(self, core: Core, routes: Routes) -> None:
        self.core = core
        self._routes = routes
        self._sessions = McpSessions(core.start_session)

    def slot(self, ctx: Context) -> SessionSlot:
        return self._sessions.slot(ctx)

    def answer(
        self, ctx: Context, tool: str, command: str, args: Mapping[str, Any], slot: SessionSlot | None = None
    ) -> Reply:
        """The reply in the caller's session (or in `slot`, the session an approval was asked in)."""
        route = self._routes[tool][command]
        request = route.request(command, {name: value for name, value in args.items() if value is not None})
        if isinstance(request, Reply):
            return request
        slot = slot or self._sessions.slot(ctx)
        with slot.lock:  # one call of a session at a time; sessions run side by side
            reply = self.core.answer(slot.session, route.handler, request)
            facts = CALL.get()
            if facts is not None:  # for the audit row
                session = slot.session
                contract_id = self.core.governing_id(session)
                facts.update(command=command, session_id=session.session_id, contract_id=contract_id)
            return reply


def build_server(
    core: Core,
    gate: LeakGate,
    *,
    routes: Routes = ROUTES,
    version: str = "0",
    auth: AuthProvider | None = None,
) -> FastMCP:
    """A FastMCP server exposing the ck3raven tools over `core`, guarded by the reply middleware; `auth`
    guards its HTTP transport."""
    server = FastMCP(
        "ck3raven",
        auth=auth,
        instructions=INSTRUCTIONS,
        version=version,
        strict_input_validation=True,
        mask_error_details=True,
        on_duplicate="error",
    )
    server.add_middleware(ReplyMiddleware(gate, TOOL_NAMES, core.services.audit))
    dispatcher = Dispatcher(core, routes)
    _add_navigation_tools(server, dispatcher)
    loop = HumanLoop(
        dispatcher, Elicitor(lambda approval_id, approve: core.decide_approval(approval_id, approve=approve))
    )
    _add_mode_tool(server, loop)
    _add_contract_tool(server, loop)
    _add_git_tool(server, dispatcher)
    return server


def _add_navigation_tools(server: FastMCP, dispatcher: Dispatcher) -> None:
    @server.tool(output_schema=ENVELOPE_SCHEMA, annotations=_READ_ONLY)
    def ck3_dir(
        ctx: Context,
        command: Literal["pwd", "cd", "list", "tree"] = "pwd",
        path: Address = None,
        depth: Annotated[
            int | None, Field(ge=1, le=64, description="tree: folder levels to descend (3)")
        ] = None,
    ) -> ReplyResult:
        """Navigate the visible world. `pwd`: the session home. `cd`: make a root (e.g. ROOT_GAME) the home.
        `list`: the children of a folder (address, kind file/dir/symlink/special, size).
        `tree`: the folders below a folder, `depth` levels down. Entries are session-absolute addresses."""
        progress = _progress(ctx) if command == "tree" else None
        args = {"path": path, "depth": depth, "progress": progress}
        return ReplyResult.of(dispatcher.answer(ctx, "ck3_dir", command, args))

    @server.tool(output_schema=ENVELOPE_SCHEMA, annotations=_hints(read_only=False, destructive=True))
    def ck3_file(  # noqa: PLR0913, PLR0917 - a tool's parameters are its input schema
        ctx: Context,
        command: Literal["read", "write", "edit", "delete"],
        path: Address,
        content: Annotated[str | None, Field(description="write: the whole new text")] = None,
        old: Annotated[str | None, Field(description="edit: text that occurs exactly once")] = None,
        new: Annotated[str | None, Field(description="edit: its replacement")] = None,
        offset: Annotated[int | None, Field(ge=1, description="read: the first line (1-based)")] = None,
        limit: Annotated[int | None, Field(ge=1, description="read: how many lines from offset")] = None,
        head: Annotated[int | None, Field(ge=1, description="read: the first N lines")] = None,
        tail: Annotated[int | None, Field(ge=1, description="read: the last N lines")] = None,
    ) -> ReplyResult:
        """Text files. `read` a visible file, whole or a window of lines (`offset`+`limit`, `head` or
        `tail`; the reply gives total_lines, the lines shown and next_offset when there is more, and the
        whole file's sha256); `write` (create or replace) with `content`; `edit` replaces the single
        occurrence of `old` by `new`; `delete` a file. Mutations are governed: a refusal is a D reply
        whose data.required says what it needs (contract, human_approval, mode). Writes are atomic."""
        args: dict[str, object] = {"path": path, "content": content, "old": old, "new": new}
        args |= {"offset": offset, "limit": limit, "head": head, "tail": tail}
        return ReplyResult.of(dispatcher.answer(ctx, "ck3_file", command, args))

    @server.tool(output_schema=ENVELOPE_SCHEMA, annotations=_hints(read_only=False, idempotent=True))
    def ck3_playset(
        ctx: Context, command: Literal["list", "show", "switch"] = "list", name: str | None = None
    ) -> ReplyResult:
        """Playsets: `list` every playset; `show` one (default: the active one), mods in load order;
        `switch` makes the named playset active (its mods become the visible mods at once)."""
        return ReplyResult.of(dispatcher.answer(ctx, "ck3_playset", command, {"name": name}))


ASKS_A_HUMAN: Final = frozenset({"MCP-CFG-I-002", "CT-GATE-I-005"})
"""Codes whose reply files an approval request (mode init; a contract, renewal or stash that needs one)."""


class HumanLoop:
    """Answers a command whose reply may ask a human: through the client's UI when it can elicit (the
    answer is recorded, then the command is answered again), else the reply names the approval id."""

    def __init__(self, dispatcher: Dispatcher, elicitor: Elicitor) -> None:
        self._dispatcher = dispatcher
        self._elicitor = elicitor

    async def answer(
        self, ctx: Context, tool: str, command: str, args: Mapping[str, Any]
    ) -> ReplyResult | InputRequiredResult:
        kept = await anyio.to_thread.run_sync(self._elicitor.take_answer, ctx)
        slot = kept if isinstance(kept, SessionSlot) else self._dispatcher.slot(ctx)
        dispatch = self._dispatcher.answer
        reply = await anyio.to_thread.run_sync(dispatch, ctx, tool, command, args, slot)
        if _asks(reply) and kept is None:
            approval_id = str(reply.data["approval_id"])
            summary = self._dispatcher.core.approval_summary(approval_id) or reply.message()
            asked = await self._elicitor.ask(ctx, approval_id, summary, keep=slot)
            if isinstance(asked, InputRequiredResult):
                return asked
            if asked:
                reply = await anyio.to_thread.run_sync(dispatch, ctx, tool, command, args, slot)
        return ReplyResult.of(reply)


def _asks(reply: Reply) -> bool:
    return reply.code in ASKS_A_HUMAN and reply.data.get("state", "pending") == "pending"


def _add_mode_tool(server: FastMCP, loop: HumanLoop) -> None:
    @server.tool(output_schema=ENVELOPE_SCHEMA, annotations=_hints(read_only=False, idempotent=True))
    async def ck3_mode(
        ctx: Context,
        command: Literal["status", "init"] = "status",
        mode: Literal["ck3lens", "ck3raven-dev"] | None = None,
    ) -> ReplyResult | InputRequiredResult:
        """Session mode. `status`: the mode (ck3lens or ck3raven-dev) or that none is initialised.
        `init`: ask for `mode`; it takes effect only once a human approves: your client may ask its user
        directly, otherwise the reply names an approval id for the user to approve; then call `init` again."""
        return await loop.answer(ctx, "ck3_mode", command, {"mode": mode})


def _add_contract_tool(server: FastMCP, loop: HumanLoop) -> None:
    @server.tool(output_schema=ENVELOPE_SCHEMA, annotations=_hints(read_only=False, destructive=True))
    async def ck3_contract(  # noqa: PLR0913, PLR0917 - a tool's parameters are its input schema
        ctx: Context,
        command: Literal["open", "close", "cancel", "renew", "status", "list", "stash_carry_over"],
        root_category: str | None = None,
        intent: str | None = None,
        operations: list[Literal["READ", "WRITE", "DELETE"]] | None = None,
        targets: list[DeclaredTarget] | None = None,
        work_declaration: str | None = None,
        contract_id: str | None = None,
        ttl_minutes: Annotated[int | None, Field(ge=1, le=480)] = None,
    ) -> ReplyResult | InputRequiredResult:
        """Contracts of intended work. `open` declares root_category, intent, operations, targets
        (address and edit_kind add/modify/delete) and work_declaration; writes needing a contract are
        then permitted on that root. `close` reconciles the changes since the contract's git baseline
        with the targets (undeclared work is listed and keeps it open). `cancel`, `renew` (a new contract
        inheriting scope and baseline of an ended one; ttl_minutes, default 120), `status`, `list`, and
        `stash_carry_over` (root_category and contract_id: the cluster of carried-over files to save and
        revert, or none for the unattributed ones; needs a human). Protected targets and the launcher
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
        }
        return await loop.answer(ctx, "ck3_contract", command, args)


def _add_git_tool(server: FastMCP, dispatcher: Dispatcher) -> None:
    @server.tool(output_schema=ENVELOPE_SCHEMA, annotations=_hints(read_only=False, destructive=True))
    def ck3_git(  # noqa: PLR0913, PLR0917 - a tool's parameters are its input schema
        ctx: Context,
        command: Literal["status", "diff", "log", "add", "commit"],
        root: str | None = None,
        path: Address = None,
        paths: list[str] | None = None,
        message: str | None = None,
        limit: Annotated[int | None, Field(ge=1, le=200)] = None,
    ) -> ReplyResult:
        """Git history of the repository holding `root`: a root name (default ROOT_REPO) or any visible
        address, such as `mod:Name:/` for a mod folder that is its own repository. `status` (root): changes
        since HEAD; `diff` (path): one file against HEAD; `log` (root, limit): newest commits. `add` (paths)
        and `commit` (message, root) are governed writes: every file they touch needs a contract that
        permits WRITE on its root; links, special and hard-linked files are refused as ck3_file refuses
        them."""
        args = {"root": root, "path": path, "paths": paths, "message": message, "limit": limit}
        return ReplyResult.of(dispatcher.answer(ctx, "ck3_git", command, args))


def _progress(ctx: Context) -> Callable[[int], None]:
    """Report walk progress to the client (a no-op unless the request carried a progress token)."""

    def report(done: int) -> None:
        anyio.from_thread.run(ctx.report_progress, done, None, f"{done} folders")

    return report
