"""Serving MCP over stdio so that every request read before end of input is answered before the server
stops: `printf '<init>\\n<tools/list>\\n<tools/call>\\n' | ck3raven serve` gets every answer.

The SDK's stdio loop ends the session as soon as stdin ends, cancelling requests still being handled.
Here the server reads from a stream that reaches its end only once every request read has its answer
written (or DRAIN_SECONDS have passed). Both of the server's streams are the SDK's own, seen through thin
wrappers that note each request read and each answer written as it passes: no message waits for a task
of ours to hand it on.

A line the SDK's reader cannot decode gets a JSON-RPC error here, under the request's id when one can be
read from it: the SDK validates each line with pydantic, whose JSON parser refuses what Python's accepts
(a string escaping a lone UTF-16 surrogate, `"\\ud800"`), and hands the server the exception, which it
only logs, so the request would otherwise get no answer at all. The error's text never repeats the line.
"""

import json
from types import TracebackType
from typing import Any, Final, Self

import anyio
from fastmcp import FastMCP
from fastmcp.server.context import reset_transport, set_transport
from mcp.server.stdio import stdio_server
from mcp.shared.jsonrpc_dispatcher import cancelled_request_id_from_params
from mcp.shared.message import SessionMessage
from mcp.types import (
    INVALID_REQUEST,
    PARSE_ERROR,
    ErrorData,
    JSONRPCError,
    JSONRPCNotification,
    JSONRPCRequest,
    JSONRPCResponse,
)
from pydantic import ValidationError

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


UNDECODABLE: Final = (
    "The request could not be decoded: send it as JSON text in UTF-8, every string of it whole "
    "(an escaped UTF-16 surrogate only in a pair)."
)
NOT_A_MESSAGE: Final = "The request is JSON but no JSON-RPC message: it needs jsonrpc, id and method."


def undecodable(error: Exception) -> JSONRPCError | None:
    """The JSON-RPC error owed for a line the SDK's reader could not decode (its exception), under the
    request's id where Python's own JSON reader finds one; None for a notification or a blank line (no
    answer is owed)."""
    if not isinstance(error, ValidationError) or not error.errors():
        return None
    first = error.errors()[0]
    line, parse = first.get("input"), first.get("type") == "json_invalid"
    if isinstance(line, str):
        if not line.strip():
            return None
        try:
            line = json.loads(line)
        except (ValueError, RecursionError):
            return _error(None, PARSE_ERROR, UNDECODABLE)  # no request to answer by id: JSON-RPC's null
    if not isinstance(line, dict) or "id" not in line:
        return (
            None
            if isinstance(line, dict) and "method" in line
            else _error(None, INVALID_REQUEST, NOT_A_MESSAGE)
        )
    return _error(
        _id(line["id"]), PARSE_ERROR if parse else INVALID_REQUEST, UNDECODABLE if parse else NOT_A_MESSAGE
    )


def _id(value: object) -> str | int | None:
    """The request's id, where the answer can carry it (text that is whole UTF-8, or a whole number)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return None
        return value
    return None


def _error(request_id: str | int | None, code: int, message: str) -> JSONRPCError:
    return JSONRPCError(jsonrpc="2.0", id=request_id, error=ErrorData(code=code, message=message))


class _Reading(_Closing):
    """The server's input: each request noted as it is read, and settled when the client cancels it; the
    end of input held back until every request read has been settled (or DRAIN_SECONDS have passed). A
    line that could not be decoded is answered with a JSON-RPC error on `answers`."""

    def __init__(self, stream: Any, pending: _Pending, answers: Any) -> None:  # noqa: ANN401 - the SDK's streams
        self._stream = stream
        self._pending = pending
        self._answers = answers

    async def receive(self) -> Incoming:
        try:
            item: Incoming = await self._stream.receive()
        except anyio.EndOfStream:
            with anyio.move_on_after(DRAIN_SECONDS):  # end of input: answer what was asked first
                while self._pending.ids:
                    await self._pending.empty.wait()
            raise
        if isinstance(item, Exception):  # the SDK would only log it: the request is owed an answer
            owed = undecodable(item)
            if owed is not None:
                await self._answers.send(SessionMessage(owed))
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
            writing = _Writing(write, pending)
            await server._mcp_server.run(  # noqa: SLF001 - as above
                _Reading(read, pending, writing),  # the SDK's streams, their reading and writing noted
                writing,
                server._mcp_server.create_initialization_options(),  # noqa: SLF001
            )
    finally:
        reset_transport(token)
