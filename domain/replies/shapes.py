"""What a reply's data holds, field by field: small JSON Schema fragments the registry gives every code.

A field name keeps one meaning across codes (`address` is always a canonical address, `count` a number of
items): `FIELDS` gives each name its shape once. The few names whose content differs by code (`targets`,
`files`, ...) take a shape of their own in that code's row. `data_schema` turns a row into the schema of its
`data` (closed: no field a code does not declare); nested records stay open, so a record may grow a field
without breaking a client that validates.

Only portable JSON Schema is used: one `type` per schema, `anyOf` with `null` for what may be absent.
"""

from collections.abc import Mapping
from types import MappingProxyType

Shape = Mapping[str, object]

TEXT: Shape = MappingProxyType({"type": "string"})
COUNT: Shape = MappingProxyType({"type": "integer", "minimum": 0})
INTEGER: Shape = MappingProxyType({"type": "integer"})
FLAG: Shape = MappingProxyType({"type": "boolean"})
RECORD: Shape = MappingProxyType({"type": "object"})
NULL: Shape = MappingProxyType({"type": "null"})


def maybe(shape: Shape) -> Shape:
    """`shape`, or null."""
    return MappingProxyType({"anyOf": [shape, NULL]})


def items(shape: Shape) -> Shape:
    """An array of `shape`."""
    return MappingProxyType({"type": "array", "items": shape})


def record(required: Mapping[str, Shape], optional: Mapping[str, Shape] | None = None) -> Shape:
    """An object with these fields (the `required` ones always present); other fields may follow."""
    return MappingProxyType(
        {"type": "object", "properties": {**required, **(optional or {})}, "required": sorted(required)}
    )


TEXTS = items(TEXT)
_CHANGE = record({"address": TEXT, "kind": TEXT})
_PROBLEM = record({"field": maybe(TEXT), "problem": TEXT}, {"kind": TEXT})
_SCOPE_TARGET = record({"address": TEXT, "edit_kind": TEXT})
_CONTRACT = record(
    {"contract_id": TEXT, "root_category": TEXT, "status": TEXT},
    {
        "operations": TEXTS,
        "targets": items(_SCOPE_TARGET),
        "target_count": COUNT,
        "expires_at": TEXT,
        "baseline": TEXT,
        "baseline_sha": maybe(TEXT),
        "repositories": items(record({"address": TEXT, "commit": maybe(TEXT)})),
        "renewed_from": maybe(TEXT),
        "created_at": TEXT,
        "inert": FLAG,
    },
)

FIELDS: Mapping[str, Shape] = MappingProxyType(
    {
        # who, where, what
        "address": TEXT,
        "canonical": TEXT,  # the one spelling of the target an address spelled otherwise
        "root": TEXT,
        "root_category": TEXT,
        "contract_root": TEXT,
        "path": TEXT,
        "file": TEXT,
        "home": TEXT,
        "kind": TEXT,
        "command": TEXT,
        "operation": TEXT,
        "operations": TEXTS,
        "tool": TEXT,
        "mode": maybe(TEXT),
        "source": maybe(TEXT),
        "name": TEXT,
        "roots": TEXTS,
        "glob": TEXT,
        "pattern": TEXT,
        "syntax": TEXT,
        # ids and digests
        "trace_id": TEXT,
        "approval_id": TEXT,
        "contract_id": TEXT,
        "renewed_from": maybe(TEXT),
        "stash_id": TEXT,
        "lxe_id": TEXT,
        "saved_as": TEXT,
        "sha": TEXT,
        "sha256": TEXT,
        "expected_sha256": TEXT,
        "head": maybe(TEXT),
        "baseline": TEXT,
        "baseline_sha": maybe(TEXT),
        "artifact": TEXT,
        "recorded": TEXT,
        "current": TEXT,
        "expires_at": TEXT,
        # counts and positions
        "count": COUNT,
        "target_count": COUNT,
        "unnamed": COUNT,
        "unshown": COUNT,
        "total": COUNT,
        "size": COUNT,
        "limit": COUNT,
        "depth": COUNT,
        "scanned": COUNT,
        "files_read": COUNT,
        "files_matched": COUNT,
        "bytes_read": COUNT,
        "total_lines": COUNT,
        "first_line": COUNT,
        "last_line": COUNT,
        "next_offset": maybe(COUNT),
        "edit": COUNT,
        "segment": COUNT,
        "index": COUNT,
        "waiting": COUNT,
        "per_minute": COUNT,
        "retry_after_ms": COUNT,
        # flags
        "truncated": FLAG,
        "created": FLAG,
        "initialised": FLAG,
        "sealed": FLAG,
        "diff_truncated": FLAG,
        # words for people and for the agent's next step
        "rule": maybe(TEXT),
        "expected": TEXT,
        "character": TEXT,
        "hint": maybe(TEXT),
        "problem": TEXT,
        "problems": TEXTS,
        "state": TEXT,
        "note": TEXT,
        "cap": maybe(TEXT),
        "next_cursor": maybe(TEXT),
        "required": maybe(TEXT),
        "message": TEXT,
        # the user's own text
        "content": TEXT,
        "diff": TEXT,
        # lists
        "errors": items(_PROBLEM),
        "entries": items(record({"name": TEXT, "kind": TEXT}, {"size": COUNT})),
        "directories": TEXTS,
        "matches": items(_CHANGE),
        "hits": items(record({"address": TEXT, "line": COUNT, "column": COUNT, "text": TEXT})),
        "skipped": record({"binary": COUNT, "too_large": COUNT, "unreadable": COUNT}),
        "changes": items(_CHANGE),
        "commits": items(record({"sha": TEXT, "author": TEXT, "time": TEXT, "message": TEXT})),
        "staged": TEXTS,
        "paths": items(_CHANGE),
        "adjusted": TEXTS,
        "matched": maybe(TEXTS),
        "mods": TEXTS,
        "playsets": items(RECORD),
        "active": maybe(TEXT),
        "winner": maybe(TEXT),
        "sources": items(
            record({"source": TEXT, "address": TEXT, "provides": FLAG}, {"hidden_by": maybe(TEXT)})
        ),
        "files": TEXTS,
        "targets": items(_SCOPE_TARGET),
        "status": TEXT,
        "carry_over": maybe(RECORD),
        "contracts": items(_CONTRACT),
        "last_closed": maybe(RECORD),
        "undeclared": items(record({"address": TEXT, "kind": TEXT, "source": TEXT, "outside": FLAG})),
        "repositories": items(record({"address": TEXT, "commit": maybe(TEXT)})),
        "uncovered": items(record({"name": TEXT}, {"address": maybe(TEXT)})),
        "request": RECORD,
        "findings": items(record({"path": TEXT, "rule": TEXT, "line": COUNT, "message": TEXT})),
        "over": items(record({"path": TEXT, "rule": TEXT, "found": COUNT, "excused": COUNT})),
        "nsts": items(record({"name": TEXT}, {"address": maybe(TEXT), "reason": TEXT})),
        "lxes": items(RECORD),
        "left_changed": TEXTS,
        "unreached": TEXTS,
        "replace_path": items(record({"mod": TEXT, "folder": TEXT, "reaches": FLAG, "hid": TEXTS})),
        "rules": items(record({"rule": TEXT, "says": TEXT, "confirmed": FLAG})),
    }
)
"""Each field name's shape wherever a code does not give it one of its own."""

CONTRACT = _CONTRACT
CHANGE = _CHANGE


def data_schema(
    fields: frozenset[str], optional: frozenset[str], shapes: Mapping[str, Shape]
) -> dict[str, object]:
    """The JSON Schema of a code's `data`: its fields (`fields` always present), and nothing else."""
    names = sorted(fields | optional)
    return {
        "type": "object",
        "properties": {name: _plain(shapes.get(name) or FIELDS[name]) for name in names},
        "required": sorted(fields),
        "additionalProperties": False,
    }


def _plain(shape: object) -> object:
    """A shape as plain, mutable JSON data (for a schema that leaves the server)."""
    if isinstance(shape, Mapping):
        return {key: _plain(value) for key, value in shape.items()}
    if isinstance(shape, list | tuple):
        return [_plain(value) for value in shape]
    return shape


_KINDS: Mapping[str, tuple[type, ...]] = MappingProxyType(
    {
        "string": (str,),
        "integer": (int,),
        "boolean": (bool,),
        "object": (Mapping,),
        "array": (tuple, list),
        "null": (type(None),),
        "number": (int, float),
    }
)


def fits(value: object, shape: Shape) -> bool:
    """Whether `value` is of the kind `shape` names, at the top level (items and nested fields unchecked:
    the output schema a client validates against checks those)."""
    alternatives = shape.get("anyOf")
    if isinstance(alternatives, list):
        return any(fits(value, option) for option in alternatives)
    kind = shape.get("type")
    if not isinstance(kind, str):
        return True
    if isinstance(value, bool) and kind in {"integer", "number"}:
        return False
    return isinstance(value, _KINDS[kind])
