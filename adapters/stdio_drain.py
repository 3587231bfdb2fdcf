"""Serving MCP over stdio so that every request read before end of input is answered before the server
stops: `printf '<init>\\n<tools/list>\\n<tools/call>\\n' | ck3raven serve` gets every answer.

The SDK's stdio loop ends the session as soon as stdin ends, cancelling requests still being handled.
Here the server reads from a stream that reaches its end only once every request read has its answer
written (or DRAIN_SECONDS have passed).
"""

from typing import Any, Final

import anyio
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from fastmcp import FastMCP
from fastmcp.server.context import reset_transport, set_transport
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from mcp.types import JSONRPCError, JSONRPCRequest, JSONRPCResponse

DRAIN_SECONDS: Final = 60.0


class _Pending:
    """Request ids read and not yet answered; `empty` is set whenever none are left."""

    def __init__(self) -> None:
        self.ids: set[Any] = set()
        self.empty = anyio.Event()
        self.empty.set()

    def add(self, request_id: object) -> None:
        self.ids.add(request_id)
        if self.empty.is_set():
            self.empty = anyio.Event()

    def answered(self, request_id: object) -> None:
        self.ids.discard(request_id)
        if not self.ids:
            self.empty.set()


async def serve_stdio(server: FastMCP) -> None:
    """Run `server` over stdio until end of input and every answer owed is written."""
    token = set_transport("stdio")
    try:
        async with server._lifespan_manager(), stdio_server() as (read, write):  # noqa: SLF001 - FastMCP's own run loop, with our streams
            pending = _Pending()
            inner_send, inner_read = anyio.create_memory_object_stream[SessionMessage | Exception](0)
            outer_send, outer_read = anyio.create_memory_object_stream[SessionMessage](0)
            async with anyio.create_task_group() as group:
                group.start_soon(_forward_in, read, inner_send, pending)
                group.start_soon(_forward_out, outer_read, write, pending)
                await server._mcp_server.run(  # noqa: SLF001 - as above
                    inner_read,
                    outer_send,
                    server._mcp_server.create_initialization_options(),  # noqa: SLF001
                )
                group.cancel_scope.cancel()
    finally:
        reset_transport(token)


async def _forward_in(
    source: MemoryObjectReceiveStream[SessionMessage | Exception],
    target: MemoryObjectSendStream[SessionMessage | Exception],
    pending: _Pending,
) -> None:
    async with target:
        async for item in source:
            if isinstance(item, SessionMessage) and isinstance(item.message, JSONRPCRequest):
                pending.add(item.message.id)
            await target.send(item)
        with anyio.move_on_after(DRAIN_SECONDS):  # end of input: answer what was asked first
            while pending.ids:
                await pending.empty.wait()


async def _forward_out(
    source: MemoryObjectReceiveStream[SessionMessage],
    target: MemoryObjectSendStream[SessionMessage],
    pending: _Pending,
) -> None:
    async with source, target:
        async for item in source:
            await target.send(item)
            if isinstance(item.message, JSONRPCResponse | JSONRPCError):
                pending.answered(item.message.id)
