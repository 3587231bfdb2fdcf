"""What spares a question the stat re-check of a folder (SPEC §15: an edit made outside the server shows
in the next answer): change notification says whether anything below the folder changed since the last
re-check that found the index complete there; when nothing did, the files are as that re-check left them
and looking at each again would find nothing. A folder whose changes cannot be known (no notification)
is re-checked every time, as is one whose last re-check left files not indexed (no answer stands on half
an index), and every folder once another writer committed to the index (a build in its own process,
another server): its rows may have changed though no file did."""

from ports.changes import Changes
from ports.files import Location


class Rechecks:
    """The generation at which each (source, folder) was last re-checked complete, shared by every
    session of a server. Sessions racing here can only make a folder be looked at once more: a
    generation is taken before its re-check, and any change after it moves the folder's generation on."""

    def __init__(self, changes: Changes) -> None:
        self._changes = changes
        self._held: dict[tuple[str, str], tuple[int, int]] = {}

    def generation(self, place: Location) -> int | None:
        """The folder's generation now (None: its changes cannot be known), taken before its re-check."""
        return self._changes.generation(place)

    def unchanged(self, source: str, folder: str, generation: int | None, version: int) -> bool:
        """Whether `folder` of `source` was re-checked complete at `generation`, the index at `version`
        (ContentIndex.version), and nothing changed since."""
        return generation is not None and self._held.get((source, folder)) == (generation, version)

    def complete(self, source: str, folder: str, generation: int | None, version: int) -> None:
        """A re-check that began at `generation`, the index at `version`, found `folder` of `source`
        complete."""
        if generation is not None:
            self._held[(source, folder)] = (generation, version)
