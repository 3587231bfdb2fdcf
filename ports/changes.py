"""Port: change notification for folders, so that a question need not look at every file to know that
nothing changed since it last did."""

from typing import Protocol

from ports.files import Location


class Changes(Protocol):
    """Port: a number for the state of everything below a folder."""

    def generation(self, place: Location) -> int | None:
        """A number that differs from every earlier one as soon as anything below the folder at `place`
        changes (a file written, touched, added, removed or renamed, a folder made or removed), the folder
        watched from this call on; None when its changes cannot be known here (no notification on this
        system, too many folders, no such folder): the caller then looks at the files itself."""
        ...
