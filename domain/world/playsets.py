"""Playsets: a named, ordered list of mods. `mods[]` is the only mod list there is (seed 003 rule 3).

A playset is valid only if it and every mod have a usable name, names and workshop ids are unique, and
every mod folder is a top folder of ROOT_STEAM (`<id>`) or of ROOT_USER_DOCS:/mod/. Problems are
reported field by field.
"""

from attrs import evolve, frozen

from domain.addresses import canonical, parsed_or_none
from domain.vocabulary import RootCategory
from ports.errors import Misspelled, PortError
from ports.files import Files, Location
from ports.playsets import ModRecord, PlaysetRecord

_WORKSHOP = RootCategory.ROOT_STEAM.value
_DOCUMENTS = RootCategory.ROOT_USER_DOCS.value


@frozen
class ModFolder:
    """Where an enabled mod of the active playset lives: a root and the folder's segments."""

    name: str
    workshop_id: str | None
    root: RootCategory
    parts: tuple[str, ...]


def as_listed(files: Files, mod: ModFolder) -> ModFolder:
    """`mod` with its folder spelled as the folder lists it, on a root whose filesystem ignores case: a
    playset written on Windows may spell it otherwise, and every file of that mod would then be misspelled."""
    folds = files.ignores_case(mod.root.value)
    if not folds or all(part.isascii() and part == part.swapcase() for part in mod.parts):
        return mod  # ASCII without letters (a workshop id) has one spelling, under case and composition
    try:
        files.kind(Location(mod.root.value, mod.parts))
    except Misspelled as exc:
        return mod if exc.spelled is None else evolve(mod, parts=exc.spelled)
    except PortError:
        pass  # a missing or unreadable folder: it answers as such when it is asked for
    return mod


def problems(playset: PlaysetRecord) -> list[tuple[str, str]]:
    """Every reason `playset` cannot be used, as (field path, message); empty when it is valid."""
    found: list[tuple[str, str]] = []
    if not _usable_name(playset.name):
        found.append(("$.name", _NAME_RULE))
    seen: set[str] = set()
    for index, mod in enumerate(playset.mods):
        where = f"$.mods[{index}]"
        for key, label in ((mod.name, "name"), (mod.workshop_id, "workshop_id")):
            if key is not None and key in seen:
                found.append((f"{where}.{label}", "is used by another mod of this playset"))
            if key is not None:
                seen.add(key)
        found += [(f"{where}.{label}", problem) for label, problem in _mod_problems(mod)]
    return found


_NAME_RULE = "must be a non-empty name without ':', '/' or control characters"


def _mod_problems(mod: ModRecord) -> list[tuple[str, str]]:
    found = []
    if not _usable_name(mod.name):
        found.append(("name", _NAME_RULE))
    if mod.workshop_id is not None and not mod.workshop_id.isdigit():
        found.append(("workshop_id", "must be digits"))
    if _folder(mod) is None:
        found.append(("folder", "must be a top folder of ROOT_STEAM or of ROOT_USER_DOCS:/mod/"))
    return found


def mod_folders(playset: PlaysetRecord) -> tuple[ModFolder, ...]:
    """The folders of the enabled mods of a valid playset, in load order."""
    folders = []
    for mod in sorted(playset.mods, key=lambda entry: entry.load_order):
        folder = _folder(mod)
        if mod.enabled and folder is not None:
            folders.append(ModFolder(mod.name, mod.workshop_id, *folder))
    return tuple(folders)


def folder_address(mod: ModRecord) -> str:
    """The canonical address of a mod's folder (its text as written when it is not a valid folder)."""
    folder = _folder(mod)
    return mod.folder if folder is None else canonical(folder[0].value, folder[1])


def _usable_name(name: str) -> bool:
    if not name or name != name.strip():
        return False
    parsed = parsed_or_none(f"mod:{name}:/", "ROOT_REPO")
    return parsed is not None and parsed.mod == name


def _folder(mod: ModRecord) -> tuple[RootCategory, tuple[str, ...]] | None:
    """The root and segments of a mod's folder, if it is a top folder of a mod place (a mod-form or bare
    text has no such root)."""
    parsed = parsed_or_none(mod.folder, "ROOT_REPO")
    if parsed is None:
        return None
    # a mod folder is a top folder there, so the protected defaults of every mod folder's top apply to it
    if parsed.root == _WORKSHOP and len(parsed.parts) == 1:
        return RootCategory.ROOT_STEAM, parsed.parts
    if parsed.root == _DOCUMENTS and len(parsed.parts) == 2 and parsed.parts[0] == "mod":  # noqa: PLR2004
        return RootCategory.ROOT_USER_DOCS, parsed.parts
    return None
