# ruff: noqa: ARG002 - the port's signatures: no root lies in a repository, whatever the arguments
"""The History port for roots that live in memory: no root lies in a repository.

Every question about a repository answers "none" (no top, no HEAD, nothing ignored, nothing changed or
staged, no commits), so a contract's baseline is the files as they stand at open and close compares the
journal and the files; staging or committing is refused as the store being unavailable.
"""

from collections.abc import Mapping

from ports.errors import Unavailable
from ports.files import SurveyRow
from ports.history import Change, CommitInfo, History, Ignores, Staging


class MemoryHistory(History):
    """No repository anywhere: what an embedding host's in-memory roots have."""

    def repository(self, root: str, folder: tuple[str, ...] = ()) -> tuple[str, ...] | None:
        return None

    def head(self, root: str, folder: tuple[str, ...] = ()) -> str | None:
        return None

    def ignores(self, root: str, folder: tuple[str, ...] = ()) -> Ignores | None:
        return None

    def changes_since(
        self,
        root: str,
        baseline: str,
        folder: tuple[str, ...] = (),
        seen: Mapping[str, SurveyRow] | None = None,
    ) -> list[Change]:
        return []

    def state(
        self, root: str, folder: tuple[str, ...] = (), seen: Mapping[str, SurveyRow] | None = None
    ) -> tuple[str | None, list[Change]]:
        return None, []

    def staged(self, root: str, folder: tuple[str, ...] = ()) -> Staging:
        return Staging([])

    def content_at(
        self, root: str, commit: str, parts: tuple[str, ...], top: tuple[str, ...] | None = None
    ) -> bytes | None:
        return None

    def committed_since(self, root: str, baseline: str, folder: tuple[str, ...] = ()) -> list[Change]:
        return []

    def log(self, root: str, limit: int, folder: tuple[str, ...] = ()) -> list[CommitInfo]:
        return []

    def stage(
        self, root: str, files: list[tuple[tuple[str, ...], bytes | None]], folder: tuple[str, ...] = ()
    ) -> None:
        raise Unavailable("no repository holds a root in memory")

    def commit(self, root: str, message: str, author: str, folder: tuple[str, ...] = ()) -> str:
        raise Unavailable("no repository holds a root in memory")
