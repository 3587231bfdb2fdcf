"""The parsing of a whole build spread over processes of their own, one a processor: the builder reads
and stores, the workers parse (domain.ck3.content_index.parse_bytes), so a build takes about a share of
the machine's processors each and more processors make it faster.

The workers run at a low priority (`nice` 10): while a build runs, every processor still goes first
to the server that answers calls, whose own work is short. Each worker is started fresh (`spawn`) and
ends at once when the builder that started it is gone, as the builder does with its server.
"""

import os
import threading
import time
from array import array
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from types import TracebackType
from typing import Final, Self

from app.collection import resumed
from domain.ck3.content_index import parse_bytes
from ports.content_index import Parsed

WATCH_SECONDS: Final = 1.0
"""How often a child process looks whether the process that started it is still there."""
NICE: Final = 10
"""The workers' niceness: a low priority, yet not so low that any other busy program stops a build."""


def processors() -> int:
    """The processors this process may run on."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


class Workers:
    """`count` parsing processes, as a context manager that ends them."""

    def __init__(self, count: int) -> None:
        self._pool = ProcessPoolExecutor(
            max(1, count), mp_context=get_context("spawn"), initializer=_started, initargs=(os.getpid(),)
        )

    def submit(self, files: list[tuple[tuple[str, ...], bytes]]) -> Callable[[], list[Parsed | None]]:
        """Hand `files` to a worker; the call returned waits for their results."""
        future = self._pool.submit(_parse_all, files)
        return lambda: [None if packed is None else unpacked(packed) for packed in future.result()]

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)


def lowered() -> None:
    """Run this process (and what it starts) at niceness NICE at least."""
    os.nice(max(0, NICE - os.nice(0)))


def _started(builder: int) -> None:
    lowered()
    watch_parent(builder)
    resumed(started=True)  # the spawned worker imported the command line's module, which paused it


def _parse_all(files: list[tuple[tuple[str, ...], bytes]]) -> "list[Packed | None]":
    return [None if (parsed := parse_bytes(path, data)) is None else packed(parsed) for path, data in files]


_SEPARATOR: Final = "\x1f"
"""Between the texts of a column sent as one text: whitespace, so in no key or word the parser reads
(a column whose texts hold it anyway is sent as it is)."""
Column = tuple[str, ...] | tuple[str, int] | str
Packed = tuple[str, bool, Column, Column, bytes, Column, Column, bytes, tuple[tuple[str, int, str], ...]]
"""A parsed content as it travels from a worker: each column of texts one text (or one text and how many
times it repeats), each column of lines the bytes of an array. Pickling a build's millions of short texts
one by one was a worker's seconds; these are a few large objects."""


def packed(parsed: Parsed) -> Packed:
    """`parsed` in the form it travels in."""
    kinds, keys, lines, languages = parsed.defined
    words, places = parsed.mentioned
    return (
        parsed.kind,
        parsed.replace,
        _column(kinds),
        _column(keys),
        array("q", lines).tobytes(),
        _column(languages),
        _column(words),
        array("q", places).tobytes(),
        parsed.findings,
    )


def unpacked(sent: Packed) -> Parsed:
    """The content `packed` sent, as it was."""
    kind, replace, kinds, keys, lines, languages, words, places, findings = sent
    defined = (_texts(kinds), _texts(keys), tuple(array("q", lines)), _texts(languages))
    return Parsed(kind, replace, defined, (_texts(words), tuple(array("q", places))), findings)


def _column(texts: tuple[str, ...]) -> Column:
    if not texts:
        return ()
    if texts.count(texts[0]) == len(texts):
        return (texts[0], len(texts))
    joined = _SEPARATOR.join(texts)
    return joined if joined.count(_SEPARATOR) == len(texts) - 1 else texts


def _texts(column: Column) -> tuple[str, ...]:
    if isinstance(column, str):
        return tuple(column.split(_SEPARATOR))
    if len(column) == 2 and isinstance(column[1], int):  # noqa: PLR2004 - a text and its count
        return (str(column[0]),) * column[1]
    return column


def watch_parent(parent: int) -> None:
    """End this process as soon as the server that started it (process `parent`, named by the server
    itself: one killed before this child ran is gone already) is gone; killed, it could not end us."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(WATCH_SECONDS)
        os._exit(0)

    threading.Thread(target=watch, name="ck3raven-index-watch", daemon=True).start()
