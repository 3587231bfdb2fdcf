"""What a change does to the playset's keys, at close (SPEC §14, §15): the keys each changed CK3 file adds,
overrides and removes, judged against the content index once it is complete for them.

- A key the file defines now and did not at open (a new file: every key it defines) is an override when a
  source before the file's mod in load order (the game, an earlier mod) defines it too, in any file, the
  one the file replaces at its path included: it needs no NST. Otherwise it is new to the playset.
- A key the file defined at open (a new file: that an earlier source's file at the same path
  defined, which it now replaces; a deleted file: every key it defined) and defines no more is
  removed. When no file the game still reads defines it and other
  files of the playset mention it, close is refused listing the mentions, unless a removal token declares
  it (`ck3_token removal`: key, kind, file).
- Nothing is judged on a partial index: close indexes what the keys need itself (at most CLOSE files),
  and with more still missing the result says so and decides nothing.
"""

from collections.abc import Iterable
from typing import Final

from attrs import field, frozen

from domain.ck3 import content_index, definitions, key_queries
from domain.ck3.merged import Source
from domain.compliance.tokens import Removal
from domain.world.adapter import WorldAdapter
from ports.content_index import ContentIndex

MAX_MENTIONS: Final = 20
"""Mentions listed per removed key (all are counted)."""
CLOSE: Final = 500
"""Files close indexes itself within its call; with more not indexed yet it decides nothing and says to
call again (the server's own build goes on meanwhile, and what close indexed stays indexed)."""


@frozen
class ChangedFile:
    """One changed CK3 file: its address as the change names it, the same spelled from its root (as the
    index and removal tokens name files), root-relative parts, and its text now and at open (None: new)."""

    address: str
    located: str
    parts: tuple[str, ...]
    now: str
    before: str | None


@frozen
class KeyChanges:
    """Per file: keys added, overridden and removed; the removals that break mentions; and the state of
    the index they were judged on (`index["state"]`: "complete", "not needed" when no changed file lies in
    a source of the playset, "none" where the server keeps no index; "incomplete" or "unavailable" when
    nothing could be judged)."""

    adds: list[dict[str, object]]
    overrides: list[dict[str, object]]
    removes: list[dict[str, object]]
    blocked: list[dict[str, object]]
    index: dict[str, object] = field(factory=lambda: {"state": "none"})

    @property
    def decided(self) -> bool:
        """Whether the keys were judged on an index complete for what they need (or need none)."""
        return self.index["state"] not in {INCOMPLETE, UNAVAILABLE}

    def overriding(self) -> set[tuple[str, str]]:
        """(symbol name, address) of every override: close asks no NST for them."""
        return {(str(row["symbol"]), str(row["address"])) for row in self.overrides}

    def evidence(self) -> dict[str, object]:
        return {"adds": self.adds, "overrides": self.overrides, "removes": self.removes}


INCOMPLETE: Final = "incomplete"
UNAVAILABLE: Final = "unavailable"
NOTHING: Final = KeyChanges([], [], [], [])
"""No index is kept: no override is excused and no removal judged."""
NOT_READ: Final = KeyChanges([], [], [], [], {"state": UNAVAILABLE})
"""The index could not be read: nothing is decided on it."""


@frozen
class _Place:
    """Where a changed file lies in the playset: its source's place in load order, its path below that
    source, and its game-relative path."""

    order: int
    relative: str
    path: tuple[str, ...]


@frozen
class _Keys:
    """One changed file's keys: now, at open (a new file: none), and those of the earlier sources' files
    at its path, which a new file replaces."""

    changed: ChangedFile
    place: _Place
    now: set[tuple[str, str]]
    at_open: set[tuple[str, str]]
    replaced: set[tuple[str, str]]

    @property
    def gone(self) -> set[tuple[str, str]]:
        """What the file defined before (a new file: what the file it replaces defined) and no more."""
        return (self.at_open if self.changed.before is not None else self.replaced) - self.now


def assess(  # noqa: PLR0913 - the world, the index, the files, the tokens, and how much to index
    world: WorldAdapter,
    index: ContentIndex | None,
    files: Iterable[ChangedFile],
    removals: list[Removal],
    *,
    budget: int = CLOSE,
    everywhere: bool = False,
) -> KeyChanges:
    """The key changes of `files` in the playset `world` shows, judged on the index once it is complete
    for them: the folders of their keys' kinds in every source, and every folder the index reads when a
    key is removed (its mentions may lie anywhere) or `everywhere` is asked (close's reference checks look up
    keys of every kind and their localisation). At most `budget` files are indexed here; with more
    missing, the result decides nothing (state "incomplete"). Raises PortError (the index)."""
    if index is None:
        return NOTHING
    found = content_index.sources_of(world)
    placed = [(changed, at) for changed in files if (at := _place(found, changed)) is not None]
    if not placed:
        return KeyChanges([], [], [], [], {"state": "not needed"})
    done = content_index.refresh(world, index, found, _folders(placed), budget=budget)
    if done.pending:
        return KeyChanges([], [], [], [], _state(INCOMPLETE, done))
    playset = key_queries.Playset(index, found)
    judged = [_judged(playset, changed, at) for changed, at in placed]
    if everywhere or any(_undeclared(item, removals) for item in judged):  # mentions may lie anywhere
        more = content_index.refresh(world, index, found, budget=max(0, budget - done.parsed))
        done = content_index.Progress(more.seen, done.parsed + more.parsed, done.removed, more.pending)
        if done.pending:
            return KeyChanges([], [], [], [], _state(INCOMPLETE, done))
    result = KeyChanges([], [], [], [], _state("complete", done))
    playset = key_queries.Playset(index, found)
    for item in judged:
        _assess_file(playset, item, removals, result)
    return result


def _state(state: str, done: content_index.Progress) -> dict[str, object]:
    """The index state a close decided on (or could not), for its evidence."""
    return {"state": state, "files": done.seen, "indexed_by_close": done.parsed, "pending": done.pending}


def _place(found: list[Source], changed: ChangedFile) -> _Place | None:
    located = _locate(found, changed.located)
    path = definitions.game_path(changed.parts)
    if located is None or path is None:
        return None
    return _Place(located[0], located[1], path)


def _folders(placed: list[tuple[ChangedFile, _Place]]) -> tuple[str, ...]:
    """The folders below each source the keys of `placed` need: each file's own (the files it replaces
    lie there) and those where definitions of its keys' kinds lie (overrides of them)."""
    wanted: set[str] = set()
    for changed, at in placed:
        parent = at.relative.rpartition("/")[0]
        wanted |= {parent} if parent else set()
        for text in (changed.now, changed.before or ""):
            wanted |= {folder for kind, _ in _keys(at.path, text) for folder in content_index.scope_of(kind)}
    return tuple(
        sorted(f for f in wanted if not any(f.startswith(other + "/") for other in wanted if other != f))
    )


def _judged(playset: key_queries.Playset, changed: ChangedFile, at: _Place) -> _Keys:
    at_open = _keys(at.path, changed.before) if changed.before is not None else set()
    replaced = _replaced(playset, at.order, at.relative) if changed.before is None else set()
    return _Keys(changed, at, _keys(at.path, changed.now), at_open, replaced)


def _undeclared(item: _Keys, removals: list[Removal]) -> bool:
    """Whether `item` removes a key no removal token declares (its mentions must then be looked for)."""
    return any(Removal(key, kind, item.changed.located) not in removals for kind, key in item.gone)


def _assess_file(
    playset: key_queries.Playset, item: _Keys, removals: list[Removal], result: KeyChanges
) -> None:
    changed, order, relative = item.changed, item.place.order, item.place.relative
    # every key the file has now and had not at open: a copy of the file it replaces at its path
    # overrides that file's keys, as an edit overrides what an earlier source defines elsewhere
    for kind, key in sorted(item.now - item.at_open):
        earlier = playset.index.defined(playset.folders[:order], key, kind) if order else []
        row: dict[str, object] = {"key": key, "kind": kind, "address": changed.address}
        row["symbol"] = _symbol(kind, key)
        (result.overrides if earlier else result.adds).append(row)
    for kind, key in sorted(item.gone):
        gone: dict[str, object] = {"key": key, "kind": kind, "address": changed.address}
        result.removes.append(gone)
        if Removal(key, kind, changed.located) in removals or _still_defined(
            playset, key, kind, order, relative
        ):
            continue
        mentions = [
            {"source": playset.found[playset.order[source]].label, "path": at, "line": line}
            for source, at, line in playset.index.mentions(playset.folders, key)
            if not (source == playset.folders[order] and at.casefold() == relative.casefold())
        ]
        if mentions:
            result.blocked.append({**gone, "mentions": mentions[:MAX_MENTIONS], "count": len(mentions)})


def _locate(found: list[Source], address: str) -> tuple[int, str] | None:
    """The index of the source whose folder holds `address` (root form), and the path below it."""
    for order, source in enumerate(found):
        prefix = source.folder.rstrip("/") + "/"
        if address.startswith(prefix):
            return order, address[len(prefix) :]
    return None


def _keys(path: tuple[str, ...], text: str) -> set[tuple[str, str]]:
    content = definitions.read(path, text)
    return {(d.kind, d.key) for d in content.definitions} if content else set()


def _replaced(playset: key_queries.Playset, order: int, relative: str) -> set[tuple[str, str]]:
    """The keys the files at the same path of earlier sources define: the changed file replaces them."""
    parent = relative.rpartition("/")[0]
    keys: set[tuple[str, str]] = set()
    for earlier in range(order):
        folder = playset.folders[earlier]
        for held in playset.index.files(folder, parent).values():
            if held.path.casefold() == relative.casefold():
                keys |= {(d.kind, d.key) for d in playset.index.defined_in(folder, held.path)}
    return keys


def _still_defined(playset: key_queries.Playset, key: str, kind: str, order: int, relative: str) -> bool:
    """Whether a file the game still reads, other than the changed one, defines the key."""
    for defined in playset.index.defined(playset.folders, key, kind):
        same = defined.source == playset.folders[order] and defined.path.casefold() == relative.casefold()
        if not same and playset.locate(defined).read:
            return True
    return False


def _symbol(kind: str, key: str) -> str:
    """The name close's semantic validator gives the key."""
    return f"namespace:{key}" if kind == definitions.NAMESPACE else key
