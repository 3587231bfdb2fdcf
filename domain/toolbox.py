"""The use cases behind the agent tools: one method per tool, each returning exactly one Reply."""

from attrs import define

from domain import session as sessions
from domain.replies import Reply
from domain.session import Session


@define
class Toolbox:
    """The core's answer to every tool call. Holds the session; decides; never performs transport."""

    session: Session

    def ck3_dir(self, command: str, path: str | None, depth: int) -> Reply:
        del path, depth  # used by list and tree
        if command == "pwd":
            return sessions.pwd(self.session)
        raise ValueError(f"unknown ck3_dir command {command!r}")

    def ck3_mode(self, command: str) -> Reply:
        if command == "status":
            return sessions.mode_status(self.session)
        raise ValueError(f"unknown ck3_mode command {command!r}")
