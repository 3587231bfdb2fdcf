"""Port: version history of the repository that holds a root (git), in root-relative terms."""

from collections.abc import Mapping
from typing import Literal, Protocol

from attrs import frozen

from ports.files import SurveyRow

ChangeKind = Literal["add", "modify", "delete"]


@frozen
class Change:
    """A path below the root whose content differs from the baseline, and how."""

    parts: tuple[str, ...]
    kind: ChangeKind


@frozen
class Staging:
    """What the index holds beyond HEAD: the changes below the root, and whether any lie outside it."""

    changes: list[Change]
    elsewhere: bool = False


@frozen
class CommitInfo:
    """One commit: its id, first line of message, author and time (ISO 8601)."""

    sha: str
    message: str
    author: str
    time: str


class Ignores(Protocol):
    """A repository's ignore rules (.gitignore files, .git/info/exclude, the user's excludes file) as a
    question about a root-relative path: is it ignored? (`folder`: the path names a folder.)"""

    def __call__(self, parts: tuple[str, ...], *, folder: bool) -> bool: ...


class History(Protocol):
    """Port: HEAD and changes of the git repository holding a folder of a root.

    `folder` (root-relative segments, default the root itself) picks the repository: the deepest one whose
    top lies between the root and that folder (a mod folder that is its own repository), else the one
    holding the root. Every path given or returned is root-relative. `head` is None when there is no
    repository (or it has no commit). `changes_since` lists every difference between a commit and the
    working tree under the root: committed, staged, unstaged and untracked alike. Raises
    ports.errors.Unavailable when the repository cannot be read or written."""

    def repository(self, root: str, folder: tuple[str, ...] = ()) -> tuple[str, ...] | None:
        """The root-relative segments of the top of the repository `folder` lies in: () when it is the
        repository holding the root, None when there is none."""
        ...

    def head(self, root: str, folder: tuple[str, ...] = ()) -> str | None: ...

    def ignores(self, root: str, folder: tuple[str, ...] = ()) -> Ignores | None:
        """The ignore rules of the repository holding `folder`, for paths below it; None when none holds
        it (or it cannot be read: then nothing is ignored)."""
        ...

    def changes_since(
        self,
        root: str,
        baseline: str,
        folder: tuple[str, ...] = (),
        seen: Mapping[str, SurveyRow] | None = None,
    ) -> list[Change]:
        """`seen`, given: a survey's rows of the entries below the repository's top (paths relative to it,
        none below a nested repository), taken just before: they stand for the working tree, so a tracked
        file with a row is judged without a stat of its own, and untracked files are found among them."""
        ...

    def state(
        self, root: str, folder: tuple[str, ...] = (), seen: Mapping[str, SurveyRow] | None = None
    ) -> tuple[str | None, list[Change]]:
        """`head` and `changes_since` it at once, the repository found and HEAD read once (None and no
        change for a repository without a commit); `seen` as for `changes_since`."""
        ...

    def staged(self, root: str, folder: tuple[str, ...] = ()) -> Staging:
        """What the index holds beyond HEAD."""
        ...

    def content_at(
        self, root: str, commit: str, parts: tuple[str, ...], top: tuple[str, ...] | None = None
    ) -> bytes | None:
        """A regular file's bytes at a commit, in the repository whose top is `top` (default: the one
        holding the file now). None: absent there, not a regular file (a link's target or a submodule is
        never content), or no such repository or commit any more."""
        ...

    def committed_since(self, root: str, baseline: str, folder: tuple[str, ...] = ()) -> list[Change]:
        """What the commits since `baseline` changed (its tree against HEAD's), root-relative."""
        ...

    def log(self, root: str, limit: int, folder: tuple[str, ...] = ()) -> list[CommitInfo]:
        """The newest commits of the repository, newest first."""
        ...

    def stage(
        self, root: str, files: list[tuple[tuple[str, ...], bytes | None]], folder: tuple[str, ...] = ()
    ) -> None:
        """Put these contents into the index (None: remove the path from it). The bytes are what the
        caller read through the file rules; the working tree is never read here."""
        ...

    def commit(self, root: str, message: str, author: str, folder: tuple[str, ...] = ()) -> str:
        """Commit the index; the new commit's id."""
        ...
