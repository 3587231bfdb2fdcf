"""`ck3_playset` handlers: list, show and switch. A switch changes this session's lens only."""

from typing import ClassVar

from attrs import evolve, frozen

from domain.contracts.lifecycle import governing
from domain.replies.builder import Reply, ReplyBuilder
from domain.services import Services
from domain.session import Session
from domain.use_cases.request import Request
from domain.world import catalog
from domain.world.catalog import Catalog
from domain.world.playsets import mod_folders
from ports.errors import Unavailable


@frozen
class ListPlaysets(Request):
    TOOL: ClassVar[str] = "ck3_playset"


@frozen
class ShowPlayset(Request):
    TOOL: ClassVar[str] = "ck3_playset"
    name: str | None = None


@frozen
class SwitchPlayset(Request):
    TOOL: ClassVar[str] = "ck3_playset"
    name: str


def list_playsets(session: Session, services: Services, _: ListPlaysets) -> Reply:
    """Every playset file: its name, whether it is valid and active, and its mod count."""
    loaded = _catalog(session, services)
    return loaded if isinstance(loaded, Reply) else catalog.list_playsets(loaded)


def show(session: Session, services: Services, request: ShowPlayset) -> Reply:
    """One playset (default: the active one), mods in load order with their addresses."""
    loaded = _catalog(session, services)
    if isinstance(loaded, Reply):
        return loaded
    return catalog.show_playset(loaded, request.name, session.mode)


def switch(session: Session, services: Services, request: SwitchPlayset) -> Reply:
    """Make the named playset active for this session: its mods become the visible mods at once. Not while
    a contract is open: its targets and approvals were read in the mods the session saw then."""
    current = governing(session, services)
    if current is not None:
        return ReplyBuilder().invalid("CT-GATE-I-002", {"contract_id": current.contract_id})
    loaded = _catalog(session, services)
    if isinstance(loaded, Reply):
        return loaded
    record = loaded.usable(request.name)
    if isinstance(record, Reply):
        return record
    folders = mod_folders(record)
    reply = ReplyBuilder().success(
        "MCP-CFG-S-004", {"name": record.name, "mods": [folder.name for folder in folders]}
    )
    # One assignment swaps the whole view: no call ever sees the old mods with the new name.
    session.world.set_view(evolve(session.world.view, mods=folders))
    session.playset = record.name
    return reply


def _catalog(session: Session, services: Services) -> Catalog | Reply:
    try:
        return Catalog(tuple(services.playsets.load()), session.playset)
    except Unavailable:
        return ReplyBuilder().error("WA-IO-E-001", {"address": "ROOT_CK3RAVEN_DATA:/playsets"})
