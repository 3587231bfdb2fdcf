"""What a walk below a visible folder keeps, judged by the session's compiled view (domain.world.view):
the filters a listing, a walk, a survey and a walk of folders hand the Files port, so the port leaves out
what the view hides, a folder's names at a time where it can. A walk's own filters (`Skip`, `NamedSkip`,
`FileNames`) are declared here too. No ref is minted here: the World Adapter locates the folder behind a
ref, and mints the refs a walk hands out.
"""

from collections.abc import Callable, Generator
from typing import Final, NamedTuple

from attrs import define, frozen

from domain.addresses import addressable_name
from domain.world.view import Compiled
from domain.world.visibility import VisibilityRef
from ports.files import Files, Kind, Location, Sift, WholeFolder

NAMES_KEPT: Final = 1 << 16
"""Names whose visibility verdict a view keeps at most (all are let go when there are this many)."""


class Listed(NamedTuple):
    """One visible child of a folder, spelled canonically (a named tuple: a listing makes one per child)."""

    address: str
    name: str
    kind: Kind
    size: int


@frozen
class Found:
    """One visible entry a walk found: its canonical address, its parts below the walked folder, its kind,
    and for a file of a walk that asked for them, the ref to read it through."""

    address: str
    parts: tuple[str, ...]
    kind: Kind
    ref: VisibilityRef | None = None


@define
class FileNames:
    """A walk's test of a file's name alone (a name search's glob): a folder's files it refuses are left
    out a folder at a time, before any per-entry filter is asked of them, and the visible ones among them
    are counted in `passed` (a search says how many entries it looked at; a hidden name never counts)."""

    test: Callable[[str], object]
    passed: int = 0


Skip = Callable[[tuple[str, ...], Kind], bool]
"""A walk's own filter on parts below the walked folder (for example a repository's ignore rules)."""


@frozen
class NamedSkip:
    """A Skip that refuses entries by their name alone, wherever they are and whatever their kind (what a
    folder without ignore rules leaves out: `.git`): a walk may apply it to a folder's names at once."""

    names: frozenset[str]

    def __call__(self, parts: tuple[str, ...], kind: Kind) -> bool:  # noqa: ARG002 - a Skip's signature
        return parts[-1] in self.names


def folders(
    files: Files, compiled: Compiled, location: Location, depth: int, skip: Skip | None
) -> Generator[str, None, None]:
    """Canonical addresses of the visible folders below `location` (less those `skip` refuses),
    depth-first. Raises port errors as it is iterated."""
    prefix = compiled.uniform_prefix(location)
    if prefix is None:
        return _spelled_folders(files, compiled, location, depth, skip)
    # nothing below is spelled differently: only names are checked
    verdicts = compiled.shown
    shown = judged(verdicts, addressable_name, compiled.hidden_name)
    refused = skip.names if isinstance(skip, NamedSkip) else frozenset()
    known = compiled.shown_names

    def sift(names: list[str]) -> list[str]:
        # a folder's names at once: a folder of names shown before (most folders of a tree, once a
        # walk has seen it) in two set operations, else a name judged before costs no call
        if refused.isdisjoint(names) and known.issuperset(names):
            return names
        verdict_of = verdicts.get
        kept = [
            name
            for name in names
            if name not in refused and ((seen := verdict_of(name)) or (seen is None and shown(name)))
        ]
        if len(known) >= NAMES_KEPT:  # as the verdicts: whatever a world holds, never more
            known.clear()
        known.update(kept)
        return kept

    rest = None if skip is None or isinstance(skip, NamedSkip) else _folders_kept(skip)
    # spelled by the walk as it goes: no frame of ours, no pass over what it yields
    return files.walk_dirs(location, depth, rest, sift, above=prefix)


def _spelled_folders(
    files: Files, compiled: Compiled, location: Location, depth: int, skip: Skip | None
) -> Generator[str, None, None]:
    """`folders` below a folder where what lies below may be spelled apart (a mod's folder): each
    folder's whole location judged and spelled."""
    root, base = location.root, location.parts

    def keep(path: str) -> bool:
        parts = tuple(path.split("/"))
        return (
            addressable_name(parts[-1])
            and compiled.visible(Location(root, base + parts))
            and not (skip and skip(parts, "dir"))
        )

    for path in files.walk_dirs(location, depth, keep):
        yield compiled.spell(Location(root, base + tuple(path.split("/"))))


def sifting(compiled: Compiled, files: FileNames) -> Sift:
    """A folder's entries less the files whose names `files` refuses, the visible ones of those counted;
    one loop per folder, no call of ours per entry (a name search sees every file below)."""
    verdicts = compiled.shown
    verdict_of, shown = verdicts.get, judged(verdicts, addressable_name, compiled.hidden_name)
    test = files.test

    def sift(entries: list[tuple[str, Kind]]) -> list[tuple[str, Kind]]:
        kept = []
        for entry in entries:
            name, kind = entry
            if kind == "dir" or test(name):
                kept.append(entry)
            else:
                verdict = verdict_of(name)
                files.passed += shown(name) if verdict is None else verdict
        return kept

    return sift


def below(
    compiled: Compiled, location: Location, skip: Skip | None, *, spelled: bool = True
) -> tuple[str | None, Skip]:
    """The spelling every entry below `location` shares (None: each is spelled on its own), and the
    filter that keeps the visible ones `skip` does not refuse (only those an address can spell, unless
    `spelled` is False)."""
    addressable = addressable_name if spelled else _any_name
    prefix = compiled.uniform_prefix(location)
    verdicts: dict[str, bool] = compiled.shown if spelled else {}
    verdict_of, shown = verdicts.get, judged(verdicts, addressable, compiled.hidden_name)
    if prefix is not None:  # nothing below is spelled differently: only names are checked

        def named(parts: tuple[str, ...], kind: Kind) -> bool:
            # a name judged before is answered from the cache without a call of ours: a walk asks for
            # every entry below, most of them names seen before
            verdict = verdict_of(parts[-1])
            if not (shown(parts[-1]) if verdict is None else verdict):
                return False
            return skip is None or not skip(parts, kind)

        return prefix, named
    root, base = location.root, location.parts
    whole: dict[tuple[str, ...], bool] = {}  # a folder → whether all below it is visible but secrets

    def keep(parts: tuple[str, ...], kind: Kind) -> bool:
        # inside a folder wholly visible (a mod's, in ck3lens) only the name is judged, as in one
        # walked from there; the folder is asked once, not each of its entries
        above, name = parts[:-1], parts[-1]
        seen_whole = whole.get(above)
        if seen_whole is None:
            seen_whole = compiled.uniform_prefix(Location(root, base + above)) is not None
            whole[above] = seen_whole
        if seen_whole:
            verdict = verdict_of(name)
            kept = shown(name) if verdict is None else verdict
        else:
            kept = addressable(name) and compiled.visible(Location(root, base + parts))
        return kept and not (skip and skip(parts, kind))

    return None, keep


def surveyed(
    compiled: Compiled, location: Location, skip: Skip | None, skipped: frozenset[str] | None
) -> tuple[Skip, WholeFolder]:
    """The filter a survey below `location` keeps entries by (`below`'s, every name kept that the view
    does not hide, spelled or not), and the question that answers it for a folder at once: a folder
    wholly visible (inside a root seen whole, or a mod's) whose names are none hidden and none of
    `skipped` (the only names `skip` may refuse; None: it may refuse any)."""
    _, keep = below(compiled, location, skip, spelled=False)
    seen_whole = _wholly_visible(compiled, location)
    unhidden, hidden = compiled.unhidden_names, compiled.hidden_name
    asks_any = skip is not None and skipped is None

    def whole(here: tuple[str, ...], names: list[str]) -> bool:
        if asks_any or (skipped is not None and not skipped.isdisjoint(names)) or not seen_whole(here):
            return False
        if unhidden.issuperset(names):  # most folders: names seen before, in one set operation
            return True
        fresh = [name for name in names if name not in unhidden]
        if any(hidden(name) for name in fresh):
            return False
        if len(unhidden) >= NAMES_KEPT:  # as the verdicts: whatever a world holds, never more
            unhidden.clear()
        unhidden.update(fresh)
        return True

    return keep, whole


def _wholly_visible(compiled: Compiled, location: Location) -> Callable[[tuple[str, ...]], bool]:
    """Whether all below a folder under `location` (its parts below it) is visible but secrets, each
    folder asked of the view once."""
    if compiled.uniform_prefix(location) is not None:
        return _always
    root, base = location.root, location.parts
    wholly: dict[tuple[str, ...], bool] = {}

    def seen_whole(here: tuple[str, ...]) -> bool:
        seen = wholly.get(here)
        if seen is None:  # below a folder wholly visible, every folder is too
            seen = (
                wholly.get(here[:-1]) is True
                or compiled.uniform_prefix(Location(root, base + here)) is not None
            )
            wholly[here] = seen
        return seen

    return seen_whole


def _always(_: tuple[str, ...]) -> bool:
    return True


def judged(
    verdicts: dict[str, bool], addressable: Callable[[str], bool], hidden: Callable[[str], bool]
) -> Callable[[str], bool]:
    """Whether a name may be shown (`addressable` and not `hidden`), each name judged once into
    `verdicts`: a tree repeats its names, and walks and listings repeat trees (the view keeps them)."""

    def shown(name: str) -> bool:
        verdict = verdicts.get(name)
        if verdict is None:
            verdict = addressable(name) and not hidden(name)
            if len(verdicts) >= NAMES_KEPT:
                verdicts.clear()
            verdicts[name] = verdict
        return verdict

    return shown


def _folders_kept(skip: Skip) -> Callable[[str], bool]:
    """The folders `skip` does not refuse (a walk names them by their paths)."""
    return lambda path: not skip(tuple(path.split("/")), "dir")


def _any_name(_: str) -> bool:
    return True
