"""The History port, with the git adapter (and dulwich) loaded on first use.

A server answers `initialize` and `tools/list` without git; importing dulwich and the adapter costs about
0.2 s of start-up a client waits for. The first question about history (or the warm-up a second after
start) loads it, once, under a lock; everything is then asked of the real adapter.

A repository damaged in a way the adapter does not name (a corrupt object, an unreadable HEAD: dulwich and
zlib raise their own errors) is Unavailable here, its stack trace in the log: the caller answers the
history's own code, never a generic failure.
"""

import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

import structlog

from ports.errors import PortError, Unavailable
from ports.files import SurveyRow
from ports.history import Change, CommitInfo, History, Ignores, Staging

log = structlog.get_logger()


@contextmanager
def _damaged() -> Iterator[None]:
    try:
        yield
    except PortError:
        raise
    except Exception as exc:
        log.exception("history.damaged")
        raise Unavailable("the repository is damaged") from exc


class LazyHistory:
    """A `DulwichHistory` for these roots, made when first needed."""

    def __init__(self, roots: Mapping[str, Path], *, tree_cache: Path | None = None) -> None:
        self._roots = dict(roots)
        self._tree_cache = tree_cache
        self._lock = threading.Lock()
        self._real: History | None = None

    def loaded(self) -> History:
        """The real adapter (made now if need be)."""
        with self._lock:
            if self._real is None:
                from adapters.dulwich_history import DulwichHistory  # noqa: PLC0415 - dulwich at first use

                self._real = DulwichHistory(self._roots, tree_cache=self._tree_cache)
            return self._real

    def warm(self) -> None:
        """Load the adapter and parse each repository's index and HEAD tree (failures are only logged)."""
        from adapters.dulwich_history import DulwichHistory  # noqa: PLC0415 - dulwich when warmed

        real = self.loaded()
        if isinstance(real, DulwichHistory):
            real.warm()

    def repository(self, root: str, folder: tuple[str, ...] = ()) -> tuple[str, ...] | None:
        with _damaged():
            return self.loaded().repository(root, folder)

    def head(self, root: str, folder: tuple[str, ...] = ()) -> str | None:
        with _damaged():
            return self.loaded().head(root, folder)

    def ignores(self, root: str, folder: tuple[str, ...] = ()) -> Ignores | None:
        with _damaged():
            return self.loaded().ignores(root, folder)

    def changes_since(
        self,
        root: str,
        baseline: str,
        folder: tuple[str, ...] = (),
        seen: Mapping[str, SurveyRow] | None = None,
    ) -> list[Change]:
        with _damaged():
            return self.loaded().changes_since(root, baseline, folder, seen)

    def state(
        self, root: str, folder: tuple[str, ...] = (), seen: Mapping[str, SurveyRow] | None = None
    ) -> tuple[str | None, list[Change]]:
        with _damaged():
            return self.loaded().state(root, folder, seen)

    def staged(self, root: str, folder: tuple[str, ...] = ()) -> Staging:
        with _damaged():
            return self.loaded().staged(root, folder)

    def content_at(
        self, root: str, commit: str, parts: tuple[str, ...], top: tuple[str, ...] | None = None
    ) -> bytes | None:
        with _damaged():
            return self.loaded().content_at(root, commit, parts, top)

    def committed_since(self, root: str, baseline: str, folder: tuple[str, ...] = ()) -> list[Change]:
        with _damaged():
            return self.loaded().committed_since(root, baseline, folder)

    def log(self, root: str, limit: int, folder: tuple[str, ...] = ()) -> list[CommitInfo]:
        with _damaged():
            return self.loaded().log(root, limit, folder)

    def stage(
        self, root: str, files: list[tuple[tuple[str, ...], bytes | None]], folder: tuple[str, ...] = ()
    ) -> None:
        with _damaged():
            self.loaded().stage(root, files, folder)

    def commit(self, root: str, message: str, author: str, folder: tuple[str, ...] = ()) -> str:
        with _damaged():
            return self.loaded().commit(root, message, author, folder)
