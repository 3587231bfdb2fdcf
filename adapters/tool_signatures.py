"""The Python signature FastMCP validates a tool's call against, made from the tool's derived input schema
(adapters.tool_schemas): each argument's type, bounds and pattern as pydantic reads them, so a shim
declares no argument of its own. Strict validation then holds a call to what the tool lists.
"""

import inspect
from typing import Annotated, Any, Literal

from fastmcp import Context
from pydantic import ConfigDict, Field, create_model

from adapters.tool_schemas import input_schema


def signature(tool: str, returns: object) -> tuple[inspect.Signature, dict[str, Any]]:
    """The shim's signature for `tool` (its context first) and the annotations that go with it."""
    schema = input_schema(tool)
    required = set(schema.get("required", ()))
    params = [inspect.Parameter("ctx", inspect.Parameter.KEYWORD_ONLY, annotation=Context)]
    for name, listed in schema["properties"].items():
        kind = _python(name, listed)
        default = inspect.Parameter.empty if name in required else listed.get("default")
        params.append(
            inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=kind)
        )
    annotations = {param.name: param.annotation for param in params} | {"return": returns}
    return inspect.Signature(params, return_annotation=returns), annotations


def _python(name: str, listed: dict[str, Any]) -> Any:  # noqa: ANN401 - a type made at run time
    """The type of a listed argument: its value's type, or None where the schema allows null."""
    if "anyOf" in listed:
        given = next(part for part in listed["anyOf"] if part.get("type") != "null")
        return _value(name, given) | None
    return _value(name, listed)


def _value(name: str, shape: dict[str, Any]) -> Any:  # noqa: ANN401 - a type made at run time
    kind = shape["type"]
    if "enum" in shape:
        return Literal[tuple(shape["enum"])]
    if kind == "string":
        return Annotated[str, Field(pattern=shape["pattern"])] if "pattern" in shape else str
    if kind == "integer":
        return Annotated[int, Field(ge=shape.get("minimum"), le=shape.get("maximum"))]
    if kind == "boolean":
        return bool
    if kind == "array":
        items = list[_value(name, shape["items"])]  # type: ignore[misc, valid-type]
        return Annotated[items, Field(max_length=shape["maxItems"])] if "maxItems" in shape else items
    return _record(name, shape)


def _record(name: str, shape: dict[str, Any]) -> Any:  # noqa: ANN401 - a model made at run time
    """A closed object: a strict pydantic model of its fields."""
    needed = set(shape["required"])
    fields: dict[str, Any] = {
        field: (_python(field, part), ... if field in needed else None)
        for field, part in shape["properties"].items()
    }
    config = ConfigDict(extra="forbid", strict=True)
    model = create_model(name.title().replace("_", ""), __config__=config, **fields)
    model.__doc__ = shape.get("description")
    return model
