"""Serving MCP over stdio so that every request read before end of input is answered before the server
stops: `printf '<init>\\n<tools/list>\\n<tools/call>\\n' | ck3raven serve` gets every answer.

The SDK's stdio loop ends the session as soon as stdin ends, cancelling requests still being handled.
Here the server reads from a stream that reaches its end only once every request read has its answer
written (or DRAIN_SECONDS have passed). Both of the server's streams are the SDK's own, seen through thin
wrappers that note each request read and each answer written as it passes: no message waits for a task
of ours to hand it on.
"""

from types import TracebackType
from typing import Any, Final, Self

import anyio
from fastmcp import FastMCP
from fastmcp.server.context import reset_transport, set_transport
from mcp.server.stdio import stdio_server
from mcp.shared.jsonrpc_dispatcher import cancelled_request_id_from_params
from mcp.shared.message import SessionMessage
from mcp.types import JSONRPCError, JSONRPCNotification, JSONRPCRequest, JSONRPCResponse

DRAIN_SECONDS: Final = 60.0
Incoming = SessionMessage | Exception


class _Pending:
    """Request ids read and not yet settled (answered, or cancelled by the client: the SDK never answers
    a request its client cancelled); `empty` is set whenever none are left."""

    def __init__(self) -> None:
        self.ids: set[Any] = set()
        self.empty = anyio.Event()
        self.empty.set()

    def add(self, request_id: object) -> None:
        self.ids.add(request_id)
        if self.empty.is_set():
            self.empty = anyio.Event()

    def settled(self, request_id: object) -> None:
        self.ids.discard(request_id)
        if not self.ids:
            self.empty.set()


class _Closing:
    """A stream's closing, handed to what it wraps."""

    _stream: Any

    def close(self) -> None:
        self._stream.close()

    async def aclose(self) -> None:
        await self._stream.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        await self.aclose()


class _Reading(_Closing):
    """The server's input: each request noted as it is read, and settled when the client cancels it; the
    end of input held back until every request read has been settled (or DRAIN_SECONDS have passed)."""

    def __init__(self, stream: Any, pending: _Pending) -> None:  # noqa: ANN401 - the SDK's receive stream
        self._stream = stream
        self._pending = pending

    async def receive(self) -> Incoming:
        try:
            item: Incoming = await self._stream.receive()
        except anyio.EndOfStream:
            with anyio.move_on_after(DRAIN_SECONDS):  # end of input: answer what was asked first
                while self._pending.ids:
                    await self._pending.empty.wait()
            raise
        message = item.message if isinstance(item, SessionMessage) else None
        if isinstance(message, JSONRPCRequest):
            self._pending.add(message.id)
        elif isinstance(message, JSONRPCNotification) and message.method == "notifications/cancelled":
            cancelled = cancelled_request_id_from_params(message.params)
            if cancelled is not None:  # never answered: the end of input must not wait for it
                self._pending.settled(cancelled)
        return item

    def __aiter__(self) -> "_Reading":
        return self

    async def __anext__(self) -> Incoming:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None


class _Writing(_Closing):
    """The server's output: each answer noted as written."""

    def __init__(self, stream: Any, pending: _Pending) -> None:  # noqa: ANN401 - the SDK's send stream
        self._stream = stream
        self._pending = pending

    async def send(self, item: SessionMessage) -> None:
        await self._stream.send(item)
        if isinstance(item.message, JSONRPCResponse | JSONRPCError):
            self._pending.settled(item.message.id)


async def serve_stdio(server: FastMCP) -> None:
    """Run `server` over stdio until end of input and every answer owed is written."""
    token = set_transport("stdio")
    try:
        async with server._lifespan_manager(), stdio_server() as (read, write):  # noqa: SLF001 - FastMCP's own run loop, with our streams
            pending = _Pending()
            await server._mcp_server.run(  # noqa: SLF001 - as above
                _Reading(read, pending),  # the SDK's streams, their reading and writing noted
                _Writing(write, pending),
                server._mcp_server.create_initialization_options(),  # noqa: SLF001
            )
    finally:
        reset_transport(token)
