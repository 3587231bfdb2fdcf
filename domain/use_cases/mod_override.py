"""`ck3_file override`: the modder's way to change a game or workshop file — copy it into a local mod of the
active playset at the same game-relative path, where the game loads it instead.

The copy is a governed WRITE of a new file (declared `add` in a contract on the local mod's root), journaled
like every write, and keeps the source's bytes exactly: its BOM and line endings included. It never replaces
a file the mod has already.
"""

from typing import ClassVar

from attrs import frozen

from domain.addresses import canonical
from domain.failures import port_failure
from domain.replies.builder import Reply, ReplyBuilder
from domain.replies.refusal import Refused
from domain.services import Services
from domain.session import Session
from domain.use_cases import file_access, governed_writes
from domain.use_cases.arguments import address, given, text
from domain.use_cases.request import Request
from domain.vocabulary import Operation, RootCategory
from ports.errors import PortError, TooLarge


@frozen
class Override(Request):
    """Copy the game or workshop file at `path` into the local mod `name`, at the same game path."""

    TOOL: ClassVar[str] = "ck3_file"
    MUTATES: ClassVar[bool] = True
    path: str | None = given(address())
    name: str = given(text("name", "the local mod to copy into", required=True))


def override(session: Session, services: Services, request: Override) -> Reply:
    """Write a copy of a game or workshop file into a local mod (a new file), governed and journaled."""
    relative, data = _source(session, request)
    copy = canonical(request.name, relative, mod=True)
    opened = governed_writes.governed(session, services, copy, "write", Operation.WRITE, must_exist=False)
    if opened.kind is not None:
        return ReplyBuilder().invalid("WA-WRITE-I-007", {"address": opened.address})
    return governed_writes.store(
        (session, services), opened, (None, data), created=True, notes=[], exclusive=True
    )


def _source(session: Session, request: Override) -> tuple[tuple[str, ...], bytes]:
    """The source file's game-relative path and bytes; raises Refused (Invalid) for anything but a game or
    workshop file, or a mod that is not a local mod of the playset."""
    world = session.world
    ref = world.ref(request.path, session.home)
    if ref.kind != "file":
        raise Refused.invalid("WA-RES-I-017", {"address": ref.address, "command": "override"})
    place = world.location_of(ref)
    relative = _game_relative(session, place.root, place.parts)
    if relative is None:
        problem = "override copies a file of ROOT_GAME or of a workshop mod of the playset"
        raise Refused.invalid("MCP-VAL-I-001", {"errors": [{"field": "path", "problem": problem}]})
    local = [mod.name for mod in world.view.mods if mod.root is RootCategory.ROOT_USER_DOCS]
    if request.name not in local and any(mod.name == request.name for mod in world.view.mods):
        raise Refused.invalid("WA-RES-I-020", {"name": request.name, "local_mods": local})
    if request.name not in local:
        raise Refused.invalid("WA-RES-I-010", {"mods": local})
    try:
        return relative, world.read_file(ref, file_access.WRITE_LIMIT)
    except TooLarge:
        raise Refused.invalid("WA-WRITE-I-001", {"limit": file_access.WRITE_LIMIT}) from None
    except PortError as exc:
        raise Refused(port_failure(exc, ref.address)) from None


def _game_relative(session: Session, root: str, parts: tuple[str, ...]) -> tuple[str, ...] | None:
    """The game-relative path of a place in the game or in a workshop mod of the playset; None elsewhere."""
    if root == RootCategory.ROOT_GAME.value:
        return parts or None
    for mod in session.world.view.mods:
        inside = (
            mod.root.value == root and len(parts) > len(mod.parts) and parts[: len(mod.parts)] == mod.parts
        )
        if inside and mod.root is RootCategory.ROOT_STEAM:
            return parts[len(mod.parts) :]
    return None
