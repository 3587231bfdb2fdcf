"""The World Adapter (seed 004): resolves agent addresses to canonical ones and mints VisibilityRefs.

It owns structure, never policy: it answers S, I or E, never D. What is visible in each mode is declared
once, as data (SPEC §4), in domain.world.view. A target outside the visible world gets the very reply a
missing one gets, so no reply can tell the two apart. On a root whose filesystem ignores case, a target has
the one spelling its folders list: any other is Invalid, naming that one. Only this module mints and opens
VisibilityRefs: what a walk, a survey or a listing keeps is judged by domain.world.walks, and what is
protected is read by domain.world.manifest, neither of which sees a ref.
"""

from collections.abc import Callable, Generator
from typing import Final, TypeVar

from attrs import evolve

from domain.addresses import Parsed, addressable_name, canonical, parse
from domain.policy.enforcement import Target
from domain.replies.builder import Reply, ReplyBuilder
from domain.replies.refusal import Refused
from domain.vocabulary import RootCategory
from domain.world import _seal, walks
from domain.world.manifest import Manifest
from domain.world.playsets import as_listed
from domain.world.view import Compiled, WorldView
from domain.world.visibility import VisibilityRef
from domain.world.walks import FileNames, Found, Listed, Skip
from ports.errors import LinkRefused, Misspelled, NotADirectory, NotFound, PortError, Unavailable
from ports.files import Files, Kind, Location, Part, Stat, SurveyRow

R = RootCategory
_K = TypeVar("_K")
_V = TypeVar("_V")

KEPT: Final = 1024
"""How many places, success replies and targets' facts a World Adapter keeps to hand out again (each is
immutable, and depends only on what it is kept by, the view and the manifest)."""
KEPT_TEXT: Final = 256
"""The longest agent text whose place is kept."""

GAME_LOGS: Final = ((R.ROOT_USER_DOCS.value, ("logs",)), (R.ROOT_USER_DOCS.value, ("crashes",)))
"""The folders the game writes its logs and crash reports to: seen by the log commands alone, read-only,
in every mode (SPEC §17), whatever the view shows."""

_ROOTS: Final = {root.value: root for root in RootCategory}


class WorldAdapter:
    """Resolution, visibility and canonical spelling over a Files port."""

    def __init__(self, files: Files, view: WorldView) -> None:
        self._files = files
        self._view = Compiled(self._on_disk(view))
        self._places: dict[tuple[str | None, RootCategory, bool], tuple[str, Location] | Refused] = {}
        self._resolved: dict[tuple[str, Kind | None], Reply] = {}
        self._targets: dict[tuple[str, str, tuple[str, ...]], Target] = {}
        self._manifest = Manifest(files)

    @property
    def view(self) -> WorldView:
        return self._view.view

    def set_view(self, view: WorldView) -> None:
        """Replace what the session sees (a mode or playset switch), all at once."""
        self._view = Compiled(self._on_disk(view))
        self._places, self._targets = {}, {}

    def _on_disk(self, view: WorldView) -> WorldView:
        """`view` with each mod folder on a root that ignores case spelled as its folder lists it: a playset
        written on Windows may spell it otherwise, and every file of that mod would then be misspelled."""
        mods = tuple(as_listed(self._files, mod) for mod in view.mods)
        return view if mods == view.mods else evolve(view, mods=mods)

    def resolve(
        self, path: str | None, home: RootCategory, *, allow_mod: bool = True, must_exist: bool = True
    ) -> tuple[Reply, VisibilityRef | None]:
        """`ref` as a reply: the success reply and the ref, or the terminal reply and None. For those that
        show the reply (the tests, the bench); the domain takes `ref` or `ref_or_none` and builds no
        success reply to drop (tests/arch/test_dropped_successes.py).

        The success reply for an address and kind is built once and handed out again."""
        try:
            ref = self.ref(path, home, allow_mod=allow_mod, must_exist=must_exist)
        except Refused as refused:
            return refused.reply, None
        return self._answer(ref), ref

    def ref(
        self, path: str | None, home: RootCategory, *, allow_mod: bool = True, must_exist: bool = True
    ) -> VisibilityRef:
        """The ref of what `path` names; raises Refused with its terminal reply.

        Only the filesystem is asked afresh each time: what a text names, and whether the view shows it, is
        kept per text."""
        address, located = self._place(path, home, allow_mod=allow_mod)
        kind = self._kind(located, address)
        if kind is None and must_exist:
            raise Refused(_not_addressable(address))
        return _seal.mint(address, located, kind)

    def ref_or_none(
        self, path: str | None, home: RootCategory, *, allow_mod: bool = True, must_exist: bool = True
    ) -> VisibilityRef | None:
        """`ref`, or None where it refuses: for callers that pass over what does not resolve."""
        try:
            return self.ref(path, home, allow_mod=allow_mod, must_exist=must_exist)
        except Refused:
            return None

    def _answer(self, ref: VisibilityRef) -> Reply:
        """The success reply for a resolved ref, kept per address and kind."""
        reply = self._resolved.get((ref.address, ref.kind))
        if reply is None:
            reply = _kept(self._resolved, (ref.address, ref.kind), _resolved(ref.address, ref.kind))
        return reply

    def _place(self, path: str | None, home: RootCategory, *, allow_mod: bool) -> tuple[str, Location]:
        """What `path` names, spelled canonically, if the view shows it: the grammar, the root or mod, the
        spelling and visibility, all pure (kept for a text of up to KEPT_TEXT characters, a refusal too).
        Raises Refused."""
        place = self._places.get((path, home, allow_mod))
        if place is None:
            try:
                place = self._found(path, home, allow_mod=allow_mod)
            except Refused as refused:
                place = Refused(refused.reply)  # kept unraised: a kept refusal holds no frames
            if path is None or len(path) <= KEPT_TEXT:
                _kept(self._places, (path, home, allow_mod), place)
        if isinstance(place, Refused):
            raise Refused(place.reply)
        return place

    def list_dir(self, ref: VisibilityRef, named: Callable[[str], bool] | None = None) -> list[Listed]:
        """The visible children of the folder behind `ref` (those whose name `named` accepts). Raises port
        errors."""
        location = _seal.locate(ref)
        entries = self._files.list_dir(location, named)
        prefix = self._view.uniform_prefix(location)
        if prefix is not None:  # every child not hidden by name is visible and spelled below one prefix
            shown = walks.judged(self._view.shown, addressable_name, self._view.hidden_name)
            return [Listed(prefix + name, name, kind, size) for name, kind, size in entries if shown(name)]
        return [
            Listed(self._view.spell(child), name, kind, size)
            for name, kind, size in entries
            if addressable_name(name) and self._view.visible(child := location.child(name))
        ]

    def walk_dirs(
        self, ref: VisibilityRef, depth: int, skip: Skip | None = None
    ) -> Generator[str, None, None]:
        """Canonical addresses of the visible folders below `ref` (less those `skip` refuses),
        depth-first. Raises port errors as it is iterated."""
        return walks.folders(self._files, self._view, _seal.locate(ref), depth, skip)

    def walk(
        self,
        ref: VisibilityRef,
        depth: int,
        skip: Skip | None = None,
        *,
        refs: bool = False,
        files: FileNames | None = None,
    ) -> Generator[Found, None, None]:
        """Every visible entry below the folder behind `ref` (less those `skip` refuses; a refused folder
        is not entered), depth-first, each spelled canonically; with `refs`, each file comes with a ref
        minted for it (the walk itself checked that it is visible). With `files`, a file whose name it
        refuses may be left out before `skip` is asked (and counted there when visible); `skip` must
        refuse it too, for the walks where that cannot be done. Raises port errors."""
        location = _seal.locate(ref)
        root, base = location.root, location.parts
        prefix, keep = walks.below(self._view, location, skip)
        sift = walks.sifting(self._view, files) if files is not None and prefix is not None else None
        mint, spell = _seal.mint, self._view.spell
        for parts, kind in self._files.walk(location, depth, keep, sift):
            place = Location(root, base + parts)
            address = prefix + "/".join(parts) if prefix is not None else spell(place)
            yield Found(address, parts, kind, mint(address, place, kind) if refs and kind == "file" else None)

    def survey(
        self, ref: VisibilityRef, skip: Skip | None = None
    ) -> Generator[tuple[tuple[str, ...], Stat], None, None]:
        """Every visible entry below the folder behind `ref` at any depth (less those `skip` refuses, asked
        with parts below that folder; a refused folder is not entered), as root-relative parts, with what
        lstat says of it; entries whose names no address can spell included (what changed there must still
        count, though it is never named). Raises port errors."""
        location = _seal.locate(ref)
        _, keep = walks.below(self._view, location, skip, spelled=False)
        for parts, found in self._files.survey(location, keep):
            yield location.parts + parts, found

    def survey_table(
        self, ref: VisibilityRef, skip: Skip | None = None, skipped: frozenset[str] | None = None
    ) -> dict[str, SurveyRow]:
        """What `survey` finds, as one table: each entry's root-relative path (parts joined by `/`) → its
        row (ports.files.SurveyRow; a folder's row holds its kind alone); `skipped`: the only names `skip`
        may refuse (None: any), so a folder of none of them is kept whole without asking it of each entry.
        Raises port errors."""
        location = _seal.locate(ref)
        keep, whole = walks.surveyed(self._view, location, skip, skipped)
        above = "".join(part + "/" for part in location.parts)
        return self._files.survey_table(location, keep, above, whole)

    def read_files(self, refs: list[VisibilityRef], limit: int) -> list[bytes | PortError]:
        """The bytes of the files behind `refs` (or each one's port error), reading the files of one
        folder with that folder opened once. Raises port errors only for a folder that cannot be opened."""
        found: list[bytes | PortError] = []
        batch: list[Location] = []
        for location in [_seal.locate(ref) for ref in refs] + [None]:
            if batch and (
                location is None
                or location.parts[:-1] != batch[0].parts[:-1]
                or location.root != batch[0].root
            ):
                folder = Location(batch[0].root, batch[0].parts[:-1])
                found += self._files.read_many(folder, [place.parts[-1] for place in batch], limit)
                batch = []
            if location is not None:
                batch.append(location)
        return found

    def places(self) -> list[str]:
        """The addresses a search of the whole visible world walks, in the order it walks them: the active
        playset's mod folders in playset-scoped roots first (what an agent is there to change), then every
        root seen whole in SEARCH_ORDER, the game last (the largest, and never an agent's to change)."""
        return self._view.places()

    def mod_folders(self) -> tuple[str, ...]:
        """The addresses of the active playset's mod folders by their roots, in load order (a mod's
        descriptor unread)."""
        return self._view.mod_folders

    def location_of(self, ref: VisibilityRef) -> Location:
        """Which root and root-relative place `ref` stands for (for root-relative questions such as a
        repository's ignore rules)."""
        return _seal.locate(ref)

    def target(self, ref: VisibilityRef) -> Target:
        """The structural facts enforcement needs about the target behind `ref`, protection included (the
        manifest is read afresh, so an approved edit of it counts from the next call on)."""
        location = _seal.locate(ref)
        protection, fresh = self._manifest.protection()
        if fresh:  # what is protected may have changed
            self._targets = {}
        key = (ref.address, location.root, location.parts)
        found = self._targets.get(key)
        if found is not None:
            return found
        protected = protection.covers(location.root, location.parts)
        in_local_mod = self._view.in_local_mod(location)
        found = Target(ref.address, _ROOTS[location.root], location.parts, in_local_mod, protected)
        return _kept(self._targets, key, found)

    def ignores_case(self, root: str) -> bool:
        """Whether the filesystem of `root` matches names without regard to case: there, addresses that
        differ only in case name one file (and only the folder's spelling of it is canonical)."""
        return self._files.ignores_case(root)

    def address_of(self, root: str, parts: tuple[str, ...]) -> str:
        """The canonical spelling of a place the server found itself (for example in git history)."""
        return self._view.spell(Location(root, parts))

    def read_file(self, ref: VisibilityRef, limit: int) -> bytes:
        """The bytes of the file behind `ref`. Raises port errors."""
        return self._files.read(_seal.locate(ref), limit)

    def write_file(self, ref: VisibilityRef, data: bytes, *, exclusive: bool = False) -> None:
        """Create or atomically replace the file behind `ref` (`exclusive`: only create). Raises port
        errors."""
        self._files.write(_seal.locate(ref), data, exclusive=exclusive)

    def delete_file(self, ref: VisibilityRef) -> None:
        """Remove the file behind `ref`. Raises port errors."""
        self._files.delete(_seal.locate(ref))

    def _found(self, path: str | None, home: RootCategory, *, allow_mod: bool) -> tuple[str, Location]:
        located = self._locate(_parsed(path, home), allow_mod=allow_mod)
        address = self._view.spell(located)
        if not self._view.visible(located):
            raise Refused(_not_addressable(address))
        return address, located

    def log_ref(self, path: str | None, home: RootCategory) -> VisibilityRef:
        """`ref` for the log commands: a place in the game's log folders (GAME_LOGS) resolves whether or
        not the view shows it (names no address may spell, hidden names and links are refused as anywhere);
        any other address resolves as `ref` resolves it (a kept copy of the logs). Raises Refused."""
        located = self._locate(_parsed(path, home), allow_mod=True)
        if not _in_game_logs(located) or self._view.visible(located):
            return self.ref(path, home)
        address = canonical(located.root, located.parts)
        if self._view._hides_any(located.parts):  # noqa: SLF001 - the view's own test of hidden names
            raise Refused(_not_addressable(address))
        kind = self._kind(located, address)
        if kind is None:
            raise Refused(_not_addressable(address))
        return _seal.mint(address, located, kind)

    def in_game_logs(self, ref: VisibilityRef) -> bool:
        """Whether `ref` lies in the game's log folders (GAME_LOGS)."""
        return _in_game_logs(_seal.locate(ref))

    def log_files(self, ref: VisibilityRef) -> list[tuple[Listed, VisibilityRef]]:
        """The files and folders directly in the log folder behind `ref` (a ref `log_ref` minted),
        each with a ref to read it by. Raises port errors."""
        location = _seal.locate(ref)
        if not _in_game_logs(location):  # any other folder: what the view shows, as anywhere
            shown = [entry for entry in self.list_dir(ref) if entry.kind in {"file", "dir"}]
            return [(entry, self._minted(location, entry)) for entry in shown]
        base = ref.address.rstrip("/")
        found = []
        for name, kind, size in self._files.list_dir(location):
            if kind in {"file", "dir"} and addressable_name(name) and not self._view.hidden_name(name):
                entry = Listed(f"{base}/{name}", name, kind, size)
                found.append((entry, self._minted(location, entry)))
        return found

    @staticmethod
    def _minted(folder: Location, entry: Listed) -> VisibilityRef:
        return _seal.mint(entry.address, folder.child(entry.name), entry.kind)

    def read_part(self, ref: VisibilityRef, offset: int, size: int) -> Part:
        """A window of the bytes of the file behind `ref`, with its size and last change. Raises port
        errors."""
        return self._files.read_part(_seal.locate(ref), offset, size)

    def _locate(self, parsed: Parsed, *, allow_mod: bool) -> Location:
        """Where a parsed address lies; raises Refused for a mod form where none may stand, an unknown mod
        or a root the view lacks."""
        if parsed.mod is not None:
            if not allow_mod:
                raise Refused.invalid("WA-RES-I-011", {"rule": "mod-form", "expected": "ROOT_X:/rel/path"})
            mod = self._view.mod(parsed.mod)
            if mod is None:
                raise Refused.invalid("WA-RES-I-010", {"mods": [m.name for m in self.view.mods]})
            return Location(mod.root.value, mod.parts + parsed.parts)
        root = parsed.root
        if root is None or root not in self._view.root_names:
            raise Refused.invalid("WA-RES-I-009", {"roots": sorted(self._view.root_names)})
        return Location(root, parsed.parts)

    def _kind(self, location: Location, address: str) -> Kind | None:
        """What stands at `location` (None: nothing); raises Refused for a link, another spelling or a
        root that cannot be read."""
        try:
            return self._files.kind(location)
        except (NotFound, NotADirectory):
            return None
        except LinkRefused:
            raise Refused.invalid("WA-RES-I-012", {"address": address}) from None
        except Misspelled as exc:
            raise Refused(self._misspelled(location.root, exc.spelled, address)) from None
        except Unavailable:
            raise Refused.error("WA-IO-E-001", {"address": address}) from None

    def _misspelled(self, root: str, spelled: tuple[str, ...] | None, address: str) -> Reply:
        """The reply to `address` when its folders list its entries under another spelling: that spelling's
        address when an address can spell it and the view shows it, else what a missing target gets (so
        nothing hidden is named)."""
        if spelled is None or not all(addressable_name(name) for name in spelled):
            return _not_addressable(address)
        place = Location(root, spelled)
        if not self._view.visible(place):
            return _not_addressable(address)
        canonical_address = self._view.spell(place)
        return ReplyBuilder().invalid("WA-RES-I-019", {"address": address, "canonical": canonical_address})


def _parsed(path: str | None, home: RootCategory) -> Parsed:
    """`path` by the address grammar; raises Refused with the grammar's reply."""
    return parse(path, home.value)


def _resolved(address: str, kind: Kind | None) -> Reply:
    return ReplyBuilder().success("WA-RES-S-001", {"address": address, "kind": kind})


def _kept(kept: dict[_K, _V], key: _K, value: _V) -> _V:
    """`value`, kept under `key` (all kept values are let go when there are KEPT of them)."""
    if len(kept) >= KEPT:
        kept.clear()
    kept[key] = value
    return value


def _in_game_logs(location: Location) -> bool:
    return any(location.root == root and location.parts[: len(parts)] == parts for root, parts in GAME_LOGS)


def _not_addressable(address: str) -> Reply:
    return ReplyBuilder().invalid("WA-RES-I-001", {"address": address})
