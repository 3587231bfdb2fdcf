"""The one strict cattrs converter factory: unknown keys refused, primitives never coerced.

cattrs coerces by default (3 -> "3", "false" -> True); the exact-type hooks here refuse that. Structuring
errors are flattened into (field path, message) pairs for Invalid replies and operator messages.
"""

from collections.abc import Callable
from typing import Any, TypeVar

import cattrs
from cattrs.preconf.json import make_converter as _json_converter

from domain.world.visibility import VisibilityRef

T = TypeVar("T")


class StructureProblems(Exception):
    """The input did not fit the expected shape; `problems` lists (field path, message) pairs."""

    def __init__(self, problems: list[tuple[str, str]]) -> None:
        super().__init__("; ".join(f"{path}: {message}" for path, message in problems))
        self.problems = problems


def _exact(kind: type[Any]) -> Callable[[object, object], object]:
    def hook(value: object, _: object) -> object:
        # bool is an int subclass: `True` must not pass for an int, nor 1 for a float.
        if type(value) is not kind and not (kind is float and type(value) is int):
            raise TypeError(f"expected {kind.__name__}, got {type(value).__name__}")
        return value

    return hook


def _refuse(*_: object) -> object:
    raise TypeError("a VisibilityRef is never serialized")


def make_converter() -> cattrs.Converter:
    """A converter that forbids extra keys, coerces nothing, and refuses VisibilityRefs both ways."""
    conv = _json_converter(forbid_extra_keys=True)
    for kind in (str, int, float, bool):
        conv.register_structure_hook(kind, _exact(kind))
    conv.register_structure_hook(VisibilityRef, _refuse)
    conv.register_unstructure_hook(VisibilityRef, _refuse)
    return conv


def structure(conv: cattrs.Converter, data: object, kind: type[T]) -> T:
    """Structure `data` as `kind`, raising StructureProblems with every field error."""
    try:
        return conv.structure(data, kind)
    except (cattrs.BaseValidationError, ValueError, TypeError) as exc:
        raise StructureProblems(_problems(exc)) from exc


def _problems(exc: Exception) -> list[tuple[str, str]]:
    if not isinstance(exc, cattrs.BaseValidationError):
        return [("$", str(exc))]
    problems = []
    for line in cattrs.transform_error(exc, path="$"):
        message, _, path = line.rpartition(" @ ")
        problems.append((path or "$", message or line))
    return problems
