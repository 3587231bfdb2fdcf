"""What mods override, recursively: below a game-relative folder, every file a mod provides that another
source of the playset provides too, and every earlier file its replace_path hides; one row per path, by
the rules of the merged view (domain.ck3.merged).

Rows are sorted by path and served in pages that stay within a reply's budget: a page ends at `limit`
rows or at PAGE_BYTES of row text, whichever comes first, and the next page starts after the last path.
"""

from typing import Final

from attrs import frozen

from domain.ck3.merged import Source, below, files_in, hider
from domain.replies import budget
from domain.replies.frozen import FrozenMap
from domain.vocabulary import RootCategory
from domain.world.adapter import WorldAdapter
from ports.errors import PortError

PAGE: Final = 100
"""Rows in a page when the call gives no `limit`."""
MAX_PAGE: Final = budget.MOST_ROWS
PAGE_BYTES: Final = 20 * 1024
"""About how much row text one page carries at most: well inside the 32 KiB reply budget (SPEC §16)."""
ROW_OVERHEAD: Final = 90
"""The JSON a row adds to its strings (keys, quotes, brackets)."""
MAX_DEPTH: Final = 64
METADATA: Final = frozenset({("descriptor.mod",), ("thumbnail.png",)})
"""Files at a mod folder's top that describe the mod to the launcher and Steam; the game loads none."""


@frozen
class Row:
    """One path: the sources that provide it in load order (label, address), and those whose file a
    replace_path hid (label, the hiding mod's label)."""

    path: tuple[str, ...]
    providers: tuple[tuple[str, str], ...]
    hidden: tuple[tuple[str, str], ...]

    @property
    def text(self) -> str:
        """The game-relative path, slash-separated."""
        return "/".join(self.path)

    def data(self) -> FrozenMap:
        """The row as a reply carries it: path, sources, the winner's address (None: every copy is
        hidden), and what was hidden by whom."""
        gone = {label for label, _ in self.hidden}
        live = [address for label, address in self.providers if label not in gone]
        return FrozenMap(
            path=self.text,
            sources=tuple(label for label, _ in self.providers),
            winner=live[-1] if live else None,
            hidden=tuple(FrozenMap(source=label, by=by) for label, by in self.hidden),
        )

    def size(self) -> int:
        """About how many bytes the row takes in a reply."""
        strings = [self.text, *(label + address for label, address in self.providers)]
        return ROW_OVERHEAD + sum(map(len, strings)) + sum(len(a) + len(b) + 30 for a, b in self.hidden)


def rows(
    world: WorldAdapter,
    home: RootCategory,
    found: list[Source],
    chosen: frozenset[int],
    under: tuple[str, ...],
) -> list[Row]:
    """Every overriding or hiding path below `under` that involves one of the `chosen` sources (indexes
    into `found`), sorted by path."""
    by_parent: dict[tuple[str, ...], set[str]] = {}
    for path in _candidates(world, home, found, chosen, under):
        by_parent.setdefault(path[:-1], set()).add(path[-1])
    found_rows: list[Row] = []
    for parent, names in by_parent.items():
        listings = [dict(files_in(world, home, source, parent)) for source in found]
        hiders = [hider(found, index, parent) for index in range(len(found))]
        for name in names:
            providers = [index for index, listing in enumerate(listings) if name in listing]
            row = Row(
                (*parent, name),
                tuple((found[i].label, listings[i][name]) for i in providers),
                tuple((found[i].label, by.label) for i in providers if (by := hiders[i]) is not None),
            )
            if _involves(found, chosen, providers, parent):
                found_rows.append(row)
    return sorted(found_rows, key=lambda row: row.path)


def page(found_rows: list[Row], after: str | None, limit: int) -> tuple[list[Row], str | None]:
    """The rows after the path `after`, up to `limit` of them and PAGE_BYTES of text (at least one), and
    the cursor of the next page (None: this is the last)."""
    start = [row for row in found_rows if after is None or row.text > after]
    taken: list[Row] = []
    used = 0
    for row in start:
        used += row.size()
        if taken and (len(taken) == limit or used > PAGE_BYTES):
            return taken, taken[-1].text
        taken.append(row)
    return taken, None


def _candidates(
    world: WorldAdapter,
    home: RootCategory,
    found: list[Source],
    chosen: frozenset[int],
    under: tuple[str, ...],
) -> set[tuple[str, ...]]:
    """Paths that may override or be hidden: every file of a chosen source below `under`, and the files
    of earlier sources directly in a folder a chosen source's replace_path names."""
    paths: set[tuple[str, ...]] = set()
    for index in sorted(chosen):
        paths |= _files_below(world, home, found[index], under)
        for named in found[index].replaces:
            parent = tuple(named.split("/"))
            if parent[: len(under)] == under:
                for earlier in found[:index]:
                    paths |= {(*parent, name) for name, _ in files_in(world, home, earlier, parent)}
    return paths


def _files_below(
    world: WorldAdapter, home: RootCategory, source: Source, under: tuple[str, ...]
) -> set[tuple[str, ...]]:
    """The game-relative path of every file of `source` below `under`, at any depth (not in .git, nor the
    mod's own METADATA)."""
    ref = world.ref_or_none(below(source.folder, under), home)
    if ref is None or ref.kind != "dir":
        return set()
    walk = world.walk(ref, MAX_DEPTH, lambda parts, _: parts[-1] == ".git")
    try:
        paths = {(*under, *found.parts) for found in walk if found.kind == "file"}
    except PortError:
        return set()
    finally:
        walk.close()
    return paths - METADATA


def _involves(
    found: list[Source], chosen: frozenset[int], providers: list[int], parent: tuple[str, ...]
) -> bool:
    """Whether a path concerns the chosen sources: one of them provides it and another source does too,
    or one of them hides an earlier source's file there by its replace_path."""
    if len(providers) > 1 and chosen.intersection(providers):
        return True
    folder = "/".join(parent)
    return any(folder in found[c].replaces and providers and min(providers) < c for c in chosen)
