"""The door of every call: a command's arguments held to the shapes its request declares, screened for
host paths, then its request built. Whatever a host gives, a call that does not pass is one Invalid reply,
never an exception (SPEC §6).

Shapes are the subset of JSON Schema the requests' `ARGS` use (type, enum, pattern, minimum, maximum,
items, maxItems, properties, required, additionalProperties, anyOf): the tool's input schema is made of
the same shapes, so over MCP a call that reaches here has passed them already, and a host calling the core
in process is held to them here. A problem names the argument (`targets.0.path`), never its value.
"""

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

from domain.leaks import LeakGate
from domain.replies.builder import Reply, ReplyBuilder
from domain.replies.refusal import Refused
from domain.use_cases.commands import Command
from domain.use_cases.request import Request
from domain.use_cases.screening import host_named

Problem = dict[str, str]
_KINDS: Final[Mapping[str, tuple[str, tuple[type, ...]]]] = {
    "string": ("a string", (str,)),
    "integer": ("an integer", (int,)),
    "number": ("a number", (int, float)),
    "boolean": ("a boolean", (bool,)),
    "array": ("a list", (list, tuple)),
    "object": ("an object", (Mapping,)),
    "null": ("null", (type(None),)),
}


def admitted(
    leaks: LeakGate, row: Command, command: str, args: Mapping[str, object], carried: Sequence[str] = ()
) -> Request:
    """The request of `command` for `args` (None values are arguments not given); raises Refused with the
    Invalid reply naming every argument out of shape, carrying a host path, not taken by the command or
    missing. `carried`: arguments the tool's every call carries, if only as None."""
    absent = [_problem(name, "required (it may be null)", "missing") for name in carried if name not in args]
    if absent:
        raise Refused(_invalid(absent))
    given = {name: value for name, value in args.items() if value is not None}
    taken = {arg.name: arg.shape for arg in row.kind.ARGS}
    problems = [
        problem
        for name, value in given.items()
        if name in taken
        for problem in misfits(value, taken[name], name)
    ]
    if problems:
        raise Refused(_invalid(problems))
    host_named(leaks, given, relative=row.relative)
    problems = [
        {"field": _named(leaks, name), "problem": f"not taken by the {command} command"}
        for name in sorted(given.keys() - row.takes)
    ] + [
        {"field": name, "problem": "required by this command"} for name in sorted(row.requires - given.keys())
    ]
    if problems:
        raise Refused(_invalid(problems))
    return row.kind.build(given)


def unknown_command(commands: Sequence[str]) -> Reply:
    problem = {"field": "command", "problem": f"one of: {', '.join(sorted(commands))}"}
    return _invalid([problem])


def misfits(value: object, shape: Mapping[str, Any], where: str) -> list[Problem]:
    """What keeps `value` from fitting `shape` (nothing: it fits), each problem naming where it is."""
    alternatives = shape.get("anyOf")
    if alternatives is not None:
        if any(not misfits(value, option, where) for option in alternatives):
            return []
        return [_problem(where, "matches none of the shapes it may take", "any_of")]
    kind = shape.get("type")
    if kind is not None and not _is(value, kind):
        return [_problem(where, f"should be {_KINDS[kind][0]}", f"{kind}_type")]
    if "enum" in shape and value not in shape["enum"]:
        return [_problem(where, f"should be one of: {', '.join(map(str, shape['enum']))}", "enum")]
    inner = _INNER.get(kind or "")
    return [] if inner is None else inner(value, shape, where)


def _is(value: object, kind: str) -> bool:
    if isinstance(value, bool) and kind in {"integer", "number"}:
        return False
    return isinstance(value, _KINDS[kind][1])


def _text_misfits(value: str, shape: Mapping[str, Any], where: str) -> list[Problem]:
    pattern = shape.get("pattern")
    # `$` as JSON Schema reads it: the very end, not before a final newline as Python's `re` also allows
    if pattern is not None and re.search(re.sub(r"(?<!\\)\$$", r"\\Z", pattern), value) is None:
        return [_problem(where, f"should match the pattern {pattern}", "string_pattern_mismatch")]
    return []


def _number_misfits(value: float, shape: Mapping[str, Any], where: str) -> list[Problem]:
    low, high = shape.get("minimum"), shape.get("maximum")
    if low is not None and value < low:
        return [_problem(where, f"should be at least {low}", "greater_than_equal")]
    if high is not None and value > high:
        return [_problem(where, f"should be at most {high}", "less_than_equal")]
    return []


def _list_misfits(value: Sequence[object], shape: Mapping[str, Any], where: str) -> list[Problem]:
    most = shape.get("maxItems")
    if most is not None and len(value) > most:
        return [_problem(where, f"should hold at most {most} items", "too_long")]
    item = shape.get("items")
    if item is None:
        return []
    return [problem for i, each in enumerate(value) for problem in misfits(each, item, f"{where}.{i}")]


def _object_misfits(value: Mapping[object, object], shape: Mapping[str, Any], where: str) -> list[Problem]:
    fields: Mapping[str, Any] = shape.get("properties", {})
    extra = [name for name in value if name not in fields]
    # the stray field's name is the caller's text: the problem is named by the object holding it
    problems = (
        [_problem(where, "holds a field it does not take", "extra_forbidden")]
        if extra and shape.get("additionalProperties") is False
        else []
    )
    problems += [
        _problem(f"{where}.{name}", "is required", "missing")
        for name in shape.get("required", ())
        if name not in value
    ]
    return problems + [
        problem
        for name, part in fields.items()
        if name in value
        for problem in misfits(value[name], part, f"{where}.{name}")
    ]


def _named(leaks: LeakGate, name: str) -> str:
    """An argument's name, unless the name itself carries a host path."""
    return "<withheld>" if leaks.findings(name) else name


_INNER: Final[Mapping[str, Callable[[Any, Mapping[str, Any], str], list[Problem]]]] = {
    "string": _text_misfits,
    "integer": _number_misfits,
    "number": _number_misfits,
    "array": _list_misfits,
    "object": _object_misfits,
}
"""What each kind of value is held to beyond its kind."""


def _problem(where: str, problem: str, kind: str) -> Problem:
    return {"field": where, "problem": problem, "kind": kind}


def _invalid(problems: list[Problem]) -> Reply:
    return ReplyBuilder().invalid("MCP-VAL-I-001", {"errors": problems})
