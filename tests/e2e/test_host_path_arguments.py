"""Input that names a host path where an address, a glob, a root, a playset, a mod, a cursor or a
contract is meant is the caller's mistake: every tool answers it Invalid (never an Error, never Denied), the
reply never repeats it, and nothing on disk changes. A stored name that cannot be shown is skipped and
counted."""

import json
from pathlib import Path
from typing import Any

import anyio
import pytest
from attrs import evolve
from fastmcp import Client
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.bootstrap import build
from app.config import Settings
from domain.use_cases.commands import COMMANDS
from domain.vocabulary import Mode, RootCategory
from tests.e2e.test_fuzz_tools import on_disk
from tests.worlds import sample_world_on_disk

NAMING = ("path", "paths", "glob", "root_category", "name", "cursor", "contract_id", "targets", "symbols")
"""Arguments that name a place or a thing (content arguments — text, strings, patterns — are not here)."""
PREFIXES = ("/etc/", "/home/", "~/", "C:\\Users\\", "D:/", "\\\\server\\share\\", "file:///", "//host/")
PREFIXES += ("**/etc/", "x /usr/", "common/~/")


def _wrapped(argument: str, value: str) -> object:
    """The host-path value in the argument's own shape."""
    if argument == "paths":
        return [value]
    if argument == "targets":
        return [{"path": value, "edit_kind": "add"}]
    if argument == "symbols":
        return [{"name": "x", "path": value}]
    return value


CALLS = [
    (tool, command, argument)
    for tool, commands in COMMANDS.items()
    for command, route in commands.items()
    for argument in NAMING
    if argument in route.takes
]


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> tuple[Settings, Path]:
    base = tmp_path_factory.mktemp("hostpaths")
    state = tmp_path_factory.mktemp("hostpaths-state")  # its own, outside the files compared
    return evolve(sample_world_on_disk(base, Mode.CK3LENS), state_dir=state), base


def test_every_naming_argument_of_every_command_is_fuzzed():
    assert {(tool, argument) for tool, _, argument in CALLS} >= {
        ("ck3_search", "glob"),
        ("ck3_search", "path"),
        ("ck3_playset", "path"),
        ("ck3_playset", "name"),
        ("ck3_contract", "root_category"),
        ("ck3_contract", "targets"),
        ("ck3_token", "symbols"),
        ("ck3_mode", "root_category"),
        ("ck3_commit", "paths"),
    }


def test_a_host_path_in_any_naming_argument_is_invalid_and_never_repeated(served):
    built, base = served
    server = build(built)
    own = str(built.roots[RootCategory.ROOT_GAME])

    @settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(
        st.sampled_from(CALLS),
        st.sampled_from([*PREFIXES, own + "/"]),
        st.text(alphabet="abz._-/", max_size=12),
    )
    def check(call: tuple[str, str, str], prefix: str, tail: str) -> None:
        tool, command, argument = call
        value = prefix + tail
        before = on_disk(base)

        async def answer() -> dict[str, Any]:
            async with Client(server) as client:
                args = {"command": command, argument: _wrapped(argument, value)}
                result = await client.call_tool(tool, args, raise_on_error=False)
            return dict(result.structured_content)

        envelope = anyio.run(answer)
        assert envelope["reply_type"] == "I", (call, value, envelope)
        assert value not in json.dumps(envelope, ensure_ascii=False), (call, value)
        assert on_disk(base) == before

    check()


def test_a_playset_whose_name_is_a_host_path_is_skipped_and_counted_by_list(served):
    built, _ = served
    folder = built.roots[RootCategory.ROOT_CK3RAVEN_DATA] / "playsets"
    named = {"name": str(built.roots[RootCategory.ROOT_GAME]), "mods": []}
    (folder / "odd.json").write_text(json.dumps(named), encoding="utf-8")

    async def listed() -> dict[str, Any]:
        async with Client(build(built)) as client:
            result = await client.call_tool("ck3_playset", {"command": "list"}, raise_on_error=False)
        return dict(result.structured_content)

    try:
        envelope = anyio.run(listed)
    finally:
        (folder / "odd.json").unlink()

    assert envelope["code"] == "WA-CFG-S-001", envelope
    assert [row["name"] for row in envelope["data"]["playsets"]] == ["Sample Playset"]
    assert envelope["data"]["unshown"] == 1
