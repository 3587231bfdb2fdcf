"""Port: the servers of one state directory, as far as a decision needs them: this server's id, and
whether another server (named by the id it stamped on a contract or a journal entry) still runs."""

from typing import Protocol


class Servers(Protocol):
    """Port: this server and the others sharing its state directory."""

    @property
    def own(self) -> str:
        """This server's id (stamped on the contracts it opens and the journal entries it begins)."""
        ...

    def running(self, server_id: str) -> bool:
        """Whether the server `server_id` still runs: its registration is held (a server killed or stopped
        holds none). This server is always running."""
        ...
