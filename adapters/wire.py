"""The wire envelope (SPEC §6): how a Reply travels to an MCP client. Built here and nowhere else.

{"status", "reply_type", "code", "message", "data", "meta": {"trace_id", "duration_ms", "tool"},
 "error": null | {"trace_id"}}

The envelope is one mapping around the reply's frozen data (nothing copied). The structured content the
client receives is the same envelope with its maps as plain dicts (`wire_data`): the protocol layer
encodes a dict subclass, such as a frozen map, at about four times a dict's cost per map. That plain
envelope is encoded once (`wire_json`) into the compact JSON text that is the text twin the protocol asks
for, the text the leak gate reads.
"""

import json
from collections.abc import Mapping
from itertools import chain
from typing import Any, Final

import pydantic_core

from domain.replies.builder import Reply
from domain.replies.frozen import SCALAR_TYPES, FrozenMap, to_json
from domain.vocabulary import ReplyType

Envelope = dict[str, Any]

ENVELOPE_SCHEMA: Final[dict[str, Any]] = {
    "type": "object",
    "description": "Reply envelope: branch on code, never on message.",
    "properties": {
        "status": {"type": "string", "enum": [t.status for t in ReplyType]},
        "reply_type": {"type": "string", "enum": [t.value for t in ReplyType]},
        "code": {"type": "string", "pattern": r"^(WA|EN|CT|MCP)-[A-Z]+-[SIDE]-\d{3}$"},
        "message": {"type": "string"},
        "data": {"type": "object"},
        "meta": {
            "type": "object",
            "properties": {
                "trace_id": {"type": "string"},
                "duration_ms": {"type": "number"},
                "tool": {"anyOf": [{"type": "string"}, {"type": "null"}]},
            },
            "required": ["trace_id", "duration_ms", "tool"],
        },
        "error": {
            "anyOf": [
                {"type": "object", "properties": {"trace_id": {"type": "string"}}, "required": ["trace_id"]},
                {"type": "null"},
            ]
        },
    },
    "required": ["status", "reply_type", "code", "message", "data", "meta", "error"],
}


def envelope_of(
    reply: Reply,
    *,
    trace_id: str,
    duration_ms: float,
    tool: str | None,
    data: Mapping[str, object] | None = None,
) -> Envelope:
    """The envelope for `reply`, holding its frozen data as is; `error` carries the trace id for Error
    replies only. `data` stands in for the reply's data (the leak gate uses it to set file content aside)."""
    return {
        "status": reply.reply_type.status,
        "reply_type": reply.reply_type.value,
        "code": reply.code,
        "message": reply.message(),
        "data": reply.data if data is None else data,
        "meta": {"trace_id": trace_id, "duration_ms": round(duration_ms, 3), "tool": tool},
        "error": {"trace_id": trace_id} if reply.reply_type is ReplyType.ERROR else None,
    }


_MAPS: Final = frozenset({FrozenMap})


def wire_data(value: object) -> object:
    """`value` (frozen reply data) with every map a plain dict; a sequence of scalars stays as it is (a
    tuple encodes as a list, at a list's cost), and rows that are flat maps are copied at C speed."""
    kind = type(value)
    if kind is FrozenMap:
        return {key: wire_data(item) for key, item in value.items()}  # type: ignore[attr-defined]
    if kind is not tuple or SCALAR_TYPES.issuperset(map(type, value)):  # type: ignore[call-overload]
        return value
    if _MAPS.issuperset(map(type, value)):  # type: ignore[call-overload]
        rows = list(map(dict, value))  # type: ignore[call-overload]
        if SCALAR_TYPES.issuperset(map(type, chain.from_iterable(map(dict.values, rows)))):
            return rows
    return [wire_data(item) for item in value]  # type: ignore[attr-defined]


def wire_json(envelope: Envelope) -> str:
    """Compact JSON text of a plain envelope (`wire_data`'s maps), spelled as `to_json` spells it: each
    string, integer, boolean and null the same, character for character (a float may be spelled another
    way, as the same number: 1e-05 as 0.00001). Encoded by pydantic-core, the encoder the protocol layer
    uses anyway, at three to four times the standard library's speed; a text it cannot encode (an
    unpaired surrogate, which an agent's own JSON can carry into a reply) is encoded by `to_json`."""
    try:
        return pydantic_core.to_json(envelope).decode()
    except pydantic_core.PydanticSerializationError:
        return to_json(envelope)


def envelope_text(
    reply: Reply,
    *,
    trace_id: str,
    duration_ms: float,
    tool: str | None,
    data: Mapping[str, object] | None = None,
) -> str:
    """The envelope for `reply` as compact JSON."""
    return to_json(envelope_of(reply, trace_id=trace_id, duration_ms=duration_ms, tool=tool, data=data))


def envelope(reply: Reply, *, trace_id: str, duration_ms: float, tool: str | None) -> Envelope:
    """The envelope for `reply` as plain, mutable data (parsed from its JSON text)."""
    parsed: Envelope = json.loads(envelope_text(reply, trace_id=trace_id, duration_ms=duration_ms, tool=tool))
    return parsed
