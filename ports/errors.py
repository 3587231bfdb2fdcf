"""The failures a port may report. Adapters translate library errors into these, always chained."""


class PortError(Exception):
    """Base for failures a port may report; adapters raise nothing else."""


class NotFound(PortError):
    """The location does not exist."""


class LinkRefused(PortError):
    """A symbolic link stands on the way (as an ancestor or as the target); links are never followed."""


class NotADirectory(PortError):
    """A folder was needed, and something else stands there."""


class SpecialFile(PortError):
    """Not a regular file or folder (FIFO, device, socket), or a file with several hard links."""


class AlreadyExists(PortError):
    """A file stands where an exclusive write was to create one."""


class TooLarge(PortError):
    """The file is larger than the caller's limit."""


class Misspelled(PortError):
    """On a root whose filesystem matches names without regard to case, the location names an entry that
    exists under another spelling. `spelled` holds the location's segments as their folders spell them
    (those past the last existing one as asked), or None when the folder's spelling could not be told."""

    def __init__(self, spelled: tuple[str, ...] | None) -> None:
        super().__init__("an entry is spelled otherwise in its folder")
        self.spelled = spelled


class Unavailable(PortError):
    """The store failed (I/O error, permissions, a root that moved): a system fault, not the caller's."""


class Busy(Unavailable):
    """The state store is held locked by another process past the wait it allows: nothing was written.
    `waited`: the seconds this call waited; `locked_for`: the seconds since the store was first found
    locked in this spell (a call during a spell waits only a moment: the spell is known)."""

    def __init__(self, waited: float, locked_for: float) -> None:
        super().__init__("the state database is locked by another process")
        self.waited = waited
        self.locked_for = locked_for
