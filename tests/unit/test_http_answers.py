"""Which HTTP requests are answered with one JSON body (adapters.http_answers): only a request nothing
else can come back for while it runs, judged from its whole body, in the task serving it alone."""

import ast
import asyncio
import json
import typing
from pathlib import Path
from typing import Any

import pytest
from mcp.types import InputRequiredResult
from starlette.types import Message, Receive, Scope, Send

from adapters import mcp_tools
from adapters.http_answers import Framing, OneBody, TalksBack, answers_alone
from adapters.mcp_tools import ASKS_HUMAN, REPORTS_PROGRESS
from app.bootstrap import build
from tests.worlds import sample_world_on_disk

TALKS_BACK = TalksBack(asks_human=frozenset({"ck3_mode"}), reports_progress=frozenset({"ck3_dir"}))


def body(method: str, params: dict[str, Any] | None = None, *, with_id: bool = True) -> bytes:
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method} | ({"id": 7} if with_id else {})
    return json.dumps(message | ({"params": params} if params is not None else {})).encode()


@pytest.mark.parametrize(
    "sent",
    [
        body("tools/call", {"name": "ck3_read", "arguments": {"path": "ROOT_REPO:/a"}}),
        body("tools/call", {"name": "ck3_dir", "arguments": {}, "_meta": {"other": 1}}),
        body("tools/call", {"name": "ck3_read", "arguments": {}, "_meta": {"progressToken": "t"}}),
        body("tools/list", {}),
        body("tools/list", {"_meta": {"progressToken": "t"}}),
        body("initialize", {"protocolVersion": "2025-11-25"}),
        body("ping"),
    ],
)
def test_a_request_that_sends_nothing_before_its_answer_is_answered_alone(sent: bytes):
    assert answers_alone(sent, TALKS_BACK)


@pytest.mark.parametrize(
    "sent",
    [
        body("tools/call", {"name": "ck3_dir", "arguments": {}, "_meta": {"progressToken": "t"}}),
        body("tools/call", {"name": "ck3_dir", "arguments": {}, "_meta": {"progressToken": 0}}),
        body("tools/call", {"name": "ck3_mode", "arguments": {"command": "init"}}),
        body("tools/call", {"name": ["ck3_read"], "arguments": {}}),
        body("tools/call"),
        body("notifications/initialized", with_id=False),
        b'{"jsonrpc": "2.0", "id": 7, "result": {}}',
        b'[{"jsonrpc": "2.0", "id": 7, "method": "ping"}]',
        b'{"jsonrpc": "2.0", "id": 7, "method": "ping"',
        b"[" * 100_000,
    ],
)
def test_a_request_that_may_send_more_or_is_not_one_request_is_streamed(sent: bytes):
    assert not answers_alone(sent, TALKS_BACK)


def served(chunks: list[bytes], seen: dict[str, bool]) -> tuple[Framing, Scope, Receive, Send]:
    """Framing around an app that reads the body as the transport does and asks `OneBody` before, after,
    and from a task it starts."""
    one_body = OneBody()

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        seen["before the body"] = bool(one_body)
        more = True
        while more:
            message = await receive()
            more = message.get("more_body", False)
        seen["once whole"] = bool(one_body)

        async def started() -> bool:
            return bool(one_body)

        seen["in a task it started"] = await asyncio.create_task(started())

    messages = iter(
        [
            {"type": "http.request", "body": chunk, "more_body": n < len(chunks) - 1}
            for n, chunk in enumerate(chunks)
        ]
    )

    async def receive() -> Message:
        return next(messages)

    async def send(_: Message) -> None:
        return None

    return Framing(app, TALKS_BACK), {"type": "http", "method": "POST"}, receive, send


def test_one_body_holds_only_once_the_body_is_whole_and_only_in_the_task_serving_the_request():
    whole = body("tools/call", {"name": "ck3_read", "arguments": {"path": "ROOT_REPO:/a"}})
    seen: dict[str, bool] = {}
    framing, scope, receive, send = served([whole[:10], whole[10:30], whole[30:]], seen)

    asyncio.run(framing(scope, receive, send))

    assert seen == {"before the body": False, "once whole": True, "in a task it started": False}
    assert not OneBody()  # outside any request


def test_a_call_that_may_ask_the_human_is_never_answered_alone_even_once_whole():
    seen: dict[str, bool] = {}
    framing, scope, receive, send = served([body("tools/call", {"name": "ck3_mode", "arguments": {}})], seen)

    asyncio.run(framing(scope, receive, send))

    assert seen["once whole"] is False


def test_the_tools_said_to_ask_the_human_are_those_that_can_answer_with_a_question(tmp_path: Path):
    tools = asyncio.run(build(sample_world_on_disk(tmp_path)).list_tools())

    may_ask = {
        tool.name
        for tool in tools
        if InputRequiredResult in typing.get_args(typing.get_type_hints(tool.fn).get("return"))
    }

    assert may_ask == ASKS_HUMAN


def test_the_tools_said_to_report_progress_are_those_whose_shim_reports_it():
    source = ast.parse(Path(mcp_tools.__file__).read_text(encoding="utf-8"))
    shims = [node for node in ast.walk(source) if isinstance(node, ast.AsyncFunctionDef | ast.FunctionDef)]

    reporting = {
        shim.name
        for shim in shims
        if shim.name.startswith("ck3_")
        and any(isinstance(node, ast.Name) and node.id == "_progress" for node in ast.walk(shim))
    }
    reporters = {  # whatever reports progress to the client does it through _progress alone
        shim.name
        for shim in shims
        if any(isinstance(node, ast.Attribute) and node.attr == "report_progress" for node in ast.walk(shim))
    }

    assert reporting == REPORTS_PROGRESS
    assert reporters <= {"_progress", "report"}
