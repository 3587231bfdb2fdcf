"""A write to a file of the game's, as the game needs it (domain.ck3.game_files): a descriptor the game
could not read is Invalid; a script or localisation file gets the encoding and line endings of its kind
(CRLF for a new file when the files of its kind beside it use CRLF throughout). Other files pass as given.
"""

from typing import Final

from domain.ck3 import game_files
from domain.replies.refusal import Refused
from domain.session import Session
from domain.use_cases.file_contents import file_bytes
from domain.world.visibility import VisibilityRef
from ports.errors import PortError

UNREAD: Final = b"\x00unread"
"""Stands for "the file exists; read it if a rule needs it"."""


def game_rules(
    session: Session, ref: VisibilityRef, data: bytes, *, existing: bytes | None
) -> tuple[bytes, list[str]]:
    """`data` as the game needs it when `ref` is a game file (domain.ck3.game_files), and what changed;
    raises Refused (Invalid) for a descriptor the game could not read."""
    world = session.world
    place = world.location_of(ref)
    problems = game_files.descriptor_problems(place.root, place.parts, data)
    if problems:
        raise Refused.invalid("WA-WRITE-I-008", {"address": ref.address, "problems": problems})
    path = game_files.game_path(place.root, place.parts)
    if path is None:
        return data, []
    if existing is UNREAD:
        existing = file_bytes(world, ref)
    kind = game_files.kind_of(path)
    crlf = existing is None and kind is not None and _folder_uses_crlf(session, place.root, place.parts)
    return game_files.adjusted(path, data, existing, folder_uses_crlf=crlf)


def _folder_uses_crlf(session: Session, root: str, parts: tuple[str, ...]) -> bool:
    """Whether the files of its kind beside a new file (a few of them) use CRLF throughout."""
    world = session.world
    folder = world.ref_or_none(world.address_of(root, parts[:-1]), session.home)
    if folder is None or folder.kind != "dir":
        return False
    try:
        listed = [entry for entry in world.list_dir(folder) if entry.kind == "file"]
    except PortError:
        return False
    samples = []
    suffix = "." + parts[-1].rpartition(".")[2]
    for entry in [entry for entry in listed if entry.name.endswith(suffix)][:3]:
        sibling = world.ref_or_none(entry.address, session.home)
        read = file_bytes(world, sibling) if sibling is not None else None
        if read is not None:
            samples.append(read)
    return game_files.uses_crlf(samples)
