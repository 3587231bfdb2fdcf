"""The driving adapter: a FastMCP server whose tools are thin shims over the domain's use cases.

Every tool takes primitives, strictly validated, and returns a `ReplyResult`; the `ReplyMiddleware` turns
that into the wire envelope. Tool docstrings are what the model reads.
"""

from collections.abc import Callable
from typing import Annotated, Literal, Protocol

import anyio.from_thread
import anyio.to_thread
from fastmcp import Context, FastMCP
from mcp.types import InputRequiredResult
from pydantic import BaseModel, ConfigDict, Field

from adapters.elicitation import Elicitor
from adapters.reply_middleware import ReplyMiddleware, ReplyResult
from adapters.wire import ENVELOPE_SCHEMA
from domain.contracts.gates import OpenRequest
from domain.replies.builder import Reply
from domain.replies.leaks import LeakGate
from domain.use_cases.repository import GitOptions
from ports.contracts import TargetRecord

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


class Toolbox(Protocol):
    """What the tools need from the core: one method per tool, each answering one Reply."""

    def ck3_dir(
        self, command: str, path: str | None, depth: int, progress: Callable[[int], None] | None = None
    ) -> Reply: ...

    def ck3_mode(self, command: str, mode: str | None = None) -> Reply: ...

    def decide_approval(self, approval_id: str, *, approve: bool) -> bool: ...

    def ck3_contract(self, command: str, request: OpenRequest | None, contract_id: str | None) -> Reply: ...

    def ck3_git(self, command: str, options: GitOptions) -> Reply: ...

    def ck3_file(
        self, command: str, path: str | None, content: str | None, old: str | None, new: str | None
    ) -> Reply: ...

    def ck3_playset(self, command: str, name: str | None) -> Reply: ...


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


def build_server(toolbox: Toolbox, gate: LeakGate, *, version: str = "0") -> FastMCP:
    """A FastMCP server exposing the ck3raven tools over `toolbox`, guarded by the reply middleware."""
    server = FastMCP(
        "ck3raven",
        instructions=INSTRUCTIONS,
        version=version,
        strict_input_validation=True,
        mask_error_details=True,
        on_duplicate="error",
    )
    server.add_middleware(ReplyMiddleware(gate, TOOL_NAMES))
    elicitor = Elicitor(lambda approval_id, approve: toolbox.decide_approval(approval_id, approve=approve))

    _add_contract_tool(server, toolbox)
    _add_git_tool(server, toolbox)

    @server.tool(output_schema=ENVELOPE_SCHEMA, annotations=_READ_ONLY)
    def ck3_dir(
        ctx: Context,
        command: Literal["pwd", "cd", "list", "tree"] = "pwd",
        path: Address = None,
        depth: Annotated[int, Field(ge=1, le=64, description="tree: folder levels to descend")] = 3,
    ) -> ReplyResult:
        """Navigate the visible world. `pwd`: the session home. `cd`: make a root (e.g. ROOT_GAME) the home.
        `list`: the children of a folder (address, kind file/dir/symlink/special, size).
        `tree`: the folders below a folder, `depth` levels down. Entries are session-absolute addresses."""
        return ReplyResult.of(toolbox.ck3_dir(command, path, depth, _progress(ctx)))

    @server.tool(
        output_schema=ENVELOPE_SCHEMA,
        annotations=_hints(read_only=False, destructive=True),
    )
    def ck3_file(
        command: Literal["read", "write", "edit", "delete"],
        path: Address,
        content: Annotated[str | None, Field(description="write: the whole new text")] = None,
        old: Annotated[str | None, Field(description="edit: text that occurs exactly once")] = None,
        new: Annotated[str | None, Field(description="edit: its replacement")] = None,
    ) -> ReplyResult:
        """Text files. `read` a visible file; `write` (create or replace) with `content`; `edit` replaces the
        single occurrence of `old` by `new`; `delete` a file. Mutations are governed: a refusal is a D reply
        whose data.required says what it needs (contract, human_approval, mode). Writes are atomic."""
        return ReplyResult.of(toolbox.ck3_file(command, path, content, old, new))

    @server.tool(
        output_schema=ENVELOPE_SCHEMA,
        annotations=_hints(read_only=False, idempotent=True),
    )
    async def ck3_mode(
        ctx: Context,
        command: Literal["status", "init"] = "status",
        mode: Literal["ck3lens", "ck3raven-dev"] | None = None,
    ) -> ReplyResult | InputRequiredResult:
        """Session mode. `status`: the mode (ck3lens or ck3raven-dev) or that none is initialised.
        `init`: ask for `mode`; it takes effect only once a human approves: your client may ask its user
        directly, otherwise the reply names an approval id for the user to approve; then call `init` again."""
        answered = command == "init" and await anyio.to_thread.run_sync(elicitor.take_answer, ctx)
        reply = await anyio.to_thread.run_sync(toolbox.ck3_mode, command, mode)
        if reply.code == "MCP-CFG-I-002" and not answered:
            asked = await elicitor.ask(ctx, str(reply.data["approval_id"]), reply.message())
            if isinstance(asked, InputRequiredResult):
                return asked
            if asked:
                reply = await anyio.to_thread.run_sync(toolbox.ck3_mode, command, mode)
        return ReplyResult.of(reply)

    @server.tool(
        output_schema=ENVELOPE_SCHEMA,
        annotations=_hints(read_only=False, idempotent=True),
    )
    def ck3_playset(
        command: Literal["list", "show", "switch"] = "list", name: str | None = None
    ) -> ReplyResult:
        """Playsets: `list` every playset; `show` one (default: the active one), mods in load order;
        `switch` makes the named playset active (its mods become the visible mods at once)."""
        return ReplyResult.of(toolbox.ck3_playset(command, name))

    return server


def _add_contract_tool(server: FastMCP, toolbox: Toolbox) -> None:
    @server.tool(
        output_schema=ENVELOPE_SCHEMA,
        annotations=_hints(read_only=False),
    )
    def ck3_contract(  # noqa: PLR0913, PLR0917 - a tool's parameters are its input schema
        command: Literal["open", "close", "cancel", "renew", "status", "list", "stash_carry_over"],
        root_category: str | None = None,
        intent: str | None = None,
        operations: list[Literal["READ", "WRITE", "DELETE"]] | None = None,
        targets: list[DeclaredTarget] | None = None,
        work_declaration: str | None = None,
        contract_id: str | None = None,
        ttl_minutes: Annotated[int, Field(ge=1, le=480)] = 120,
    ) -> ReplyResult:
        """Contracts of intended work. `open` declares root_category, intent, operations, targets
        (address and edit_kind add/modify/delete) and work_declaration; writes needing a contract are
        then permitted on that root. `close` reconciles the changes since the contract's git baseline
        with the targets (undeclared work is listed and keeps it open). `cancel`, `renew` (a new contract
        inheriting scope and baseline), `status`, `list`, and `stash_carry_over` (contract_id: the cluster
        of carried-over files to save and revert, or none for the unattributed ones; needs a human)."""
        request = None
        if command in {"open", "renew", "stash_carry_over"}:
            request = OpenRequest(
                root_category or "",
                intent or "",
                tuple(operations or ()),
                tuple(TargetRecord(t.address, t.edit_kind) for t in targets or ()),
                work_declaration or "",
                "agent",
                ttl_minutes,
            )
        return ReplyResult.of(toolbox.ck3_contract(command, request, contract_id))


def _add_git_tool(server: FastMCP, toolbox: Toolbox) -> None:
    @server.tool(
        output_schema=ENVELOPE_SCHEMA,
        annotations=_hints(read_only=False),
    )
    def ck3_git(  # noqa: PLR0913, PLR0917 - a tool's parameters are its input schema
        command: Literal["status", "diff", "log", "add", "commit"],
        root: str = "ROOT_REPO",
        path: Address = None,
        paths: list[str] | None = None,
        message: str | None = None,
        limit: Annotated[int, Field(ge=1, le=200)] = 20,
    ) -> ReplyResult:
        """Git history of the repository holding a root (default ROOT_REPO). `status`: changes since HEAD;
        `diff`: one file against HEAD; `log`: newest commits. `add` (paths) and `commit` (message) are
        governed writes: every file they touch needs a contract that permits WRITE on its root."""
        options = GitOptions(root, path, tuple(paths or ()), message or "", limit)
        return ReplyResult.of(toolbox.ck3_git(command, options))


def _progress(ctx: Context) -> Callable[[int], None]:
    """Report walk progress to the client (a no-op unless the request carried a progress token)."""

    def report(done: int) -> None:
        anyio.from_thread.run(ctx.report_progress, done, None, f"{done} folders")

    return report
