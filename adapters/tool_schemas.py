"""Each tool's input schema, derived from the arguments its commands' requests declare
(domain.use_cases.arguments): one flat object per tool, `command` an enum of its commands.

An argument several commands take is listed once; its description says what each command does with it
("list: entries per page; tree: folders (what fits)"), or, when the argument is `plain`, the one thing
it is for all. Every argument may be null or left out except those the tool itself requires; whether a
command needs one is the core's check (domain.use_cases.admission), not the schema's.
"""

from collections.abc import Mapping
from typing import Any, Final

from attrs import frozen

from domain.use_cases.arguments import Arg
from domain.use_cases.commands import CARRIED, COMMANDS


@frozen
class Face:
    """What a tool says beyond its commands' arguments."""

    default: str | None = None
    """The command when none is given; None: `command` is required."""
    command: str = "what to do"
    commanded: bool = True
    """False: the tool has one command and no `command` argument."""


FACES: Final[Mapping[str, Face]] = {
    "ck3_dir": Face("pwd"),
    "ck3_read": Face(commanded=False),
    "ck3_search": Face(command="what to search"),
    "ck3_git": Face(command="what to show"),
    "ck3_mode": Face("status"),
    "ck3_playset": Face("list"),
    "ck3_file": Face(),
    "ck3_commit": Face(),
    "ck3_contract": Face(),
    "ck3_token": Face(),
}


def input_schema(tool: str) -> dict[str, Any]:
    """The JSON schema of `tool`'s arguments."""
    face = FACES[tool]
    carried = CARRIED.get(tool, ())  # every call carries them, if only as null
    commands = COMMANDS[tool]
    taken: dict[str, list[tuple[str, Arg]]] = {}
    for command, row in commands.items():
        for arg in row.kind.ARGS:
            taken.setdefault(arg.name, []).append((command, arg))
    properties: dict[str, Any] = {}
    if face.commanded:
        default = {} if face.default is None else {"default": face.default}
        properties["command"] = {
            "type": "string",
            "enum": list(commands),
            "description": face.command,
        } | default
    for name, uses in taken.items():
        listed = {
            "anyOf": [_shape(name, uses), {"type": "null"}],
            "description": _about(uses, commanded=face.commanded),
        }
        properties[name] = listed | ({} if name in carried else {"default": None})
    required = (["command"] if face.commanded and face.default is None else []) + list(carried)
    schema: dict[str, Any] = {"type": "object", "properties": properties, "additionalProperties": False}
    return schema | ({"required": required} if required else {})


def _shape(name: str, uses: list[tuple[str, Arg]]) -> dict[str, Any]:
    """The one shape every command gives the argument (one flat schema cannot hold two)."""
    shapes = {repr(dict(arg.shape)) for _, arg in uses}
    if len(shapes) != 1:
        raise ValueError(f"the commands taking {name} disagree on its shape")
    return dict(uses[0][1].shape)


def _about(uses: list[tuple[str, Arg]], *, commanded: bool) -> str:
    if not commanded or all(arg.plain for _, arg in uses):
        return next(arg.about for _, arg in uses if arg.about is not None)
    said: dict[str, list[str]] = {}
    for command, arg in uses:
        if arg.about is not None:
            said.setdefault(arg.about, []).append(command)
    return "; ".join(f"{', '.join(commands)}: {about}" for about, commands in said.items())
