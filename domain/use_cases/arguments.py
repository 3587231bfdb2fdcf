"""The arguments a command takes on the wire, declared once on its request class: each with the field that
holds it (`given`), or, for a request whose fields are not its arguments, in its `ARGS`.

Each argument has a name, the JSON schema of a value it may be given (never null: every argument may be
left out), what this command does with it, and whether this command needs it. The core's door holds a
call to them (domain.use_cases.admission), and a driving adapter derives a tool's input schema from them.
An argument `plain` says the same for every command, so its description names none.
"""

from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any

from attrs import NOTHING, field, frozen

from domain.replies import budget


def _frozen_shape(shape: Mapping[str, Any]) -> Mapping[str, Any]:
    return MappingProxyType(dict(shape))


@frozen
class Arg:
    """One argument of one command."""

    name: str
    about: str | None
    """What the command does with it; None: the command takes it without saying so."""
    shape: Mapping[str, Any] = field(converter=_frozen_shape)
    required: bool = False
    plain: bool = False


def text(
    name: str, about: str | None, *, required: bool = False, plain: bool = False, pattern: str = ""
) -> Arg:
    shape: dict[str, Any] = {"type": "string"} | ({"pattern": pattern} if pattern else {})
    return Arg(name, about, shape, required, plain)


def number(  # noqa: PLR0913 - an integer's bounds and its role
    name: str,
    about: str | None,
    *,
    low: int = 1,
    high: int | None = None,
    required: bool = False,
    plain: bool = False,
) -> Arg:
    shape: dict[str, Any] = {"type": "integer", "minimum": low} | ({"maximum": high} if high else {})
    return Arg(name, about, shape, required, plain)


def flag(name: str, about: str | None, *, plain: bool = False) -> Arg:
    return Arg(name, about, {"type": "boolean"}, plain=plain)


def choice(name: str, about: str | None, values: Sequence[str], *, required: bool = False) -> Arg:
    return Arg(name, about, {"type": "string", "enum": list(values)}, required)


def texts(name: str, about: str | None, *, required: bool = False) -> Arg:
    return Arg(name, about, {"type": "array", "items": {"type": "string"}}, required)


def objects(
    name: str, about: str | None, item: Mapping[str, Any], *, most: int | None = None, required: bool = False
) -> Arg:
    """A list of objects, each of the closed shape `item` (a JSON schema)."""
    shape: dict[str, Any] = {"type": "array", "items": dict(item)} | ({"maxItems": most} if most else {})
    return Arg(name, about, shape, required)


def record(about: str, fields: Mapping[str, Mapping[str, Any]], required: Sequence[str]) -> dict[str, Any]:
    """The closed shape of one object in a list argument."""
    props = {name: dict(shape) for name, shape in fields.items()}
    return {
        "type": "object",
        "description": about,
        "properties": props,
        "required": list(required),
        "additionalProperties": False,
    }


def described(about: str, shape: Mapping[str, Any]) -> dict[str, Any]:
    return dict(shape) | {"description": about}


def optional(about: str, shape: Mapping[str, Any]) -> dict[str, Any]:
    """An object's field that may be null or left out."""
    return {"anyOf": [dict(shape), {"type": "null"}], "default": None, "description": about}


def address() -> Arg:
    """The address of a file or folder, the same for every command."""
    return text("path", ADDRESS, plain=True)


def contract_id() -> Arg:
    return text("contract_id", "a contract's id (default: the session's open contract)", plain=True)


def expected_sha256() -> Arg:
    about = "the sha256 a read returned: refused if the file changed since (a missing file too)"
    return text("expected_sha256", about, plain=True, pattern="^[0-9a-fA-F]{64}$")


ADDRESS = "ROOT_X:/rel/path, mod:<Name>:/rel/path or a path relative to the home"
CURSOR = text("cursor", "next_cursor of the page before", plain=True)
LIMIT = number("limit", "rows per page", high=budget.MOST_ROWS, plain=True)
PAGES = (CURSOR, LIMIT)
"""A paged query's arguments."""


def given(arg: Arg, *, default: object = NOTHING) -> Any:  # noqa: ANN401 - an attrs field, as attrs.field is
    """The request field that holds the argument `arg` (`default`: its value when the argument is not
    given; none: the field is required): the argument is declared once, with its field, and the request
    class lists it in `ARGS` (domain.use_cases.request)."""
    return field(default=default, metadata={DECLARES: arg})


DECLARES = "argument"
"""The key of a field's metadata that holds the argument it is made from."""
