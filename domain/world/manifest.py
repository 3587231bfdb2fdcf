"""The protected-files manifest (domain.policy.protection) as the World Adapter reads it: through the Files
port, afresh whenever a target's facts are asked for (an approved edit of it counts from the next call on),
and parsed again only when its bytes differ from the last read. A manifest that cannot be read protects all
of ROOT_REPO (fail closed); a world without ROOT_REPO, or without the file, has the default entries alone.
"""

from typing import Final

from domain.policy.protection import MANIFEST, Protection
from ports.errors import NotFound, PortError
from ports.files import Files, Location

MANIFEST_LIMIT: Final = 256 * 1024

_MANIFEST_AT: Final = Location(*MANIFEST)


class Manifest:
    """The protection the manifest on a Files port gives now, kept while its bytes stay the same."""

    def __init__(self, files: Files) -> None:
        self._files = files
        self._last: tuple[bytes | None, Protection] | None = None

    def protection(self) -> tuple[Protection, bool]:
        """What is protected now, and whether it was parsed afresh (the bytes differ from the last read's,
        so what was judged by the last one may no longer hold)."""
        raw = self._raw()
        last = self._last
        if last is not None and last[0] == raw:
            return last[1], False
        protection = Protection.from_manifest(raw)
        self._last = (raw, protection)
        return protection, True

    def _raw(self) -> bytes | None:
        if _MANIFEST_AT.root not in self._files.roots():
            return None
        try:
            return self._files.read(_MANIFEST_AT, MANIFEST_LIMIT)
        except NotFound:
            return None
        except PortError:
            return b"unreadable"  # fail closed: all of ROOT_REPO
