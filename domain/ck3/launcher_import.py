"""Launcher playsets as ck3raven playsets (seed data flow: launcher playset → playsets/*.json → lens).

Each launcher playset becomes a playset of the same name, its mods in the launcher's order (disabled ones
kept, as disabled), each with its folder as a root address. A name the address grammar cannot carry (a
`:` or `/`, as in "Patch: Fixes") is respelled with `-`, and the respelling is reported; a mod whose folder
lies in no configured root cannot be served and is left out, and reported.
"""

import re

from attrs import frozen

from domain.addresses import canonical
from domain.world.playsets import problems
from ports.launcher import LauncherMod, LauncherPlayset
from ports.playsets import ModRecord, PlaysetRecord

_UNSAFE = re.compile(r"[:/\\\x00-\x1f\x7f]+")


@frozen
class Imported:
    """One launcher playset as a ck3raven playset, with what had to change on the way."""

    record: PlaysetRecord
    renamed: tuple[tuple[str, str], ...]
    left_out: tuple[str, ...]
    problems: tuple[tuple[str, str], ...]


def imported(playset: LauncherPlayset) -> Imported:
    """The ck3raven playset for a launcher playset (check `problems` before saving it)."""
    renamed: list[tuple[str, str]] = []
    left_out: list[str] = []
    mods: list[ModRecord] = []
    for mod in playset.mods:
        if mod.folder is None:
            left_out.append(mod.name)
            continue
        name = _spelled(mod.name, renamed)
        mods.append(_record(mod, name, len(mods) + 1))
    record = PlaysetRecord(_spelled(playset.name, renamed), tuple(mods))
    return Imported(record, tuple(renamed), tuple(left_out), tuple(problems(record)))


def _record(mod: LauncherMod, name: str, order: int) -> ModRecord:
    root, parts = mod.folder or ("", ())
    return ModRecord(name, canonical(root, parts), mod.enabled, order, mod.steam_id)


def _spelled(name: str, renamed: list[tuple[str, str]]) -> str:
    spelled = " ".join(_UNSAFE.sub("-", name).split())
    if spelled != name:
        renamed.append((name, spelled))
    return spelled
