"""Each tool's input schema, derived from its commands' requests, is the one clients know
(tests/e2e/tool_input_schemas.json), and every argument a command takes is one its request declares."""

import json
from pathlib import Path

import pytest

from adapters.tool_schemas import FACES, input_schema
from domain.use_cases.commands import COMMANDS

KNOWN = json.loads(
    (Path(__file__).parents[1] / "e2e" / "tool_input_schemas.json").read_text(encoding="utf-8")
)


@pytest.mark.parametrize("tool", sorted(FACES))
def test_a_tools_derived_input_schema_is_the_one_clients_know(tool: str):
    assert input_schema(tool) == KNOWN[tool]


def test_every_tool_has_a_face_and_every_face_a_tool():
    assert set(FACES) == set(COMMANDS) == set(KNOWN)


def test_commands_that_disagree_on_an_arguments_shape_cannot_share_one_schema(
    monkeypatch: pytest.MonkeyPatch,
):
    from domain.use_cases import navigation
    from domain.use_cases.arguments import number

    monkeypatch.setattr(navigation.Tree, "ARGS", (number("limit", "folders", high=5),))
    with pytest.raises(ValueError, match="limit"):
        input_schema("ck3_dir")


def test_a_request_made_from_a_calls_arguments_keeps_its_defaults_for_those_not_given():
    from domain.use_cases import repository

    log = COMMANDS["ck3_git"]["log"]
    diff = COMMANDS["ck3_git"]["diff"]

    assert log.kind.build({}) == repository.GitLog("ROOT_REPO")  # limit: its default
    assert log.kind.build({"limit": 3}) == repository.GitLog("ROOT_REPO", 3)
    assert diff.kind.build({}) == repository.GitDiff(None)
