"""Every tool call answers one envelope; the safety wrapper turns faults and leaks into Error replies."""

import json
from typing import Any

import pytest
from fastmcp import Client

from adapters.fastmcp_server import build_server
from adapters.mcp_sessions import MAX_WAITING
from app.bootstrap import build, build_core
from app.config import Settings
from domain.leaks import LeakGate
from tests.fakes import answering_a_dict, leaking, list_answered_by, pwd_answered_by, raising

pytestmark = pytest.mark.anyio


async def call(server: Any, era: str, tool: str, args: dict[str, Any]) -> Any:
    async with Client(server, mode=era) as client:
        return await client.call_tool(tool, args, raise_on_error=False)


async def test_pwd_answers_a_success_envelope(repo_settings: Settings, era: str):
    result = await call(build(repo_settings), era, "ck3_dir", {"command": "pwd"})

    env = result.structured_content
    assert result.is_error is False
    assert env["status"] == "success"
    assert env["reply_type"] == "S"
    assert env["code"] == "MCP-CFG-S-001"
    assert env["data"] == {"home": "ROOT_REPO", "address": "ROOT_REPO:/"}
    assert env["meta"]["tool"] == "ck3_dir"
    assert len(env["meta"]["trace_id"]) == 32
    assert env["meta"]["duration_ms"] >= 0
    assert env["error"] is None


async def test_the_text_content_carries_the_same_envelope(repo_settings: Settings, era: str):
    import json

    result = await call(build(repo_settings), era, "ck3_mode", {})

    assert json.loads(result.content[0].text) == result.structured_content


async def test_a_tool_that_raises_answers_an_error_with_the_trace_id_and_no_exception_text(
    repo_settings: Settings, era: str
):
    server = build(repo_settings, core=pwd_answered_by(raising, build_core(repo_settings)))

    result = await call(server, era, "ck3_dir", {})

    env = result.structured_content
    assert result.is_error is True
    assert env["code"] == "MCP-SYS-E-001"
    assert env["error"] == {"trace_id": env["meta"]["trace_id"]}
    assert "secret" not in result.content[0].text
    assert "RuntimeError" not in result.content[0].text


async def test_a_reply_carrying_a_host_path_is_withheld_as_an_error(repo_settings: Settings, era: str):
    server = build(
        repo_settings, core=pwd_answered_by(leaking("/home/alice/game"), build_core(repo_settings))
    )

    result = await call(server, era, "ck3_dir", {})

    env = result.structured_content
    assert env["code"] == "MCP-SYS-E-003"
    assert "alice" not in result.content[0].text


async def test_a_reply_carrying_a_configured_root_path_is_withheld(repo_settings: Settings, era: str):
    core = pwd_answered_by(leaking("x@/srv/world"), build_core(repo_settings))
    server = build_server(core, LeakGate(("/srv/world",)))

    result = await call(server, era, "ck3_dir", {})

    assert result.structured_content["code"] == "MCP-SYS-E-003"


async def test_a_tool_returning_something_other_than_a_reply_is_an_error(repo_settings: Settings, era: str):
    server = build(repo_settings, core=pwd_answered_by(answering_a_dict, build_core(repo_settings)))

    result = await call(server, era, "ck3_dir", {})

    assert result.structured_content["code"] == "MCP-SYS-E-002"


@pytest.mark.parametrize(
    "args",
    [{"depth": "5"}, {"depth": True}, {"path": ["a"]}, {"command": "rm"}, {"extra": 1}],
    ids=["string-for-int", "bool-for-int", "list-for-string", "unknown-command", "extra-property"],
)
async def test_arguments_outside_the_schema_are_invalid_not_coerced(repo_settings: Settings, era: str, args):
    result = await call(build(repo_settings), era, "ck3_dir", args)

    env = result.structured_content
    assert env["reply_type"] == "I"
    assert env["code"] == "MCP-VAL-I-001"
    assert env["data"]["errors"]


async def test_an_argument_name_that_is_a_host_path_is_not_echoed(repo_settings: Settings, era: str):
    result = await call(build(repo_settings), era, "ck3_dir", {"/home/alice": 1})

    assert result.structured_content["code"] == "MCP-VAL-I-001"
    assert "alice" not in result.content[0].text


async def test_an_unknown_tool_is_invalid_and_its_name_is_not_echoed(repo_settings: Settings, era: str):
    result = await call(build(repo_settings), era, "/etc/passwd", {})

    env = result.structured_content
    assert env["code"] == "MCP-VAL-I-002"
    assert env["meta"]["tool"] is None


async def test_every_tool_declares_the_envelope_schema_and_a_closed_world(repo_settings: Settings, era: str):
    async with Client(build(repo_settings), mode=era) as client:
        tools = await client.list_tools()

    for tool in tools:
        assert tool.output_schema is not None
        assert "reply_type" in tool.output_schema["required"]
        assert tool.annotations.open_world_hint is False


async def test_calls_of_one_session_reach_the_core_one_at_a_time(repo_settings: Settings):
    import threading
    import time

    import anyio

    from domain.replies.builder import ReplyBuilder

    inside, most = [0], [0]
    guard = threading.Lock()

    def slow(session, services, request):
        with guard:
            inside[0] += 1
            most[0] = max(most[0], inside[0])
        time.sleep(0.02)
        with guard:
            inside[0] -= 1
        return ReplyBuilder().success("MCP-CFG-S-001", {"home": "ROOT_REPO", "address": "ROOT_REPO:/"})

    server = build(repo_settings, core=list_answered_by(slow, build_core(repo_settings)))
    async with Client(server) as client, anyio.create_task_group() as group:
        for _ in range(MAX_WAITING + 1):  # one running, the rest waiting: none turned away
            group.start_soon(client.call_tool, "ck3_dir", {"command": "list"})

    assert most[0] == 1


async def test_a_call_that_finds_too_many_of_its_session_waiting_is_turned_away_as_busy(
    repo_settings: Settings,
):
    import threading

    import anyio

    from domain.replies.builder import ReplyBuilder

    release = threading.Event()

    def held(session, services, request):
        release.wait(5)
        return ReplyBuilder().success("MCP-CFG-S-001", {"home": "ROOT_REPO", "address": "ROOT_REPO:/"})

    codes: list[str] = []

    async def one(client: Client) -> None:
        result = await client.call_tool("ck3_dir", {"command": "list"}, raise_on_error=False)
        codes.append(result.structured_content["code"])
        if result.structured_content["code"] == "EN-EXEC-D-002":
            release.set()

    server = build(repo_settings, core=list_answered_by(held, build_core(repo_settings)))
    async with Client(server) as client, anyio.create_task_group() as group:
        for _ in range(MAX_WAITING + 2):
            group.start_soon(one, client)

    assert codes.count("EN-EXEC-D-002") == 1


@pytest.mark.parametrize(
    ("tool", "args", "field"),
    [
        ("ck3_file", {"command": "delete", "path": "x.txt", "content": "y"}, "content"),
        ("ck3_dir", {"command": "list", "depth": 2}, "depth"),
        ("ck3_contract", {"command": "renew", "contract_id": "ct-1", "targets": []}, "targets"),
        ("ck3_git", {"command": "diff", "path": "x.txt", "message": "m"}, "message"),
    ],
    ids=["delete-with-content", "list-with-depth", "renew-with-targets", "diff-with-message"],
)
async def test_an_argument_the_command_does_not_take_is_invalid_and_named(
    repo_settings: Settings, era: str, tool: str, args: dict[str, Any], field: str
):
    result = await call(build(repo_settings), era, tool, args)

    assert result.structured_content["code"] == "MCP-VAL-I-001"
    assert [e["field"] for e in result.structured_content["data"]["errors"]] == [field]


async def test_a_delete_with_content_changes_nothing_on_disk(repo_settings: Settings):
    target = repo_settings.roots[next(iter(repo_settings.roots))] / "x.txt"
    target.write_text("before", encoding="utf-8")

    await call(
        build(repo_settings), "auto", "ck3_file", {"command": "delete", "path": "x.txt", "content": "after"}
    )

    assert target.read_text(encoding="utf-8") == "before"


async def test_no_schema_a_tool_declares_uses_a_list_of_types_for_a_nullable_value(repo_settings: Settings):
    import json

    async with Client(build(repo_settings)) as client:
        tools = await client.list_tools()

    schemas = json.dumps([[tool.input_schema, tool.output_schema] for tool in tools])
    assert '"type": [' not in schemas


async def test_tools_list_with_every_tool_stays_within_30000_bytes(repo_settings: Settings, era: str):
    async with Client(build(repo_settings), mode=era) as client:
        tools = await client.list_tools()

    listed = [tool.model_dump(by_alias=True, exclude_none=True) for tool in tools]
    assert len(json.dumps({"tools": listed}, separators=(",", ":"))) <= 30_000
