"""Port: the Paradox launcher's playsets (its `launcher-v2.sqlite`), read-only, in root-relative terms."""

from typing import Protocol

from attrs import frozen


@frozen
class LauncherMod:
    """One mod of a launcher playset, in load order. `folder` is where it lives as (root name, segments),
    or None when it lies in no configured root (or the launcher does not say)."""

    name: str
    enabled: bool
    position: int
    steam_id: str | None
    registry_id: str | None
    source: str | None
    folder: tuple[str, tuple[str, ...]] | None


@frozen
class LauncherPlayset:
    name: str
    active: bool
    mods: tuple[LauncherMod, ...]


@frozen
class LauncherState:
    """Every playset the launcher keeps (removed ones left out), and which schema it was read from:
    "text-positions" (older launchers) or "integer-positions" (after modifyPositionToInteger)."""

    playsets: tuple[LauncherPlayset, ...]
    schema: str


class Launcher(Protocol):
    """Port: the launcher database. `read` is None when there is none; raises Unavailable when it cannot
    be read (locked, corrupt, an unknown schema)."""

    def read(self) -> LauncherState | None: ...
