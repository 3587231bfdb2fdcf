"""How the game combines the definitions of one key across the files of a playset, as data: each rule says
what it does, whether its sources agree, and which sources state it.

Files first (domain.ck3.merged): a file at the same game-relative path in a later source replaces the
earlier one's whole, and a replace_path hides earlier sources' files; only the files left count. Then, by
kind, the definitions of one key in those files, read in the order of the merged file set — by
game-relative path across the game and every mod, **not** by the mods' load order (why modders name files
`zz_…`), and by line within a file:
- most of `common/`, events, scripted triggers and effects: the last one read wins (LAST_READ);
- `on_action`: every definition counts, the game merges them (MERGED);
- GUI types and templates: the first one read wins (FIRST_READ, unconfirmed);
- localisation: an entry below a `replace/` folder wins over every other (REPLACE_FOLDER); among entries
  of the same standing the last read is taken (LOCALISATION_ORDER, unconfirmed).
"""

from collections.abc import Sequence
from typing import Final

from attrs import frozen

from domain.ck3.definitions import LOCALISATION
from domain.ck3.merged import Rule

LAST_READ: Final = Rule(
    "by-key-last-read",
    "Definitions of one key are read in the order of the merged file set, by game-relative path across "
    "the game and every mod (not load order), then by line; the last one read is the one the game uses.",
    confirmed=True,
    sources=(
        # Fileset::finalize sorts every file by path (then source) and keeps one per path;
        # Db::add inserts each item over an earlier one of the same key, in that order.
        "ck3-tiger src/fileset.rs (Fileset::finalize) and src/db.rs (Db::add)",
        # "Mod files load order" (the Paradox wiki page ck3-tiger's maintainers cite): within a folder
        # files load in alphabetical order of their names wherever they come from.
        "Paradox wiki, Mod files load order, as cited in ck3-tiger issue 236",
    ),
)
MERGED: Final = Rule(
    "on-action-merge",
    "Every definition of an on_action counts: the game merges their events and on_actions lists.",
    confirmed=True,
    sources=("ck3-tiger src/data/on_actions.rs (OnActions::load_item appends to an existing on_action)",),
)
FIRST_READ: Final = Rule(
    "gui-first-read",
    "GUI types and templates: the first definition read wins (unconfirmed: ck3-tiger's loader keeps the "
    "last, its maintainers' tests of the game found the first).",
    confirmed=False,
    sources=(
        "ck3-tiger issue 236: type and template items override in reverse order (first one wins)",
        "disagreeing: ck3-tiger src/data/gui.rs (Gui::load_type, load_template insert over the earlier one)",
    ),
)
REPLACE_FOLDER: Final = Rule(
    "localisation-replace",
    "A localisation entry in a file below a replace/ folder (localization/replace/<language>/ or "
    "localization/<language>/replace/) wins over every entry of that key outside one.",
    confirmed=True,
    sources=(
        "ck3-tiger src/data/localization.rs (is_replace_path: both layouts tested in the game)",
        # The Unofficial Patch overrides vanilla keys through localization/replace/english/ (284 keys).
        "CK3 Unofficial Patch (github.com/ProZeratul/CrusaderKings3UnofficialPatch) localization/replace/",
    ),
)
LOCALISATION_ORDER: Final = Rule(
    "localisation-last-read",
    "Among localisation entries of the same standing the last one read, by path, is taken (unconfirmed: "
    "ck3-tiger reads so, its maintainers found the game's order erratic).",
    confirmed=False,
    sources=(
        "ck3-tiger src/data/localization.rs (Localization::handle_file inserts in path order)",
        "disagreeing: ck3-tiger issue 236 (localisation in different folders overrides erratically)",
    ),
)
RULES: Final = (LAST_READ, MERGED, FIRST_READ, REPLACE_FOLDER, LOCALISATION_ORDER)
_BY_KIND: Final = {"on_action": MERGED, "gui_type": FIRST_READ, "gui_template": FIRST_READ}


@frozen
class Candidate:
    """One definition of a key in a file that counts (not replaced or hidden as a file): the source's
    label and index in load order, the game-relative path (case-folded), the line, and whether the file
    lies below a localisation `replace/` folder."""

    source: str
    order: int
    path: tuple[str, ...]
    line: int
    replace: bool = False


def rule_for(kind: str) -> Rule:
    """The rule that decides among definitions of `kind`."""
    if kind == LOCALISATION:
        return REPLACE_FOLDER
    return _BY_KIND.get(kind, LAST_READ)


def read_order(found: Sequence[Candidate]) -> list[Candidate]:
    """The candidates in the order the game reads them: by game-relative path, then source, then line."""
    return sorted(found, key=lambda c: (c.path, c.order, c.line))


def winner(kind: str, found: Sequence[Candidate]) -> tuple[Candidate | None, tuple[Rule, ...]]:
    """The definition the game uses (None: every definition counts, or there is none) and the rules that
    decided it."""
    ordered = read_order(found)
    if not ordered:
        return None, ()
    rule = rule_for(kind)
    if rule is MERGED:
        return None, (MERGED,)
    if rule is FIRST_READ:
        return ordered[0], (FIRST_READ,)
    if kind == LOCALISATION:
        replacing = [c for c in ordered if c.replace]
        if replacing:
            rules = (REPLACE_FOLDER, LOCALISATION_ORDER) if len(replacing) > 1 else (REPLACE_FOLDER,)
            return replacing[-1], rules
        return ordered[-1], (LOCALISATION_ORDER,) if len(ordered) > 1 else ()
    return ordered[-1], (LAST_READ,)
