"""Serving over stdio holds the end of input back until every request read is settled: answered, or
cancelled by its client (the SDK never answers a cancelled request, so waiting for it would hold the
server's exit for DRAIN_SECONDS)."""

import anyio
import pytest
from mcp.shared.message import SessionMessage
from mcp.types import JSONRPCNotification, JSONRPCRequest, JSONRPCResponse

import adapters.stdio_drain as drain

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _request(number: int) -> SessionMessage:
    return SessionMessage(JSONRPCRequest(jsonrpc="2.0", id=number, method="tools/call", params={"name": "x"}))


def _cancel(number: int) -> SessionMessage:
    params = {"requestId": number, "reason": "the user stopped it"}
    return SessionMessage(JSONRPCNotification(jsonrpc="2.0", method="notifications/cancelled", params=params))


async def _read_to_the_end(items: list[SessionMessage], pending: drain._Pending) -> float:
    """Seconds until the server's input reports its end, once `items` were read and stdin closed."""
    send, receive = anyio.create_memory_object_stream[SessionMessage | Exception](len(items))
    for item in items:
        send.send_nowait(item)
    send.close()
    started = anyio.current_time()
    async with drain._Reading(receive, pending) as reading:
        async for _ in reading:
            pass
    return anyio.current_time() - started


async def test_a_request_its_client_cancelled_does_not_hold_back_the_end_of_input():
    with anyio.fail_after(5):  # the drain itself waits 60 s for a request never settled
        waited = await _read_to_the_end([_request(7), _cancel(7)], drain._Pending())

    assert waited < 1


async def test_the_end_of_input_waits_for_an_answer_still_owed():
    pending = drain._Pending()
    sent, written = anyio.create_memory_object_stream[SessionMessage](1)
    writing = drain._Writing(sent, pending)

    async def answer_later() -> None:
        await anyio.sleep(0.3)
        await writing.send(SessionMessage(JSONRPCResponse(jsonrpc="2.0", id=7, result={})))

    async with writing, written, anyio.create_task_group() as group:
        group.start_soon(answer_later)
        waited = await _read_to_the_end([_request(7), _cancel(8)], pending)

    assert waited >= 0.25  # a cancel of another request settles nothing of this one
