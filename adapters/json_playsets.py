"""Playset store over the Files port: `ROOT_CK3RAVEN_DATA:/playsets/*.json`, strictly structured.

Reading goes through the same descriptor-safe Files port as every agent read, so a playset file that is a
link, a FIFO or a hard link is refused like any other.
"""

import json
import re
from typing import Final

from cattrs import unstructure

from adapters.strict_converter import StructureProblems, make_converter, structure
from ports.errors import LinkRefused, NotFound, SpecialFile, TooLarge
from ports.files import Files, Location
from ports.playsets import PlaysetFile, PlaysetRecord, PlaysetStore

FOLDER: Final = Location("ROOT_CK3RAVEN_DATA", ("playsets",))
MAX_PLAYSET_BYTES: Final = 1 << 20


class JsonPlaysets(PlaysetStore):
    """Playset files read through `files` (which must serve ROOT_CK3RAVEN_DATA)."""

    def __init__(self, files: Files) -> None:
        self._files = files
        self._converter = make_converter()

    def load(self) -> list[PlaysetFile]:
        if FOLDER.root not in self._files.roots():
            return []
        try:
            entries = self._files.list_dir(FOLDER)
        except NotFound:
            return []
        names = [entry.name for entry in entries if entry.kind == "file" and entry.name.endswith(".json")]
        return [self._one(name) for name in names]

    def _one(self, name: str) -> PlaysetFile:
        try:
            raw = self._files.read(FOLDER.child(name), MAX_PLAYSET_BYTES)
        except (SpecialFile, LinkRefused, NotFound, TooLarge) as exc:
            return PlaysetFile(name, None, (("$", f"cannot be read as a playset ({type(exc).__name__})"),))
        try:
            data = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError):
            return PlaysetFile(name, None, (("$", "is not UTF-8 JSON"),))
        try:
            record = structure(self._converter, data, PlaysetRecord)
        except StructureProblems as exc:
            return PlaysetFile(name, None, tuple(exc.problems))
        return PlaysetFile(name, record)

    def save(self, record: PlaysetRecord) -> str:
        same = [f.file for f in self.load() if f.record is not None and f.record.name == record.name]
        name = same[0] if same else _file_name(record.name, {f.file for f in self.load()})
        text = json.dumps(unstructure(record), indent=2, ensure_ascii=False) + "\n"
        self._files.write(FOLDER.child(name), text.encode("utf-8"))
        return name


def _file_name(playset: str, taken: set[str]) -> str:
    """A file name for a new playset: its name in lower case, letters, digits and `_` only."""
    stem = re.sub(r"[^a-z0-9]+", "_", playset.casefold()).strip("_") or "playset"
    name, n = f"{stem}.json", 1
    while name in taken:
        n += 1
        name = f"{stem}_{n}.json"
    return name
