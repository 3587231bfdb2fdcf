"""A repository's own ignore rules (its `.gitignore` files and `.git/info/exclude`), read as carefully as
any file the server reads, and matched with dulwich's ignore support.

- Each ignore file is opened without following a link and without blocking (a FIFO never hangs a
  listing); only a regular file of at most IGNORE_LIMIT bytes is read; anything else ignores nothing.
- Nothing outside the repository is read: not the user's global excludes file, not a `core.excludesFile`
  a repository's config names (a downloaded mod's `.git/config` is not to be trusted), and the config is
  not read at all (matching is case-sensitive, git's default on Linux).
- A pattern with more than MAX_STARS `*` (after runs of stars are merged) is left out: such patterns can
  make a regular-expression match slow, and leaving one out can only show more, never hide.
- A rule that fails to answer answers "not ignored".
"""

import io
import os
import re
import stat
from pathlib import Path
from typing import Final

from dulwich.ignore import IgnoreFilter, IgnoreFilterManager, read_ignore_patterns

IGNORE_LIMIT: Final = 256 * 1024
MAX_PATTERNS: Final = 2_000
MAX_STARS: Final = 2
_FLAGS: Final = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
_STARS: Final = re.compile(rb"\*+")


class SafeIgnores(IgnoreFilterManager):
    """The ignore rules of the repository whose top is `top` and whose own folder is `control` (the
    `.git` folder there unless named: a submodule's lies in its parent's `.git/modules`)."""

    def __init__(self, top: str, control: str | None = None) -> None:
        exclude = _filter(str(Path(control or Path(top) / ".git") / "info" / "exclude"))
        super().__init__(top, [exclude] if exclude is not None else [], ignorecase=False)

    def _load_path(self, path: str) -> IgnoreFilter | None:
        if path not in self._path_filters:
            self._path_filters[path] = _filter(str(Path(self._top_path) / path / ".gitignore"))
        return self._path_filters[path]

    def ignored(self, path: str) -> bool:
        """Whether the repository path `path` (a folder's ending in `/`) is ignored; False if unsure."""
        try:
            return bool(self.is_ignored(path))
        except (OSError, ValueError, re.error):
            return False


def _filter(path: str) -> IgnoreFilter | None:
    data = _read(path)
    if data is None:
        return None
    patterns = [p for p in read_ignore_patterns(io.BytesIO(data)) if len(_STARS.findall(p)) <= MAX_STARS]
    return IgnoreFilter(patterns[:MAX_PATTERNS], ignorecase=False, path=path)


def _read(path: str) -> bytes | None:
    """The bytes of a regular file of at most IGNORE_LIMIT bytes at `path`, else None."""
    try:
        fd = os.open(path, _FLAGS)
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > IGNORE_LIMIT:
            return None
        return os.read(fd, IGNORE_LIMIT)
    except OSError:
        return None
    finally:
        os.close(fd)
