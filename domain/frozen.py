"""Deeply immutable JSON-shaped data: what a Reply carries in `data`.

`freeze` accepts JSON-like input (mappings with string keys, sequences, str, int, float, bool, None) and
returns a value nothing can mutate; `thaw` turns it back into plain dicts and lists for the wire.
"""

from collections.abc import Iterator, Mapping
from types import MappingProxyType
from typing import TypeAlias, final

Frozen: TypeAlias = "str | int | float | bool | tuple[Frozen, ...] | FrozenMap | None"
Thawed: TypeAlias = "str | int | float | bool | list[Thawed] | dict[str, Thawed] | None"
_SCALARS = (str, int, float, bool, type(None))


@final
class FrozenMap(Mapping[str, Frozen]):
    """An immutable, hashable mapping with string keys and frozen values."""

    __slots__ = ("_items",)
    _items: MappingProxyType[str, Frozen]

    def __init__(self, items: Mapping[str, Frozen] | None = None) -> None:
        object.__setattr__(self, "_items", MappingProxyType(dict(items or {})))

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("FrozenMap is immutable")

    def __getitem__(self, key: str) -> Frozen:
        return self._items[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __hash__(self) -> int:
        return hash(tuple(sorted(self._items.items(), key=lambda kv: kv[0])))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Mapping):
            return dict(self._items) == dict(other)
        return NotImplemented

    def __repr__(self) -> str:
        return f"FrozenMap({dict(self._items)!r})"


def freeze(value: object) -> Frozen:
    """Return a deeply immutable copy of JSON-shaped `value`; raise TypeError for anything else."""
    if isinstance(value, _SCALARS):
        return value
    if isinstance(value, Mapping):
        return FrozenMap({_key(k): freeze(v) for k, v in value.items()})
    if isinstance(value, list | tuple):
        return tuple(freeze(v) for v in value)
    raise TypeError(f"reply data cannot hold a {type(value).__name__}")


def freeze_map(value: Mapping[str, object] | None) -> FrozenMap:
    """Freeze a mapping (None is the empty mapping)."""
    frozen = freeze(value or {})
    if not isinstance(frozen, FrozenMap):  # pragma: no cover - freeze of a Mapping is a FrozenMap
        raise TypeError("expected a mapping")
    return frozen


def thaw(value: Frozen) -> Thawed:
    """Return plain, mutable JSON data equal to `value`."""
    if isinstance(value, FrozenMap):
        return {k: thaw(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return [thaw(v) for v in value]
    return value


def _key(key: object) -> str:
    if not isinstance(key, str):
        raise TypeError("reply data keys must be strings")
    return key
