"""Port: version history of the repository that holds a root (git), in root-relative terms."""

from typing import Literal, Protocol

from attrs import frozen

ChangeKind = Literal["add", "modify", "delete"]


@frozen
class Change:
    """A path below the root whose content differs from the baseline, and how."""

    parts: tuple[str, ...]
    kind: ChangeKind


class History(Protocol):
    """Port: HEAD and changes of the git repository holding a root.

    `head` is None when the root lies in no repository (or it has no commit). `changes_since` lists every
    difference between a commit and the working tree under the root — committed, staged, unstaged and
    untracked alike. Raises ports.errors.Unavailable when the repository cannot be read."""

    def head(self, root: str) -> str | None: ...

    def changes_since(self, root: str, baseline: str) -> list[Change]: ...
