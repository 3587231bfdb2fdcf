"""The TokenFiles port over the Files port: LXE documents as `policy/tokens/<id>.json` in a root, written
atomically and read through the same descriptor-safe port as every agent read (a link or a special file
there is skipped, never followed)."""

from typing import Final

from domain.compliance.tokens import TOKEN_FOLDER
from ports.errors import NotFound, PortError
from ports.files import Files, Location

FOLDER: Final = TOKEN_FOLDER
LIMIT: Final = 64 * 1024


class LxeFiles:
    def __init__(self, files: Files) -> None:
        self._files = files

    def write(self, root: str, token_id: str, document: bytes) -> str:
        parts = (*FOLDER, f"{token_id}.json")
        self._files.write(Location(root, parts), document)
        return "/".join(parts)

    def read_all(self, root: str) -> list[tuple[str, bytes]]:
        folder = Location(root, FOLDER)
        try:
            entries = self._files.list_dir(folder)
        except NotFound:
            return []
        found = []
        for entry in entries:
            if entry.kind != "file" or not entry.name.endswith(".json"):
                continue
            try:
                found.append((entry.name, self._files.read(folder.child(entry.name), LIMIT)))
            except PortError:  # unreadable, a link or a special file: no token
                continue
        return found
