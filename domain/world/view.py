"""What a session can see, declared once as data (SPEC §4): the roots each mode sees whole or only through
the active playset's mod folders, the single extra files, the agent's folders of ROOT_CK3RAVEN_DATA, the
hidden names; a `WorldView` (mode, roots, mods, hidden names) and its `Compiled` lookup tables, which the
World Adapter asks whether a place is visible and how it is spelled. Pure data and lookups: no files.
"""

import fnmatch
import re
from functools import cached_property
from typing import Final

from attrs import frozen

from domain.addresses import canonical
from domain.vocabulary import Mode, RootCategory
from domain.world.playsets import ModFolder
from ports.files import Location

R = RootCategory

FULLY_VISIBLE: Final[dict[Mode | None, frozenset[RootCategory]]] = {
    Mode.CK3LENS: frozenset({R.ROOT_GAME, R.ROOT_REPO, R.ROOT_VSCODE, R.ROOT_CK3RAVEN_DATA}),
    Mode.CK3RAVEN_DEV: frozenset(RootCategory),
}
"""Roots an agent sees whole in each mode (less the hidden folders)."""

PLAYSET_SCOPED: Final[dict[Mode | None, frozenset[RootCategory]]] = {
    Mode.CK3LENS: frozenset({R.ROOT_STEAM, R.ROOT_USER_DOCS}),
    Mode.CK3RAVEN_DEV: frozenset(),
}
"""Roots of which a mode sees only the active playset's mod folders (and the extra files below)."""

EXTRA_FILES: Final[dict[Mode | None, tuple[tuple[RootCategory, tuple[str, ...]], ...]]] = {
    Mode.CK3LENS: ((R.ROOT_USER_DOCS, ("launcher-v2.sqlite",)),),
    Mode.CK3RAVEN_DEV: (),
}
"""Single files visible inside a playset-scoped root."""

DATA_FOLDERS: Final = ("wip", "playsets", "config", "cache", "artifacts")
"""The only folders of ROOT_CK3RAVEN_DATA an agent sees (SPEC §4), in every mode."""

SEARCH_ORDER: Final = tuple(
    root.value
    for root in (
        R.ROOT_USER_DOCS,
        R.ROOT_REPO,
        R.ROOT_CK3RAVEN_DATA,
        R.ROOT_VSCODE,
        R.ROOT_STEAM,
        R.ROOT_GAME,
    )
)
"""The order a whole-world search takes the roots in: a modder's own work first, the game last."""


HIDDEN: Final = (
    ".env",
    ".env.*",
    "*.pem",
    "*.key",
    "id_rsa*",
    "id_ed25519*",
    ".netrc",
    ".npmrc",
    ".pypirc",
    ".*.ck3raven-tmp",
)
"""Names of secrets (SPEC §4), and the temporary file a write makes where the filesystem has no anonymous
files: a file or folder so named is invisible in every root, matched case-insensitively; the operator may
add patterns. The server's own state is in no root at all."""


@frozen
class WorldView:
    """What one session can see: its mode, the configured roots and the active playset's mod folders."""

    mode: Mode | None
    roots: frozenset[RootCategory]
    mods: tuple[ModFolder, ...] = ()
    hidden: tuple[str, ...] = HIDDEN
    """Glob patterns of names that are invisible wherever they stand."""


class Compiled:
    """A WorldView turned into lookup tables, so visibility and spelling cost a few dict probes."""

    def __init__(self, view: WorldView) -> None:
        self.view = view
        self.root_names = frozenset(root.value for root in view.roots)
        full = FULLY_VISIBLE.get(view.mode, frozenset()) & view.roots
        scoped = PLAYSET_SCOPED.get(view.mode, frozenset()) & view.roots
        data = {R.ROOT_CK3RAVEN_DATA} & full  # seen only through its agent folders
        self._full = frozenset(r.value for r in full - data)
        self._scoped = frozenset(r.value for r in scoped | data)
        self._by_key = {key: mod for mod in view.mods for key in (mod.name, mod.workshop_id) if key}
        self._mod_at = {(mod.root.value, mod.parts): mod for mod in view.mods}
        self._depths = sorted({len(mod.parts) for mod in view.mods})
        extra = [(root.value, parts) for root, parts in EXTRA_FILES.get(view.mode, ())]
        extra += [(R.ROOT_CK3RAVEN_DATA.value, (name,)) for name in DATA_FOLDERS if data]
        self._subtrees = frozenset((*self._mod_at, *extra))
        self._ancestors = frozenset(
            (root, parts[:n]) for root, parts in self._subtrees for n in range(len(parts))
        )
        secret = "|".join(fnmatch.translate(pattern.casefold()) for pattern in view.hidden)
        self._secret = re.compile(secret) if secret else None
        self.shown: dict[str, bool] = {}
        """Names a walk judged, and whether an address can spell them and the view does not hide them:
        a pure verdict on the name (never on what stands there), kept while the view lasts."""
        self.shown_names: set[str] = set()
        """Names a folder walk kept as shown (`shown` said so): a folder whose names are all among them
        is sifted with one set operation."""
        self.unhidden_names: set[str] = set()
        """Names a survey found not hidden (`hidden_name` said so): a folder whose names are all among
        them is kept whole with one set operation."""

    def mod(self, key: str) -> ModFolder | None:
        return self._by_key.get(key)

    @cached_property
    def mod_folders(self) -> tuple[str, ...]:
        """The addresses of the active playset's mod folders (by root, not by mod name), in load order:
        spelled once a view, since every governed write asks for them."""
        return tuple(canonical(mod.root.value, mod.parts) for mod in self.view.mods)

    def places(self) -> list[str]:
        whole = sorted(self._full | (self._scoped & {R.ROOT_CK3RAVEN_DATA.value}), key=SEARCH_ORDER.index)
        mods = [
            canonical(mod.name, (), mod=True)
            for mod in self.view.mods
            if mod.root.value in self._scoped and self.view.mode is Mode.CK3LENS
        ]
        return mods + [canonical(root, ()) for root in whole]

    def visible(self, location: Location) -> bool:
        root, parts = location.root, location.parts
        if root not in self.root_names or self._hides_any(parts):
            return False
        if root in self._full:
            return True
        if root not in self._scoped:
            return False
        if (root, parts) in self._ancestors:
            return True
        return any((root, parts[:n]) in self._subtrees for n in range(1, len(parts) + 1))

    def spell(self, location: Location) -> str:
        root, parts = location.root, location.parts
        if self.view.mode is Mode.CK3LENS:
            for depth in self._depths:  # parts shorter than a depth slice to themselves: a mod there was met
                mod = self._mod_at.get((root, parts[:depth]))
                if mod is not None:
                    return canonical(mod.name, parts[depth:], mod=True)
        return canonical(root, parts)

    def in_local_mod(self, location: Location) -> bool:
        """Whether `location` lies strictly inside a local mod folder of the active playset."""
        parts = location.parts
        return any(
            mod.root is RootCategory.ROOT_USER_DOCS
            and mod.root.value == location.root
            and len(parts) > len(mod.parts)
            and parts[: len(mod.parts)] == mod.parts
            for mod in self.view.mods
        )

    def uniform_prefix(self, location: Location) -> str | None:
        """The spelling every descendant of `location` shares (descendant = prefix + relative path), when
        all of them are visible and none is hidden or a mod folder of its own; None otherwise."""
        root, parts = location.root, location.parts
        if not self.visible(location):
            return None
        # a folder on the way to a visible subtree of a playset-scoped root has descendants not visible at
        # all, and one on the way to a mod folder in ck3lens has descendants spelled as that mod; any other
        # visible folder lies wholly inside a root seen whole or inside one visible subtree
        if (root, parts) in self._ancestors and (root not in self._full or self.view.mode is Mode.CK3LENS):
            return None
        address = self.spell(location)
        return address if address.endswith(":/") else address + "/"

    def _hides_any(self, parts: tuple[str, ...]) -> bool:
        secret = self._secret
        if secret is not None:
            for part in parts:
                if secret.match(part.casefold()) is not None:
                    return True
        return False

    def hidden_name(self, name: str) -> bool:
        """Whether a file or folder of this name is a secret no address may reach."""
        return self._secret is not None and self._secret.match(name.casefold()) is not None
