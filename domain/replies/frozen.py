"""Deeply immutable JSON-shaped data: what a Reply carries in `data`.

`freeze` accepts JSON-like input (mappings with string keys, sequences, str, int, float, bool, None) and
returns a value nothing can mutate through its public interface: maps are `FrozenMap`s, sequences tuples.
`FrozenMap` is a dict underneath with every mutator refused, so the C JSON encoder writes it directly:
the JSON text of a reply of thousands of entries is encoded without copying it back into plain data
first. (The MCP adapter does copy its maps into plain dicts for the protocol layer's own encoder, which
takes a slow path for any dict subclass: `adapters.wire.wire_data`.)
"""

import json
from collections.abc import Mapping
from typing import Any, Final, NoReturn, TypeAlias, final

Frozen: TypeAlias = "str | int | float | bool | tuple[Frozen, ...] | FrozenMap | None"
Thawed: TypeAlias = "str | int | float | bool | list[Thawed] | dict[str, Thawed] | None"
_SCALARS = (str, int, float, bool, type(None))
SCALAR_TYPES: Final = frozenset(_SCALARS)
"""The types of the scalars frozen data holds as they are."""
_STR = frozenset({str})


@final
class FrozenMap(dict[str, Frozen]):
    """An immutable, hashable mapping with string keys and frozen values."""

    __slots__ = ()

    def _refuse(self, *_: object, **__: object) -> NoReturn:
        raise TypeError("FrozenMap is immutable")

    __setitem__ = __delitem__ = _refuse
    clear = pop = popitem = setdefault = update = __ior__ = _refuse

    def __setattr__(self, name: str, value: object) -> NoReturn:
        raise AttributeError("FrozenMap is immutable")

    def __hash__(self) -> int:  # type: ignore[override]  # immutable, so hashable by value
        return hash(tuple(sorted(self.items(), key=lambda kv: kv[0])))

    def __copy__(self) -> "FrozenMap":
        return self

    def __deepcopy__(self, memo: object) -> "FrozenMap":
        return self

    def __reduce__(self) -> tuple[type["FrozenMap"], tuple[dict[str, Frozen]]]:
        return (FrozenMap, (dict(self),))

    def __repr__(self) -> str:
        return f"FrozenMap({dict.__repr__(self)})"


_FROZEN_TYPES = SCALAR_TYPES | {FrozenMap}
"""The types a frozen sequence may hold as they are."""


def freeze(value: object) -> Frozen:
    """Return a deeply immutable copy of JSON-shaped `value`; raise TypeError for anything else."""
    kind = type(value)
    if kind in SCALAR_TYPES or kind is FrozenMap:
        return value  # type: ignore[return-value]  # a scalar, or already frozen all the way down
    if isinstance(value, dict) and _flat(value):
        return FrozenMap(value)  # a flat record of scalars: copied at C speed
    if isinstance(value, Mapping):
        items = value.items()
        return FrozenMap((_key(k), v if type(v) in SCALAR_TYPES else freeze(v)) for k, v in items)
    if kind is list or kind is tuple:
        if _FROZEN_TYPES.issuperset(map(type, value)):  # type: ignore[call-overload]
            return tuple(value)  # type: ignore[arg-type]  # rows made frozen already: checked at C speed
        return tuple(v if type(v) in SCALAR_TYPES else freeze(v) for v in value)  # type: ignore[attr-defined]
    if isinstance(value, _SCALARS):
        return value
    raise TypeError(f"reply data cannot hold a {kind.__name__}")


def _flat(record: dict[Any, Any]) -> bool:
    return _STR.issuperset(map(type, record)) and SCALAR_TYPES.issuperset(map(type, record.values()))


def freeze_map(value: Mapping[str, object] | None) -> FrozenMap:
    """Freeze a mapping (None is the empty mapping)."""
    frozen = freeze(value or {})
    if not isinstance(frozen, FrozenMap):  # pragma: no cover - freeze of a Mapping is a FrozenMap
        raise TypeError("expected a mapping")
    return frozen


def thaw(value: Frozen) -> Thawed:
    """Return plain, mutable JSON data equal to `value`."""
    if type(value) in SCALAR_TYPES:
        return value  # type: ignore[return-value]  # a scalar is its own thawed form
    if isinstance(value, FrozenMap):
        return {k: thaw(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return [thaw(v) for v in value]
    return value


def to_json(value: "Frozen | Mapping[str, object]") -> str:
    """Compact JSON text of frozen (or plain) data."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _key(key: object) -> str:
    if type(key) is not str:
        raise TypeError("reply data keys must be strings")
    return key
