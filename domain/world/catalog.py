"""The playset catalogue: which playsets exist, which is active, and what `ck3_playset list|show` answer."""

from collections.abc import Callable

from attrs import frozen

from domain.addresses import canonical
from domain.replies.builder import Reply, ReplyBuilder
from domain.replies.refusal import Refused
from domain.vocabulary import Mode
from domain.world.playsets import folder_address, mod_folders, problems
from ports.playsets import PlaysetFile, PlaysetRecord


@frozen
class Catalog:
    """The playset files as last read, and the name of the active playset (None: no playset)."""

    files: tuple[PlaysetFile, ...]
    active: str | None

    def find(self, name: str) -> PlaysetFile | None:
        return next((f for f in self.files if f.record is not None and f.record.name == name), None)

    def usable(self, name: str) -> PlaysetRecord:
        """The named playset if it exists and is valid; raises Refused (Invalid) otherwise."""
        found = self.find(name)
        if found is None or found.record is None:
            names = sorted(f.record.name for f in self.files if f.record is not None)
            raise Refused.invalid("WA-CFG-I-001", {"playsets": names})
        errors = list(found.problems) or problems(found.record)
        if errors:
            listed = [{"field": where, "problem": what} for where, what in errors]
            raise Refused.invalid("WA-PARSE-I-001", {"file": found.file, "errors": listed})
        return found.record


def list_playsets(catalog: Catalog, showable: Callable[[str], bool] = lambda _: True) -> Reply:
    """Every playset file: its name (if readable), whether it is valid and active, and its mod count. A file
    whose name or playset name cannot be shown (`showable`: it carries a host path) is skipped and counted
    in `unshown`, never fatal to the listing."""
    rows = []
    unshown = 0
    for item in catalog.files:
        record = item.record
        if not showable(item.file) or (record is not None and not showable(record.name)):
            unshown += 1
            continue
        valid = record is not None and not item.problems and not problems(record)
        rows.append(
            {
                "file": item.file,
                "name": record.name if record else None,
                "valid": valid,
                "active": record is not None and record.name == catalog.active,
                "mods": len(record.mods) if record else 0,
            }
        )
    active = catalog.active if catalog.active is None or showable(catalog.active) else None
    return ReplyBuilder().success(
        "WA-CFG-S-001", {"active": active, "playsets": rows, "count": len(rows), "unshown": unshown}
    )


Describe = Callable[[str], dict[str, object] | None]
"""What a mod folder's descriptor files say, given the folder's root-form address."""


def show_playset(
    catalog: Catalog, name: str | None, mode: Mode | None, describe: Describe | None = None
) -> Reply:
    """One playset's mods in load order, with their folders as session-absolute addresses (and, with
    `describe`, what each mod's descriptor says). Raises Refused for a playset that is missing or invalid."""
    wanted = name or catalog.active
    if wanted is None:
        return ReplyBuilder().invalid("WA-CFG-I-001", {"playsets": []})
    record = catalog.usable(wanted)
    enabled = {folder.name: folder for folder in mod_folders(record)}
    mods = []
    for mod in sorted(record.mods, key=lambda entry: entry.load_order):
        folder = enabled.get(mod.name)
        in_lens = mode is Mode.CK3LENS and folder is not None
        mods.append(
            {
                "name": mod.name,
                "workshop_id": mod.workshop_id,
                "folder": folder_address(mod),
                "address": canonical(mod.name, (), mod=True) if in_lens else folder_address(mod),
                "enabled": mod.enabled,
                "load_order": mod.load_order,
                "descriptor": describe(folder_address(mod)) if describe and folder is not None else None,
            }
        )
    return ReplyBuilder().success(
        "WA-CFG-S-002",
        {"name": record.name, "active": record.name == catalog.active, "mods": mods, "count": len(mods)},
    )
