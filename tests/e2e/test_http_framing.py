"""Over streamable HTTP a call is answered with one JSON body when nothing but its answer can come back
while it runs, and as an SSE stream when progress or a question for the client's human can
(adapters.http_answers). The real server runs in process behind uvicorn."""

import http.client
import json
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from fastmcp import Client

from app.bootstrap import build_core
from domain.vocabulary import Mode
from tests.e2e.test_http_sessions import TOKEN, http_server
from tests.worlds import sample_world_on_disk

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]


class RawSession:
    """One 2025-11-25 MCP session spoken over plain HTTP, to see how each answer is framed."""

    def __init__(self, url: str) -> None:
        parts = urlsplit(url)
        self._host, self._port, self._path = parts.hostname or "", parts.port or 80, parts.path
        self._headers = {
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            "Authorization": f"Bearer {TOKEN}",
        }
        self._ids = 0
        status, headers, _ = self.post(
            "initialize",
            {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "framing", "version": "1"},
            },
        )
        assert status == 200
        self._headers |= {"Mcp-Session-Id": headers["mcp-session-id"], "Mcp-Protocol-Version": "2025-11-25"}
        self.post("notifications/initialized", None, notify=True)

    def post(
        self, method: str, params: dict[str, Any] | None, *, notify: bool = False
    ) -> tuple[int, dict[str, str], str]:
        """(status, response headers, body text) of one JSON-RPC message."""
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        if not notify:
            self._ids += 1
            message["id"] = self._ids
        connection = http.client.HTTPConnection(self._host, self._port, timeout=30)
        try:
            connection.request("POST", self._path, json.dumps(message).encode(), self._headers)
            response = connection.getresponse()
            text = response.read().decode()
            return response.status, {k.lower(): v for k, v in response.getheaders()}, text
        finally:
            connection.close()

    def call(
        self, tool: str, arguments: dict[str, Any], meta: dict[str, Any] | None = None
    ) -> tuple[str, str]:
        """(content type, body text) of a tools/call."""
        params: dict[str, Any] = {"name": tool, "arguments": arguments} | ({"_meta": meta} if meta else {})
        status, headers, text = self.post("tools/call", params)
        assert status == 200, text
        return headers["content-type"].split(";")[0], text


def messages_of(content_type: str, text: str) -> list[dict[str, Any]]:
    if content_type == "application/json":
        return [json.loads(text)]
    return [
        json.loads(line[5:]) for line in text.splitlines() if line.startswith("data:") and line[5:].strip()
    ]


@pytest.fixture
def world(tmp_path: Path) -> Any:
    return sample_world_on_disk(tmp_path, Mode.CK3LENS)


async def test_a_call_nothing_can_precede_is_answered_with_one_json_body_holding_its_envelope(world: Any):
    with http_server(world, build_core(world)) as url:
        session = RawSession(url)
        framed = [
            session.call("ck3_dir", {"command": "pwd"}),
            session.call("ck3_read", {"path": "ROOT_REPO:/x"}),
        ]

    assert [content_type for content_type, _ in framed] == ["application/json", "application/json"]
    pwd = messages_of(*framed[0])[0]["result"]["structuredContent"]
    assert pwd["code"] == "MCP-CFG-S-001"
    assert messages_of(*framed[1])[0]["result"]["structuredContent"]["code"] == "WA-RES-I-001"


async def test_tools_list_is_answered_with_one_json_body(world: Any):
    with http_server(world, build_core(world)) as url:
        session = RawSession(url)
        _, headers, text = session.post("tools/list", {})

    assert headers["content-type"].startswith("application/json")
    assert {tool["name"] for tool in json.loads(text)["result"]["tools"]} >= {"ck3_dir", "ck3_read"}


async def test_a_call_of_a_tool_that_may_ask_the_human_is_answered_as_a_stream(world: Any):
    with http_server(world, build_core(world)) as url:
        content_type, text = RawSession(url).call("ck3_mode", {"command": "status"})

    assert content_type == "text/event-stream"
    assert messages_of(content_type, text)[-1]["result"]["structuredContent"]["code"].startswith("MCP-CFG-S-")


async def test_a_tree_carrying_a_progress_token_is_streamed_with_its_progress_before_the_answer(world: Any):
    game = next(path for root, path in world.roots.items() if root.value == "ROOT_GAME")
    for index in range(1100):
        (game / "many" / f"d{index:04}").mkdir(parents=True)
    arguments = {"command": "tree", "path": "ROOT_GAME:/many", "limit": 1100}
    with http_server(world, build_core(world)) as url:
        session = RawSession(url)
        streamed = session.call("ck3_dir", arguments, meta={"progressToken": "walk"})
        plain = session.call("ck3_dir", arguments)
        read = session.call("ck3_read", {"path": "ROOT_REPO:/x"}, meta={"progressToken": "read"})

    kinds = [message.get("method", "answer") for message in messages_of(*streamed)]
    assert streamed[0] == "text/event-stream"
    assert kinds == ["notifications/progress", "answer"]
    assert plain[0] == "application/json"
    assert read[0] == "application/json"  # a read reports no progress: the token changes nothing


async def test_a_client_asking_for_progress_over_http_is_told_it(world: Any):
    game = next(path for root, path in world.roots.items() if root.value == "ROOT_GAME")
    for index in range(1100):
        (game / "many" / f"d{index:04}").mkdir(parents=True)
    told: list[float] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        told.append(progress)

    with http_server(world, build_core(world)) as url:
        async with Client(url, mode="legacy", auth=TOKEN) as client:
            result = await client.call_tool(
                "ck3_dir",
                {"command": "tree", "path": "ROOT_GAME:/many", "limit": 1100},
                progress_handler=on_progress,
            )

    assert result.structured_content["data"]["count"] == 1100
    assert told == [1000]
