"""The embedding entry: a host runs the core in memory, by tool, command and arguments, with no host path
and nothing written to disk; governance holds there as it does behind the MCP server."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from ck3raven.embedding import in_memory

A_PY = "ROOT_REPO:/src/a.py"
OPEN = {
    "root_category": "ROOT_REPO",
    "intent": "Set a to 2",
    "work_declaration": "Edit src/a.py",
    "operations": ["WRITE"],
    "targets": [{"path": A_PY, "edit_kind": "modify"}],
}


@pytest.fixture
def in_empty_folder(tmp_path: Path):
    """The working folder is an empty one, so that anything written relative to it shows."""
    before = Path.cwd()
    os.chdir(tmp_path)
    yield tmp_path
    os.chdir(before)


def test_a_contract_runs_open_write_close_in_memory_and_writes_nothing_to_disk(in_empty_folder: Path):
    host = in_memory({"ROOT_REPO": {"src": {"a.py": b"a = 1\n"}}})
    session = host.session()

    opened = host.call(session, "ck3_contract", "open", **OPEN)
    written = host.call(session, "ck3_file", "write", path=A_PY, content="a = 2\n")
    closed = host.call(session, "ck3_contract", "close")
    read = host.call(session, "ck3_read", "read", path=A_PY)

    assert [r.code for r in (opened, written, closed)] == ["CT-GATE-S-001", "WA-WRITE-S-001", "CT-GATE-S-002"]
    assert "a = 2" in str(read.data["content"])
    assert [entry.address for entry in host.state.journal.entries([str(opened.data["contract_id"])])] == [
        A_PY
    ]
    assert list(in_empty_folder.iterdir()) == []


def test_a_write_outside_a_contract_is_denied_and_leaves_the_file_as_it_was():
    root: dict[str, object] = {"src": {"a.py": b"a = 1\n"}}
    host = in_memory({"ROOT_REPO": root})

    denied = host.call(host.session(), "ck3_file", "write", path=A_PY, content="a = 2\n")

    assert denied.reply_type.value == "D"
    assert denied.data["required"] == "contract"
    assert root == {"src": {"a.py": b"a = 1\n"}}


def test_an_unknown_tool_or_command_or_argument_is_invalid_as_over_mcp():
    host = in_memory({"ROOT_REPO": {}})
    session = host.session()

    no_tool = host.call(session, "ck3_nothing", "read")
    no_command = host.call(session, "ck3_read", "erase")
    stray = host.call(session, "ck3_read", "read", path="ROOT_REPO:/", colour="red")

    assert (no_tool.code, no_command.code, stray.code) == ("MCP-VAL-I-002", "MCP-VAL-I-001", "MCP-VAL-I-001")
    assert no_command.data["errors"][0]["field"] == "command"
    assert stray.data["errors"][0]["field"] == "colour"


def test_the_embedding_entry_loads_neither_the_mcp_stack_nor_sqlite_nor_git():
    heavy = "{'fastmcp', 'mcp', 'sqlite3', 'dulwich'}"
    probe = f"import sys, ck3raven.embedding; print(sorted({heavy} & set(sys.modules)))"

    loaded = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60
    )

    assert loaded.stdout.strip() == "[]"


def test_an_argument_naming_a_host_path_is_invalid_before_any_handler():
    host = in_memory({"ROOT_REPO": {"src": {"a.py": b"a = 1\n"}}})

    refused = host.call(host.session(), "ck3_search", "names", glob="/etc/*")

    assert refused.reply_type.value == "I"
    assert "/etc" not in str(dict(refused.data))


def test_an_argument_of_another_shape_than_the_tools_schema_is_invalid_not_a_crash():
    host = in_memory({"ROOT_REPO": {"src": {"a.py": b"a = 1\n"}}})
    session = host.session()

    untargeted = host.call(session, "ck3_contract", "open", **{**OPEN, "targets": [{"edit_kind": "modify"}]})
    unlisted = host.call(session, "ck3_contract", "open", **{**OPEN, "targets": 7})

    assert (untargeted.code, unlisted.code) == ("MCP-VAL-I-001", "MCP-VAL-I-001")
    assert host.call(session, "ck3_contract", "status").data["active"] is None


@pytest.mark.parametrize(
    ("tool", "command", "args"),
    [
        ("ck3_file", "write", {"path": A_PY, "content": 5}),
        ("ck3_read", "read", {"path": 5}),
        ("ck3_read", "read", {"path": A_PY, "limit": "3"}),
        ("ck3_read", "read", {"path": A_PY, "limit": True}),
        ("ck3_read", "read", {"path": A_PY, "limit": 0}),
        ("ck3_dir", "list", {"path": "ROOT_REPO:/", "include_ignored": "yes"}),
        ("ck3_commit", "add", {"paths": [A_PY, 3]}),
        ("ck3_token", "nst", {"symbols": [{"name": 1}], "reason": "new"}),
    ],
)
def test_an_argument_of_another_type_than_its_declared_shape_is_invalid_naming_it(tool, command, args):
    host = in_memory({"ROOT_REPO": {"src": {"a.py": b"a = 1\n"}}})

    refused = host.call(host.session(), tool, command, **args)

    assert (refused.reply_type.value, refused.code) == ("I", "MCP-VAL-I-001")
    assert refused.data["errors"][0]["field"].split(".")[0] in args
