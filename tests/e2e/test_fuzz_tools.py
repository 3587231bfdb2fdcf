"""Every tool, fuzzed with arguments drawn from its own input schema and with arguments that break it:
each call answers one envelope with a registered code, never an Error (no fault is injected here), never
a host path, and a refused call (Invalid or Denied) changes nothing on disk."""

import hashlib
import json
from pathlib import Path
from typing import Any

import anyio
import pytest
from fastmcp import Client
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from app.bootstrap import build
from app.config import Settings
from domain.replies.registry import REGISTRY
from domain.vocabulary import Mode, RootCategory

WORDS = st.sampled_from(
    [
        "",
        "ROOT_REPO:/src/a.py",
        "ROOT_CK3RAVEN_DATA:/wip/x.txt",
        "src",
        "../etc/passwd",
        "/etc/passwd",
        "C:\\Windows",
        "mod:None:/x",
        "*",
        "**/*.py",
        "(",
        "pwd",
        "x" * 300,
        "\x00",
        "é",
        "ROOT_REPO:/.git/config",
    ]
)
VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 10**6) | WORDS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(WORDS, inner, max_size=3),
    max_leaves=6,
)


def world(base: Path) -> Settings:
    (base / "repo" / "src").mkdir(parents=True)
    (base / "repo" / "src" / "a.py").write_text("a = 1\n", encoding="utf-8")
    (base / "data" / "wip").mkdir(parents=True)
    roots = {RootCategory.ROOT_REPO: base / "repo", RootCategory.ROOT_CK3RAVEN_DATA: base / "data"}
    # its own state directory: the module-wide fixture runs before any test sets XDG_STATE_HOME
    return Settings(
        "fuzz",
        roots,
        RootCategory.ROOT_REPO,
        Mode.CK3RAVEN_DEV,
        state_dir=base.with_name(f"{base.name}-state"),
    )


def on_disk(base: Path) -> dict[str, str]:
    return {
        str(path.relative_to(base)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(base.rglob("*"))
        if path.is_file() and ".git" not in path.parts
    }


def arguments(schema: dict[str, Any]) -> st.SearchStrategy[dict[str, Any]]:
    """Arguments for a tool: its own property names (and a stranger one) with values of any shape, and
    for `command` mostly one of its own."""
    properties = schema.get("properties", {})
    commands = properties.get("command", {}).get("enum", [])
    names = st.sampled_from([*properties, "unexpected"])
    drawn = st.dictionaries(names, VALUES, max_size=4)
    if not commands:
        return drawn
    return st.builds(lambda args, command: {**args, "command": command}, drawn, st.sampled_from(commands))


@pytest.fixture(scope="module")
def fuzzed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Settings, Path, dict[str, Any]]:
    base = tmp_path_factory.mktemp("fuzz")
    built = world(base)

    async def schemas() -> dict[str, Any]:
        async with Client(build(built)) as client:
            return {tool.name: (tool.input_schema, tool.output_schema) for tool in await client.list_tools()}

    return built, base, anyio.run(schemas)


TOOLS = ["ck3_dir", "ck3_read", "ck3_search", "ck3_git", "ck3_mode", "ck3_playset", "ck3_file", "ck3_commit"]
TOOLS += ["ck3_contract", "ck3_token"]


@pytest.mark.parametrize("tool", TOOLS)
def test_any_arguments_get_one_registered_envelope_and_a_refusal_changes_nothing(fuzzed, tool):
    built, base, schemas = fuzzed
    server = build(built)
    inputs, outputs = schemas[tool]
    shaped = Draft202012Validator(outputs)

    @settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(arguments(inputs))
    def check(args: dict[str, Any]) -> None:
        before = on_disk(base)

        async def call() -> dict[str, Any]:
            async with Client(server) as client:
                result = await client.call_tool(tool, args, raise_on_error=False)
            return dict(result.structured_content)

        envelope = anyio.run(call)
        assert envelope["code"] in REGISTRY, envelope
        assert not list(shaped.iter_errors(envelope)), envelope  # its data is what its code declares
        assert envelope["reply_type"] != "E", envelope
        assert str(base) not in json.dumps(envelope), envelope
        if envelope["reply_type"] in {"I", "D"}:
            assert on_disk(base) == before, envelope

    check()
