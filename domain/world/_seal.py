"""The seal behind VisibilityRef: only the World Adapter mints refs, and only it can open them again.

A ref is a small final class with no public state. Its location is kept here, in a registry keyed by the
ref itself, so `dir()`, `vars()`, `getattr` and every serializer find nothing to expose; a ref made
without the seal, or whose address was altered after minting, is refused when opened.
"""

from typing import Final, NoReturn, final
from weakref import WeakKeyDictionary

from ports.files import Kind, Location

_SEAL: Final = object()


class ForgedRefError(RuntimeError):
    """A VisibilityRef that the World Adapter did not mint, or that was altered since."""


@final
class VisibilityRef:
    """Proof that the World Adapter resolved a target. Shows its canonical address and nothing else."""

    __slots__ = ("__weakref__", "_address", "_kind")
    _address: str
    _kind: Kind | None

    def __init__(self, address: str, kind: Kind | None, *, seal: object) -> None:
        if seal is not _SEAL:
            raise ForgedRefError("VisibilityRefs are minted only by the World Adapter")
        object.__setattr__(self, "_address", address)
        object.__setattr__(self, "_kind", kind)

    @property
    def address(self) -> str:
        """The canonical, session-absolute address of the target."""
        return self._address

    @property
    def kind(self) -> Kind | None:
        """What stood at the target when it was resolved (None: nothing yet)."""
        return self._kind

    def __setattr__(self, name: str, value: object) -> NoReturn:
        raise AttributeError("a VisibilityRef cannot be changed")

    def __delattr__(self, name: str) -> NoReturn:
        raise AttributeError("a VisibilityRef cannot be changed")

    def __repr__(self) -> str:
        return f"VisibilityRef({self._address})"

    __str__ = __repr__

    def __reduce_ex__(self, protocol: object) -> NoReturn:
        raise TypeError("a VisibilityRef cannot be pickled")

    def __reduce__(self) -> NoReturn:
        raise TypeError("a VisibilityRef cannot be pickled")

    def __getstate__(self) -> NoReturn:
        raise TypeError("a VisibilityRef has no exportable state")

    def __copy__(self) -> NoReturn:
        raise TypeError("a VisibilityRef cannot be copied")

    def __deepcopy__(self, memo: object) -> NoReturn:
        raise TypeError("a VisibilityRef cannot be copied")


_LOCATIONS: "WeakKeyDictionary[VisibilityRef, tuple[str, Location]]" = WeakKeyDictionary()


def mint(address: str, location: Location, kind: Kind | None) -> VisibilityRef:
    """A new ref for `address`, remembering where it lives."""
    ref = VisibilityRef(address, kind, seal=_SEAL)
    _LOCATIONS[ref] = (address, location)
    return ref


def locate(ref: VisibilityRef) -> Location:
    """The location of a ref this module minted and nobody altered; ForgedRefError otherwise."""
    record = _LOCATIONS.get(ref) if isinstance(ref, VisibilityRef) else None
    if record is None or record[0] != ref.address:
        raise ForgedRefError("this VisibilityRef was not minted by the World Adapter")
    return record[1]
