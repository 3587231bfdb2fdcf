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


async def _read_to_the_end(items: list[SessionMessage], pending: drain._Pending, seen: list[str]) -> None:
    """Read `items` as the server's input, stdin closed after them; "ended" is noted when the input
    reports its end."""
    send, receive = anyio.create_memory_object_stream[SessionMessage | Exception](len(items))
    for item in items:
        send.send_nowait(item)
    send.close()
    answers, unread = anyio.create_memory_object_stream[SessionMessage](len(items))
    async with answers, unread, drain._Reading(receive, pending, answers) as reading:
        async for _ in reading:
            pass
    seen.append("ended")


async def test_a_request_its_client_cancelled_does_not_hold_back_the_end_of_input():
    pending, seen = drain._Pending(), []
    with anyio.fail_after(5):  # a guard against a hang: the drain itself waits 60 s for an unsettled request
        await _read_to_the_end([_request(7), _cancel(7)], pending, seen)

    assert seen == ["ended"]
    assert pending.ids == set()


async def test_the_end_of_input_waits_for_an_answer_still_owed():
    pending, seen = drain._Pending(), []
    sent, written = anyio.create_memory_object_stream[SessionMessage](1)
    writing = drain._Writing(sent, pending)

    async def answer_later() -> None:
        await anyio.sleep(0.3)  # the input has reached its end by now, and must wait for this
        await writing.send(SessionMessage(JSONRPCResponse(jsonrpc="2.0", id=7, result={})))
        seen.append("answered")

    async with writing, written, anyio.create_task_group() as group:
        group.start_soon(answer_later)
        await _read_to_the_end([_request(7), _cancel(8)], pending, seen)

    assert seen == ["answered", "ended"]  # a cancel of another request settles nothing of this one
