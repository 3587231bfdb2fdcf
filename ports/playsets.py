"""Port: the playset files in ROOT_CK3RAVEN_DATA:/playsets/, as records. Structure only, no meaning.

The store reads and strictly structures each file; what a playset may contain (folders, unique names) is
the domain's judgement.
"""

from typing import Protocol

from attrs import frozen


@frozen
class ModRecord:
    """One mod line of a playset file."""

    name: str
    folder: str
    enabled: bool = True
    load_order: int = 0
    workshop_id: str | None = None


@frozen
class PlaysetRecord:
    """A playset file's content."""

    name: str
    mods: tuple[ModRecord, ...] = ()


@frozen
class PlaysetFile:
    """One file of the playsets folder: its name and either its record or the problems that stop it."""

    file: str
    record: PlaysetRecord | None
    problems: tuple[tuple[str, str], ...] = ()


class PlaysetStore(Protocol):
    """Port: every `*.json` file in the playsets folder, sorted by file name.

    Raises ports.errors.Unavailable when the folder cannot be read or written."""

    def load(self) -> list[PlaysetFile]: ...

    def save(self, record: PlaysetRecord) -> str:
        """Write `record` (atomically) into the file that holds the playset of that name, or a new file
        named after it; the file's name."""
        ...
