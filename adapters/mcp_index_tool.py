"""The `ck3_index` tool an MCP client sees: questions by key to the playset's content index (SPEC §15).
A read tool: it changes no file, and the index it reads is written by the server alone."""

from typing import Annotated, Literal

from fastmcp import Context, FastMCP
from pydantic import Field

from adapters.mcp_dispatch import Dispatcher
from adapters.mcp_tools import READS
from adapters.output_schemas import output_schema
from adapters.reply_middleware import ReplyResult


def add_index_tool(server: FastMCP, dispatcher: Dispatcher) -> None:
    @server.tool(output_schema=output_schema("ck3_index"), annotations=READS)
    def ck3_index(  # noqa: PLR0913, PLR0917 - a tool's parameters are its input schema
        ctx: Context,
        command: Literal["define", "conflicts", "mentions", "missing", "status"] = "status",
        key: Annotated[str | None, Field(description="e.g. brave, birth.0001")] = None,
        kind: Annotated[str | None, Field(description="traits, event, localisation…")] = None,
        language: str | None = None,
        reference: str | None = None,
        cursor: str | None = None,
        limit: Annotated[int | None, Field(ge=1, le=500)] = None,
    ) -> ReplyResult:
        """The active playset's content by key, read-only. `define`: where `key` (of `kind`: a common/
        folder, event, namespace, localisation, gui_type) is defined and which definition the game
        uses, by which rule; `conflicts`: keys several sources define; `mentions`: script and GUI files
        naming `key`; `missing`: localisation keys `language` lacks against `reference` (english);
        `status`: the last build. Paged (`cursor`, `limit`); `pending`: files not indexed yet."""
        args: dict[str, object] = {
            "key": key,
            "kind": kind,
            "language": language,
            "reference": reference,
            "cursor": cursor,
            "limit": limit,
        }
        return ReplyResult.of(dispatcher.answer(ctx, "ck3_index", command, args))
