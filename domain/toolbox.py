"""The use cases behind the agent tools: one method per tool, each returning exactly one Reply.

Until a mode is initialised only `ck3_dir pwd` and `ck3_mode` answer (SPEC §2).
"""

from attrs import define

from domain import catalog as playsets
from domain import directory
from domain import session as sessions
from domain.catalog import Catalog
from domain.directory import Progress
from domain.replies import Reply, ReplyBuilder
from domain.session import Session
from domain.world import WorldAdapter
from ports.errors import Unavailable
from ports.playsets import PlaysetStore


@define
class Toolbox:
    """The core's answer to every tool call. Holds the session; decides; never performs transport."""

    session: Session
    world: WorldAdapter
    playsets: PlaysetStore
    active_playset: str | None = None

    def ck3_dir(self, command: str, path: str | None, depth: int, progress: Progress | None = None) -> Reply:
        if command == "pwd":
            return sessions.pwd(self.session)
        refusal = sessions.mode_required(self.session, "ck3_dir")
        if refusal is not None:
            return refusal
        if command == "cd":
            return directory.change_home(self.session, self.world, path)
        if command == "list":
            return directory.list_folder(self.session, self.world, path)
        if command == "tree":
            return directory.tree(self.session, self.world, path, depth, progress)
        raise ValueError(f"unknown ck3_dir command {command!r}")

    def ck3_mode(self, command: str) -> Reply:
        if command == "status":
            return sessions.mode_status(self.session)
        raise ValueError(f"unknown ck3_mode command {command!r}")

    def ck3_playset(self, command: str, name: str | None) -> Reply:
        refusal = sessions.mode_required(self.session, "ck3_playset")
        if refusal is not None:
            return refusal
        try:
            catalog = Catalog(tuple(self.playsets.load()), self.active_playset)
        except Unavailable:
            return ReplyBuilder().error("WA-IO-E-001", {"address": "ROOT_CK3RAVEN_DATA:/playsets"})
        if command == "list":
            return playsets.list_playsets(catalog)
        if command == "show":
            return playsets.show_playset(catalog, name, self.session.mode)
        raise ValueError(f"unknown ck3_playset command {command!r}")
