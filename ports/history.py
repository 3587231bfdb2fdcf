"""Port: version history of the repository that holds a root (git), in root-relative terms."""

from typing import Literal, Protocol

from attrs import frozen

ChangeKind = Literal["add", "modify", "delete"]


@frozen
class Change:
    """A path below the root whose content differs from the baseline, and how."""

    parts: tuple[str, ...]
    kind: ChangeKind


@frozen
class CommitInfo:
    """One commit: its id, first line of message, author and time (ISO 8601)."""

    sha: str
    message: str
    author: str
    time: str


class History(Protocol):
    """Port: HEAD and changes of the git repository holding a root.

    `head` is None when the root lies in no repository (or it has no commit). `changes_since` lists every
    difference between a commit and the working tree under the root — committed, staged, unstaged and
    untracked alike. Raises ports.errors.Unavailable when the repository cannot be read."""

    def head(self, root: str) -> str | None: ...

    def changes_since(self, root: str, baseline: str) -> list[Change]: ...

    def staged(self, root: str) -> list[Change]:
        """What the index holds beyond HEAD, under the root."""
        ...

    def content_at(self, root: str, commit: str, parts: tuple[str, ...]) -> bytes | None:
        """A file's bytes at a commit (None: absent there)."""
        ...

    def log(self, root: str, limit: int) -> list[CommitInfo]:
        """The newest commits of the repository, newest first."""
        ...

    def stage(self, root: str, paths: list[tuple[str, ...]]) -> None:
        """Put the working-tree state of these files (present or deleted) into the index."""
        ...

    def commit(self, root: str, message: str, author: str) -> str:
        """Commit the index; the new commit's id."""
        ...
