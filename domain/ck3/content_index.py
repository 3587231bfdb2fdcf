"""Keeping the content index true to the playset's files (SPEC §15): every file the index reads (below
`common/`, `events/`, `gui/`, `localization/` of the game and of each mod) is compared by stat with what
the index holds; a new or changed file is read, digested and parsed (in this process, not when its
content is in the index already; in a whole build by the parsing's processes, whose contents already in
the index are dropped), and each content is stored once. The server does this at start and after a
playset switch (a whole build), after a governed write (that one file), and before each query (the
folders the query concerns): an edit made outside the server shows in the next answer. A query parses at
most INLINE files itself and counts the rest as not indexed.
"""

import hashlib
from collections import deque
from collections.abc import Callable, Iterable
from functools import partial
from typing import Final

from attrs import frozen

from domain.ck3 import definitions, descriptors, fast_pass, merged
from domain.ck3 import parse_findings as pf
from domain.ck3.merged import Source, below
from domain.ck3.rechecks import Rechecks
from domain.vocabulary import RootCategory
from domain.world.adapter import WorldAdapter
from ports.content_index import ContentIndex, IndexedFile, Parsed, Parsing, Read
from ports.errors import PortError

READ_LIMIT: Final = 32 * 1024 * 1024
INLINE: Final = 200
"""Files a query indexes itself before it answers; the rest it counts as not indexed yet."""
BATCH: Final = 200
"""Files handed to the parsing at once."""
AHEAD: Final = 32
"""Batches handed to the parsing ahead of those being stored. A batch in flight holds its paths and, once
parsed, what was found in them (no file's bytes): deep enough that the parsing runs on while the builder
stores the slowest batches (a game's script files), so neither waits for the other for long."""
STORED: Final = 3
"""Batches stored per transaction: each stays short (a fraction of a second of a build), and a build
commits a third as often (each commit writes every page it changed)."""
_HOME: Final = RootCategory.ROOT_GAME


@frozen
class Progress:
    """What a refresh did: files seen, contents parsed, files dropped, and files left not indexed."""

    seen: int = 0
    parsed: int = 0
    removed: int = 0
    pending: int = 0

    def __add__(self, other: "Progress") -> "Progress":
        return Progress(
            self.seen + other.seen,
            self.parsed + other.parsed,
            self.removed + other.removed,
            self.pending + other.pending,
        )


def sources_of(world: WorldAdapter) -> list[Source]:
    """The playset's sources (vanilla, then its mods in load order) with their replace_paths."""
    return merged.sources(world, lambda folder: descriptors.read(world, _HOME, f"{folder}/descriptor.mod"))


def parse_bytes(path: tuple[str, ...], data: bytes, *, fast: bool = True) -> Parsed | None:
    """What the file at game-relative `path` holds, for the index (None: a kind the index does not read).
    Text that is not UTF-8 is a finding, never an error. With `fast`, a plain localisation file is read by
    the fast pass, which finds what the parser would (domain.ck3.fast_pass)."""
    folded = tuple(part.casefold() for part in path)
    kind = definitions.file_kind(folded)
    if kind is None:
        return None
    if b"\x00" in data[:8192] or data.startswith((b"\xff\xfe", b"\xfe\xff")):
        finding = (pf.NOT_TEXT, 1, "binary or UTF-16: the game reads UTF-8 only")
        return Parsed.of(kind, replace=False, definitions=(), mentions=(), findings=(finding,))
    text = data.decode("utf-8", errors="replace")
    findings: list[tuple[str, int, str]] = []
    if "\ufffd" in text and "\ufffd".encode() not in data:
        line = text[: text.index("\ufffd")].count("\n") + 1
        findings.append((pf.NOT_TEXT, line, "bytes that are not UTF-8; read as replacement characters"))
    quick = fast_pass.localisation_entries(text) if fast and kind == definitions.LOCALISATION else None
    if quick is not None:
        language, keys, lines = quick
        defined = ((definitions.LOCALISATION,) * len(keys), keys, lines, (language,) * len(keys))
        return Parsed(kind, "replace" in folded[1:-1], defined, ((), ()), tuple(findings))
    content = definitions.read(folded, text)
    if content is None:
        return None
    findings += [(f.code, f.line, f.detail) for f in content.findings]
    return Parsed.of(
        content.kind,
        content.replace,
        ((d.kind, d.key, d.line, d.language) for d in content.definitions),
        content.mentions.items(),
        tuple(findings),
    )


def scope_of(kind: str | None) -> tuple[str, ...]:
    """The folders (below a source) where definitions of `kind` lie; every folder the index reads for None."""
    if kind is None:
        return tuple(sorted(definitions.TOPS))
    if kind in {definitions.EVENT, definitions.NAMESPACE, "scripted_trigger", "scripted_effect"}:
        return ("events", *(("common/" + kind + "s",) if kind.startswith("scripted") else ()))
    if kind.startswith("gui_"):
        return ("gui",)
    if kind == definitions.LOCALISATION:
        return ("localization",)
    return (f"common/{kind}",)


def read_batch(
    world: WorldAdapter, top: str, paths: list[str], known: Callable[[Iterable[str]], set[str]] | None = None
) -> list[Read | None]:
    """Each file at `paths` below the source at `top`: its digest and what parse_bytes finds in it (None
    for a content `known` holds: not parsed again), or None when it is no longer a file or cannot be read."""
    located = [
        (at, world.ref_or_none(below(top, tuple(path.split("/"))), _HOME)) for at, path in enumerate(paths)
    ]
    refs = [(at, ref) for at, ref in located if ref is not None and ref.kind == "file"]
    datas = world.read_files([ref for _, ref in refs], READ_LIMIT) if refs else []
    digested = [
        (at, data, hashlib.sha256(data).hexdigest())
        for (at, _), data in zip(refs, datas, strict=True)
        if isinstance(data, bytes)
    ]
    held = known(digest for _, _, digest in digested) if known is not None else set()
    found: list[Read | None] = [None] * len(paths)
    for at, data, digest in digested:
        parsed = None if digest in held else parse_bytes(tuple(paths[at].split("/")), data)
        found[at] = (digest, parsed)
    return found


class InProcess:
    """Reading and parsing in the calling process, when the results are asked for; a content the index
    holds already is digested, not parsed again."""

    def __init__(self, world: WorldAdapter, index: ContentIndex | None = None) -> None:
        self._world = world
        self._known = index.known if index is not None else None

    def read(self, top: str, paths: list[str]) -> Callable[[], list[Read | None]]:
        """`paths` read by read_batch, on demand."""
        return lambda: read_batch(self._world, top, paths, self._known)


def refresh(  # noqa: PLR0913 - the world, the index, the sources, where, and how much
    world: WorldAdapter,
    index: ContentIndex,
    found: list[Source],
    folders: tuple[str, ...] = tuple(sorted(definitions.TOPS)),
    *,
    budget: int | None = None,
    stop: Callable[[], bool] | None = None,
    parsing: Parsing | None = None,
    rechecks: Rechecks | None = None,
) -> Progress:
    """Bring the index up to date with the files below `folders` of every source: at most `budget` files
    parsed (None: all), the rest counted as pending, parsed by `parsing` (None: in this process). With
    `rechecks`, a folder in which nothing changed since its last complete re-check is not looked at
    again. Raises PortError only for the index itself."""
    total = Progress()
    left = budget
    version = index.version() if rechecks is not None else 0
    # with no budget, the batches of one folder still in flight at its end are stored as the next
    # folder's are handed to the parsing: neither side waits for the other at a folder's end
    flight = _Flight(index) if budget is None else None
    for source in found:
        for folder in folders:
            if stop is not None and stop():
                return total + _landed(flight)
            generation = _generation(world, rechecks, source.folder, folder)
            if rechecks is not None and rechecks.unchanged(source.folder, folder, generation, version):
                continue
            complete = None
            if rechecks is not None:
                complete = partial(rechecks.complete, source.folder, folder, generation, version)
            done = _refresh_folder(
                world,
                index,
                source.folder,
                folder,
                budget=left,
                parsing=parsing or InProcess(world, index),
                flight=flight,
                stored=complete,
            )
            total += done
            if left is not None:
                left = max(0, left - done.parsed)
    return total + _landed(flight)


def _landed(flight: "_Flight | None") -> Progress:
    """What storing every batch still in `flight` parsed."""
    return Progress(parsed=flight.land()) if flight is not None else Progress()


def _generation(world: WorldAdapter, rechecks: Rechecks | None, top: str, folder: str) -> int | None:
    """The generation of `folder` below the source at `top` (None: unknown, or no such folder)."""
    if rechecks is None:
        return None
    ref = world.ref_or_none(below(top, tuple(folder.split("/"))), _HOME)
    if ref is None or ref.kind != "dir":
        return None
    return rechecks.generation(world.location_of(ref))


def _refresh_folder(  # noqa: PLR0913 - the world, the index, where, how much, who parses, and after
    world: WorldAdapter,
    index: ContentIndex,
    top: str,
    folder: str,
    *,
    budget: int | None,
    parsing: Parsing,
    flight: "_Flight | None" = None,
    stored: Callable[[], None] | None = None,
) -> Progress:
    """Bring the index up to date with the files below `folder` of the source at `top` (its folder: all
    that re-indexing asks of a source, so no descriptor is read for it). Batches are handed to `parsing`,
    which reads and parses them, AHEAD of those stored, STORED of them in a transaction; `stored` is
    called once every file of the folder is stored, unless some are left pending. With `flight`, the
    folder's last batches may stay in it, stored as later folders' batches are handed on (their contents
    counted by it)."""
    now = _surveyed(world, top, folder)
    held = index.files(top, folder)
    changed = [path for path, (size, mtime) in now.items() if _stale(held.get(path), size, mtime)]
    gone = [path for path in held if path not in now]
    pending = 0
    if budget is not None and len(changed) > budget:
        pending = len(changed) - budget
        changed = changed[:budget]
    mine = flight or _Flight(index)
    before = mine.parsed
    last = range(0, max(len(changed), 1), BATCH)[-1]
    for start in range(0, max(len(changed), 1), BATCH):
        paths = changed[start : start + BATCH]
        done = stored if start == last and not pending else None
        mine.add(_Batch(top, paths, now, parsing.read(top, paths), gone if start == 0 else [], done))
    if flight is None:
        mine.land()
    return Progress(len(now), mine.parsed - before, len(gone), pending)


@frozen
class _Batch:
    """A batch in flight: its source, the paths handed to the parsing with their stats, the call giving
    what was read of them, the paths of its folder gone from the source, and what to call once it is
    stored."""

    top: str
    paths: list[str]
    stats: dict[str, tuple[int, int]]
    results: Callable[[], list[Read | None]]
    gone: list[str]
    stored: Callable[[], None] | None


class _Flight:
    """The batches handed to the parsing and not stored yet, in order: STORED of them (of one source)
    are stored in one transaction once AHEAD more are in flight. `stored` holds every content handed to
    the index: none is stored twice; `parsed` counts the contents new to the index."""

    def __init__(self, index: ContentIndex) -> None:
        self._index = index
        self._batches: deque[_Batch] = deque()
        self.stored: set[str] = set()
        self.parsed = 0

    def add(self, batch: _Batch) -> None:
        self._batches.append(batch)
        if len(self._batches) >= AHEAD + STORED:
            self._store()

    def land(self) -> int:
        """Store every batch in flight; how many contents that stored."""
        before = self.parsed
        while self._batches:
            self._store()
        return self.parsed - before

    def _store(self) -> None:
        """Store the next batches (up to STORED, of one source) in one transaction, then call their
        `stored`: their file rows set, the contents parsed for them stored, the gone paths dropped."""
        top = self._batches[0].top
        group: list[_Batch] = []
        while self._batches and len(group) < STORED and self._batches[0].top == top:
            group.append(self._batches.popleft())
        rows: list[IndexedFile] = []
        contents: dict[str, Parsed] = {}
        gone: list[str] = []
        for batch in group:
            gone += batch.gone
            rows += self._read(batch, contents)
        for digest in self._index.known(contents):
            del contents[digest]
        self.stored.update(contents)
        self._index.update(top, rows, contents, gone)
        self.parsed += len(contents)
        for batch in group:
            if batch.stored is not None:
                batch.stored()

    def _read(self, batch: _Batch, contents: dict[str, Parsed]) -> list[IndexedFile]:
        """The rows of the files `batch` read; the contents they hold not stored yet added to `contents`."""
        rows: list[IndexedFile] = []
        for path, read in zip(batch.paths, batch.results(), strict=True):
            if read is None:
                continue
            digest, parsed = read
            size, mtime = batch.stats[path]
            rows.append(IndexedFile(batch.top, path, size, mtime, digest))
            if parsed is not None and digest not in self.stored:
                contents[digest] = parsed
        return rows


def _stale(held: IndexedFile | None, size: int, mtime_ns: int) -> bool:
    return held is None or held.size != size or held.mtime_ns != mtime_ns


def _surveyed(world: WorldAdapter, top: str, folder: str) -> dict[str, tuple[int, int]]:
    """path below the source at `top` -> (size, mtime_ns) of every file the index reads below `folder`."""
    ref = world.ref_or_none(below(top, tuple(folder.split("/"))), _HOME)
    if ref is None or ref.kind != "dir":
        return {}
    base = len(world.location_of(ref).parts) - len(folder.split("/"))
    found: dict[str, tuple[int, int]] = {}
    try:
        for parts, stat in world.survey(ref, lambda parts, _: parts[-1] == ".git"):
            if stat.kind != "file":
                continue
            path = "/".join(parts[base:])  # case-folded whole: no name folds into a "/"
            if definitions.file_kind(tuple(path.casefold().split("/"))):
                found[path] = (stat.size, stat.mtime_ns)
    except PortError:
        return found
    return found


def after_write(world: WorldAdapter, index: ContentIndex, address: str) -> bool:
    """Re-index the one file at `address` a governed write changed (or deleted), when it lies in a
    folder the index reads of a source of the playset; whether it did. The sources are known by their
    folders alone: no mod's descriptor is read for it, so a write reads no more with 500 mods than with 5."""
    for top in merged.folders(world):
        inside = _indexed_folder(top, address)
        if inside is not None:
            _refresh_folder(world, index, top, inside, budget=None, parsing=InProcess(world, index))
            return True
    return False


def _indexed_folder(folder: str, address: str) -> str | None:
    """The folder below the source at `folder` holding the file at `address`, when the index reads it."""
    prefix = folder.rstrip("/") + "/"
    if not address.startswith(prefix):
        return None
    parts = address[len(prefix) :].split("/")
    return "/".join(parts[:-1]) if len(parts) > 1 and parts[0].casefold() in definitions.TOPS else None
