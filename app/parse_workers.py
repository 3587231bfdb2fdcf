"""The reading and parsing of a whole build spread over processes of their own, one a processor: the
workers read, digest and parse the files (domain.ck3.content_index.read_batch) through a world of their own,
the same roots seen the same way as the builder's (the same descriptor-based file adapter and view, so no
path is read that the builder could not read), and the builder stores what they found: a build takes
about a share of the machine's processors each, more processors make it faster, and no file's bytes
travel between processes.

The workers run at a low priority (`nice` 10): while a build runs, every processor still goes first
to the server that answers calls, whose own work is short. Each worker is started fresh (`spawn`) and
ends at once when the builder that started it is gone, as the builder does with its server.
"""

import hashlib
import os
import threading
import time
from array import array
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path
from types import TracebackType
from typing import Final, Self

from adapters.local_files import LocalFiles
from app.collection import resumed
from domain.ck3.content_index import read_batch
from domain.ck3.definitions import LOCALISATION
from domain.world.adapter import WorldAdapter
from domain.world.view import WorldView
from ports.content_index import Parsed, Read

WATCH_SECONDS: Final = 1.0
"""How often a child process looks whether the process that started it is still there."""
NICE: Final = 10
"""The workers' niceness: a low priority, yet not so low that any other busy program stops a build."""


def processors() -> int:
    """The processors this process may run on."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


class Workers:
    """`count` processes that read and parse, each over the world of `roots` (root name -> folder) as
    `view` shows it, as a context manager that ends them."""

    def __init__(self, count: int, roots: dict[str, Path], view: WorldView) -> None:
        self._pool = ProcessPoolExecutor(
            max(1, count),
            mp_context=get_context("spawn"),
            initializer=_started,
            initargs=(os.getpid(), roots, view),
        )

        self._seen: dict[bytes, tuple[tuple[str, ...], tuple[int, ...]]] = {}

    def read(self, top: str, paths: list[str]) -> Callable[[], list[Read | None]]:
        """Hand `paths` below the source at `top` to a worker; the call returned waits for what it read
        (called in the order the batches were handed on: a batch's repeated keys and lines are those of
        one handed on before it)."""
        future = self._pool.submit(_read_all, top, paths)
        return lambda: [None if got is None else (got[0], self._opened(*got[1:])) for got in future.result()]

    def _opened(self, sent: "Packed | None", repeat: bytes) -> Parsed | None:
        """The content `sent`, its keys and lines those of an earlier content when they were left out."""
        if sent is None:
            return None
        if sent[3] is None:
            return unpacked(sent, self._seen[repeat])
        parsed = unpacked(sent)
        if repeat:
            self._seen[repeat] = parsed.defined[1], parsed.defined[2]
        return parsed

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)


def lowered() -> None:
    """Run this process (and what it starts) at niceness NICE at least."""
    os.nice(max(0, NICE - os.nice(0)))


_world: WorldAdapter | None = None
"""A worker's world, made once when it starts."""


def _started(builder: int, roots: dict[str, Path], view: WorldView) -> None:
    global _world  # noqa: PLW0603 - the one world of this worker process
    lowered()
    watch_parent(builder)
    resumed(started=True)  # the spawned worker imported the command line's module, which paused it
    _world = WorldAdapter(LocalFiles(roots), view)


REMEMBERED: Final = 600_000
"""Keys a worker remembers sending whole (and the builder keeps unpacked for it, so its memory is bounded
by the workers' count times this): the game's localisation is about 576,000 keys in 2,069 keysets; past
this, a worker sends each new keyset whole every time."""
_sent: set[bytes] = set()
"""The digests of the keys and lines of the localisation contents this worker sent whole, remembered."""
_remembered = 0
"""The keys of those contents."""


def _read_all(top: str, paths: list[str]) -> "list[tuple[str, Packed | None, bytes] | None]":
    if _world is None:
        raise RuntimeError("a worker is used before it started")
    return [
        None if read is None else (read[0], *_once(None if read[1] is None else packed(read[1])))
        for read in read_batch(_world, top, paths)
    ]


def _once(sent: "Packed | None") -> "tuple[Packed | None, bytes]":
    """`sent` and the digest of its keys and lines, which the builder keeps them under (b"": a content of
    another kind, or one past REMEMBERED); its keys and lines left out (keys None, lines b"") when this
    worker sent them already: the game's localisation repeats its keys line for line in each of its
    languages (2.56 million entries, 2,069 keysets of them), and what the builder has unpacked once it
    need not again."""
    global _remembered  # noqa: PLW0603 - this worker process's own count
    if sent is None or sent[0] != LOCALISATION or not isinstance(sent[3], str):
        return sent, b""
    digest = hashlib.blake2b(sent[3].encode(), digest_size=16)
    digest.update(sent[4])
    repeat = digest.digest()
    if repeat in _sent:
        return (*sent[:3], None, b"", *sent[5:]), repeat
    keys = sent[3].count(_SEPARATOR) + 1
    if _remembered + keys > REMEMBERED:
        return sent, b""
    _remembered += keys
    _sent.add(repeat)
    return sent, repeat


_SEPARATOR: Final = "\x1f"
"""Between the texts of a column sent as one text: whitespace, so in no key or word the parser reads
(a column whose texts hold it anyway is sent as it is)."""
Column = tuple[str, ...] | tuple[str, int] | str
Findings = tuple[tuple[str, int, str], ...]
Packed = tuple[str, bool, Column, Column | None, bytes, Column, Column, bytes, Findings]
"""A parsed content as it travels from a worker: each column of texts one text (or one text and how many
times it repeats), each column of lines the bytes of an array. Pickling a build's millions of short texts
one by one was a worker's seconds; these are a few large objects. Keys None (and no lines): those of an
earlier content the same worker sent."""


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


def unpacked(sent: Packed, repeated: tuple[tuple[str, ...], tuple[int, ...]] | None = None) -> Parsed:
    """The content `packed` sent, as it was; its keys and lines `repeated` when it was sent without them."""
    kind, replace, kinds, keys, lines, languages, words, places, findings = sent
    if keys is not None:
        repeated = (_texts(keys), tuple(array("q", lines)))
    elif repeated is None:
        raise ValueError("a content sent without its keys is opened by the Workers that read it")
    defined = (_texts(kinds), repeated[0], repeated[1], _texts(languages))
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
