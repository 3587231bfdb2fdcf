"""The merged view of a playset (what the game loads): for a game-relative path, every source that provides
it — vanilla first, then the active playset's mods in load order — and which one wins.

The later source wins for the same path; a mod's `replace_path` hides vanilla's files under that path.
Files the game merges key by key (most of `common/`) are still one file per source here: the view says
which files exist where and which one the game reads last, not how their keys combine.
"""

from collections.abc import Callable
from typing import Final

from attrs import frozen

from domain.addresses import canonical
from domain.ck3.descriptors import Descriptor
from domain.vocabulary import RootCategory
from domain.world.adapter import WorldAdapter
from ports.errors import PortError

MAX_NAMES: Final = 5_000
PER_FILE: Final = (
    "Per-file view: a later source's file replaces an earlier one's whole; where the game merges keys "
    "across files (most of common/), every listed file still counts."
)


@frozen
class Source:
    """One place the game reads from: vanilla or a mod, its folder in root form, what it replaces."""

    label: str
    folder: str
    replaces: tuple[str, ...] = ()


def sources(world: WorldAdapter, describe: Callable[[str], Descriptor | None]) -> list[Source]:
    """Vanilla, then the active playset's mods in load order (each with its descriptor's replace_path)."""
    found = [Source("vanilla", canonical(RootCategory.ROOT_GAME.value, ()))]
    for mod in world.view.mods:
        folder = canonical(mod.root.value, mod.parts)
        descriptor = describe(folder)
        replaces = descriptor.lists.get("replace_path", ()) if descriptor else ()
        found.append(Source(mod.name, folder, tuple(path.strip("/") for path in replaces)))
    return found


def which(
    world: WorldAdapter, home: RootCategory, path: tuple[str, ...], found: list[Source]
) -> tuple[list[dict[str, object]], str | None]:
    """Every source's answer for the file at game-relative `path`, and the winner's address."""
    rows: list[dict[str, object]] = []
    for source in found:
        _, ref = world.resolve(_below(source.folder, path), home, must_exist=False)
        provides = ref is not None and ref.kind == "file"
        rows.append(
            {
                "source": source.label,
                "address": ref.address if ref is not None else None,
                "provides": provides,
                "hidden_by": _hider(source, path, found) if provides else None,
            }
        )
    winners = [str(row["address"]) for row in rows if row["provides"] and row["hidden_by"] is None]
    return rows, winners[-1] if winners else None


def folder(
    world: WorldAdapter, home: RootCategory, path: tuple[str, ...], found: list[Source]
) -> tuple[list[dict[str, object]], bool]:
    """For each file directly in the game-relative folder `path`: who provides it and who wins; and
    whether the list stopped at MAX_NAMES."""
    names: dict[str, list[dict[str, object]]] = {}
    for source in found:
        _, ref = world.resolve(_below(source.folder, path), home)
        if ref is None or ref.kind != "dir":
            continue
        try:
            listed = world.list_dir(ref)
        except PortError:
            continue
        for entry in listed:
            if entry.kind == "file" and (entry.name in names or len(names) < MAX_NAMES):
                hidden = _hider(source, (*path, entry.name), found)
                names.setdefault(entry.name, []).append(
                    {"source": source.label, "address": entry.address, "hidden_by": hidden}
                )
    files = []
    for name in sorted(names):
        live = [row for row in names[name] if row["hidden_by"] is None]
        files.append(
            {
                "name": name,
                "sources": [row["source"] for row in names[name]],
                "winner": live[-1]["address"] if live else None,
                "overridden": len(names[name]) > 1,
            }
        )
    return files, len(names) >= MAX_NAMES


def _below(folder: str, path: tuple[str, ...]) -> str:
    return folder.rstrip("/") + "/" + "/".join(path) if path else folder


def _hider(source: Source, path: tuple[str, ...], found: list[Source]) -> str | None:
    """The mod whose replace_path hides vanilla's file at `path` (only vanilla's files are hidden)."""
    if source.label != "vanilla" or source is not found[0]:
        return None
    text = "/".join(path)
    for mod in found[1:]:
        if any(text == folder or text.startswith(folder + "/") for folder in mod.replaces):
            return mod.label
    return None
