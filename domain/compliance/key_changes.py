"""What a change does to the playset's keys, at close (SPEC §14, §15): the keys each changed CK3 file adds,
overrides and removes, judged against the content index.

- A key the file defines now and did not before is an override when a source before the file's mod in load
  order (the game, an earlier mod) defines it too: it needs no NST. Otherwise it is new to the playset.
- A key the file defined at open (a new file: that an earlier source's file at the same path
  defined, which it now replaces; a deleted file: every key it defined) and defines no more is
  removed. When no file the game still reads defines it and other
  files of the playset mention it, close is refused listing the mentions, unless a removal token declares
  it (`ck3_token removal`: key, kind, file).
"""

from collections.abc import Iterable
from typing import Final

from attrs import frozen

from domain.ck3 import content_index, definitions, key_queries
from domain.ck3.merged import Source
from domain.compliance.tokens import Removal
from domain.world.adapter import WorldAdapter
from ports.content_index import ContentIndex

MAX_MENTIONS: Final = 20
"""Mentions listed per removed key (all are counted)."""


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
    """Per file: keys added, overridden and removed; and the removals that break mentions."""

    adds: list[dict[str, object]]
    overrides: list[dict[str, object]]
    removes: list[dict[str, object]]
    blocked: list[dict[str, object]]

    def overriding(self) -> set[tuple[str, str]]:
        """(symbol name, address) of every override: close asks no NST for them."""
        return {(str(row["symbol"]), str(row["address"])) for row in self.overrides}

    def evidence(self) -> dict[str, object]:
        return {"adds": self.adds, "overrides": self.overrides, "removes": self.removes}


NOTHING: Final = KeyChanges([], [], [], [])


def assess(
    world: WorldAdapter, index: ContentIndex | None, files: Iterable[ChangedFile], removals: list[Removal]
) -> KeyChanges:
    """The key changes of `files` in the playset `world` shows. Raises PortError (the index)."""
    if index is None:
        return NOTHING
    found = content_index.sources_of(world)
    content_index.refresh(world, index, found, budget=content_index.INLINE)
    playset = key_queries.Playset(index, found)
    result = KeyChanges([], [], [], [])
    for changed in files:
        _assess_file(playset, changed, removals, result)
    return result


def _assess_file(
    playset: key_queries.Playset, changed: ChangedFile, removals: list[Removal], result: KeyChanges
) -> None:
    located = _locate(playset.found, changed.located)
    path = definitions.game_path(changed.parts)
    if located is None or path is None:
        return
    order, relative = located
    now = _keys(path, changed.now)
    if changed.before is not None:
        before = _keys(path, changed.before)
    else:  # a new file: what an earlier source's file at its path defined, it now hides
        before = _replaced(playset, order, relative)
    for kind, key in sorted(now - before):
        earlier = playset.index.defined(playset.folders[:order], key, kind) if order else []
        row: dict[str, object] = {"key": key, "kind": kind, "address": changed.address}
        row["symbol"] = _symbol(kind, key)
        (result.overrides if earlier else result.adds).append(row)
    for kind, key in sorted(before - now):
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
