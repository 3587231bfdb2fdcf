"""The file-level merged view of a playset, as the game builds it: for a game-relative path, every source
that provides it — vanilla first, then the active playset's mods in load order — and which one it loads.

The rules are data (`SAME_PATH`, `EARLIER_SOURCES`, `EXACT_FOLDER`), each with the sources that state it
and whether they agree. Files the game merges key by key (most of `common/`) are still one file per source
here: the view says which files exist where and which one the game reads, not how their keys combine.
"""

from collections.abc import Callable
from typing import Final

from attrs import frozen

from domain.addresses import canonical
from domain.ck3.descriptors import Descriptor
from domain.replies.frozen import FrozenMap
from domain.vocabulary import RootCategory
from domain.world.adapter import WorldAdapter
from ports.errors import PortError

MAX_NAMES: Final = 5_000
PER_FILE: Final = (
    "Per-file view: a later source's file replaces an earlier one's whole; where the game merges keys "
    "across files (most of common/), every listed file still counts."
)


@frozen
class Rule:
    """One rule of the merged view: its name, what it says, whether its sources agree, and the sources."""

    name: str
    says: str
    confirmed: bool
    sources: tuple[str, ...]

    def summary(self) -> FrozenMap:
        """What a reply says of the rule (the sources are cited in the code and the modder's guide)."""
        return FrozenMap(rule=self.name, says=self.says, confirmed=self.confirmed)


SAME_PATH: Final = Rule(
    "same-path",
    "A file at the same game-relative path in a later source replaces the earlier one's whole.",
    confirmed=True,
    sources=(
        # Fileset::finalize sorts the files by path, then load order, and keeps the last of each path.
        "ck3-tiger src/fileset.rs (Fileset::finalize, FileKind order)",
    ),
)
EARLIER_SOURCES: Final = Rule(
    "replace-path-hides-earlier-sources",
    "A mod's replace_path hides that folder's files of every source before it in load order (vanilla and "
    "earlier mods); the mod's own files and later mods' files stay.",
    confirmed=True,
    sources=(
        # Fileset::should_replace: a file is skipped when `kind < loaded_mod.kind` for a mod that
        # replaces its folder, so vanilla, DLC and earlier loaded mods alike.
        "ck3-tiger src/fileset.rs (Fileset::should_replace)",
        # ModMergeService: "any mod before does not copy its output, only the ones following".
        "Irony Mod Manager src/IronyModManager.Services/ModMergeService.cs",
    ),
)
EXACT_FOLDER: Final = Rule(
    "replace-path-exact-folder",
    "replace_path hides only the files directly in the folder it names, not those in its subfolders "
    "(ck3-tiger's rule; unconfirmed: another tool treats it as a prefix).",
    confirmed=False,
    sources=(
        # Fileset::scan compares each file's parent folder for equality with a replace_path (commit
        # 199c27f3, "Bugfix to make replace_path work", 2023-06-09).
        "ck3-tiger src/fileset.rs (Fileset::scan, LoadedMod::should_replace)",
        # validate_modfile: "replace_path only replaces the specific directory, not any directories below it".
        "ck3-tiger src/modfile.rs (validate_modfile)",
        # Mod authors list a parent and its children separately: Elder Kings (CK3) has "history" and
        # "history/characters"; Kaiserreich (HOI4) "common/decisions" and "common/decisions/categories".
        "descriptor.mod of Elder Kings (github.com/Vertimnus/elder-kings-ck3) and Kaiserreich",
        # Disagrees: ModMergeService matches replace paths with StartsWith (subfolders included).
        "disagreeing: Irony Mod Manager ModMergeService.cs (prefix match)",
    ),
)
RULES: Final = (SAME_PATH, EARLIER_SOURCES, EXACT_FOLDER)


@frozen
class Source:
    """One place the game reads from: vanilla or a mod, its folder in root form, the mod's workshop id,
    and the folders its replace_path names (game-relative, without slashes at either end)."""

    label: str
    folder: str
    replaces: tuple[str, ...] = ()
    workshop_id: str | None = None


def folders(world: WorldAdapter) -> list[str]:
    """The folders of vanilla and the active playset's mods, in load order: each source's `folder`, known
    without reading a descriptor."""
    return [canonical(RootCategory.ROOT_GAME.value, ()), *world.mod_folders()]


def sources(world: WorldAdapter, describe: Callable[[str], Descriptor | None]) -> list[Source]:
    """Vanilla, then the active playset's mods in load order (each with its descriptor's replace_path)."""
    vanilla, *mods = folders(world)
    found = [Source("vanilla", vanilla)]
    for mod, folder in zip(world.view.mods, mods, strict=True):
        descriptor = describe(folder)
        replaces = descriptor.lists.get("replace_path", ()) if descriptor else ()
        named = tuple(path.strip("/") for path in replaces if path.strip("/"))
        found.append(Source(mod.name, folder, named, mod.workshop_id))
    return found


def hider(found: list[Source], index: int, parent: tuple[str, ...]) -> Source | None:
    """The first source after `found[index]` whose replace_path names `parent` exactly (EARLIER_SOURCES,
    EXACT_FOLDER): it hides that source's files directly in `parent`."""
    folder = "/".join(parent)
    return next((later for later in found[index + 1 :] if folder in later.replaces), None)


def replace_paths(found: list[Source], parent: tuple[str, ...], hidden: dict[str, str]) -> list[FrozenMap]:
    """The replace_path entries that bear on the files directly in `parent`: those naming it (with the
    sources whose files they hid, from `hidden`: source label -> hiding mod) and those naming a folder
    above it, which do not reach it (EXACT_FOLDER)."""
    folder = "/".join(parent)
    notes: list[FrozenMap] = []
    for source in found[1:]:
        for named in source.replaces:
            reaches = named == folder
            if reaches or folder.startswith(named + "/"):
                hid = tuple(label for label, by in hidden.items() if by == source.label) if reaches else ()
                notes.append(FrozenMap(mod=source.label, folder=named, reaches=reaches, hid=hid))
    return notes


def rules_for(notes: list[FrozenMap]) -> list[FrozenMap]:
    """The rules an answer relied on beyond same-path replacement: the replace_path ones, when a
    replace_path bore on it."""
    return [rule.summary() for rule in (EARLIER_SOURCES, EXACT_FOLDER)] if notes else []


def which(
    world: WorldAdapter, home: RootCategory, path: tuple[str, ...], found: list[Source]
) -> tuple[list[dict[str, object]], str | None, dict[str, str]]:
    """Every source's answer for the file at game-relative `path`, the winner's address, and which
    sources' files a replace_path hid (source label -> the mod whose replace_path hid it)."""
    rows: list[dict[str, object]] = []
    hidden: dict[str, str] = {}
    for index, source in enumerate(found):
        ref = world.ref_or_none(below(source.folder, path), home, must_exist=False)
        provides = ref is not None and ref.kind == "file"
        by = hider(found, index, path[:-1]) if provides else None
        if by is not None:
            hidden[source.label] = by.label
        rows.append(
            {
                "source": source.label,
                "address": ref.address if ref is not None else None,
                "provides": provides,
                "hidden_by": by.label if by is not None else None,
            }
        )
    winners = [str(row["address"]) for row in rows if row["provides"] and row["hidden_by"] is None]
    return rows, winners[-1] if winners else None, hidden


def folder(
    world: WorldAdapter, home: RootCategory, path: tuple[str, ...], found: list[Source]
) -> tuple[list[dict[str, object]], bool, dict[str, str]]:
    """For each file directly in the game-relative folder `path`: who provides it and who wins; whether
    the list stopped at MAX_NAMES; and which sources' files a replace_path hid (label -> hiding mod)."""
    names: dict[str, list[tuple[str, str, bool]]] = {}
    hidden: dict[str, str] = {}
    for index, source in enumerate(found):
        by = hider(found, index, path)
        for entry in files_in(world, home, source, path):
            if entry[0] in names or len(names) < MAX_NAMES:
                names.setdefault(entry[0], []).append((source.label, entry[1], by is not None))
                if by is not None:
                    hidden[source.label] = by.label
    files: list[dict[str, object]] = []
    for name in sorted(names):
        live = [address for _, address, gone in names[name] if not gone]
        files.append(
            {
                "name": name,
                "sources": [label for label, _, _ in names[name]],
                "winner": live[-1] if live else None,
                "overridden": len(names[name]) > 1,
            }
        )
    return files, len(names) >= MAX_NAMES, hidden


def files_in(
    world: WorldAdapter, home: RootCategory, source: Source, path: tuple[str, ...]
) -> list[tuple[str, str]]:
    """(name, address) of each file directly in the game-relative folder `path` of `source` (none where
    the source has no such folder, or it cannot be read)."""
    ref = world.ref_or_none(below(source.folder, path), home)
    if ref is None or ref.kind != "dir":
        return []
    try:
        listed = world.list_dir(ref)
    except PortError:
        return []
    return [(entry.name, entry.address) for entry in listed if entry.kind == "file"]


def below(folder: str, path: tuple[str, ...]) -> str:
    """The address of game-relative `path` in a source's folder given in root form."""
    return folder.rstrip("/") + "/" + "/".join(path) if path else folder
