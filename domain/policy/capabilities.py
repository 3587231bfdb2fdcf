"""The capability matrix (SPEC §4): which mutations each mode may make where, and on what condition.

Declared once, as data. Reads are not here: visibility governs reads. A target that no row covers may not
be mutated in that mode. The most specific row (the longest folder prefix) decides.
"""

from enum import StrEnum, unique
from typing import Final

from attrs import frozen

from domain.vocabulary import Mode, Operation, RootCategory


@unique
class Condition(StrEnum):
    """What a permitted mutation still needs."""

    ALWAYS = "always"
    CONTRACT = "contract"
    CONTRACT_AND_APPROVAL = "contract+human_approval"


@unique
class Scope(StrEnum):
    """How a row's folder is matched."""

    BELOW = "below"  # anything strictly below `prefix`
    EXACT = "exact"  # `prefix` itself (a single file)
    PLAYSET_LOCAL_MOD = "playset-local-mod"  # anything inside a local mod folder of the active playset


@frozen
class Row:
    """One line of the matrix: mode, root, folder, and the condition for WRITE and for DELETE (None: no)."""

    rule: str
    mode: Mode
    root: RootCategory
    prefix: tuple[str, ...]
    write: Condition | None
    delete: Condition | None
    scope: Scope = Scope.BELOW

    def condition(self, operation: Operation) -> Condition | None:
        if operation is Operation.WRITE:
            return self.write
        if operation is Operation.DELETE:
            return self.delete
        return None


L, D = Mode.CK3LENS, Mode.CK3RAVEN_DEV
R = RootCategory
C, A, ALWAYS = Condition.CONTRACT, Condition.CONTRACT_AND_APPROVAL, Condition.ALWAYS

MATRIX: Final[tuple[Row, ...]] = (
    Row("ck3lens.local-mod", L, R.ROOT_USER_DOCS, ("mod",), C, C, Scope.PLAYSET_LOCAL_MOD),
    Row("ck3lens.wip", L, R.ROOT_CK3RAVEN_DATA, ("wip",), ALWAYS, ALWAYS),
    Row("ck3lens.playsets", L, R.ROOT_CK3RAVEN_DATA, ("playsets",), C, C),
    Row("ck3lens.launcher-registry", L, R.ROOT_USER_DOCS, ("launcher-v2.sqlite",), A, None, Scope.EXACT),
    Row("ck3raven-dev.repo", D, R.ROOT_REPO, (), C, C),
    Row("ck3raven-dev.local-mods", D, R.ROOT_USER_DOCS, ("mod",), C, C),
    Row("ck3raven-dev.wip", D, R.ROOT_CK3RAVEN_DATA, ("wip",), ALWAYS, ALWAYS),
    *(
        Row(f"ck3raven-dev.{folder}", D, R.ROOT_CK3RAVEN_DATA, (folder,), C, C)
        for folder in ("config", "playsets", "cache", "artifacts")
    ),
    Row("ck3raven-dev.vscode", D, R.ROOT_VSCODE, (), C, None),
)
"""Every permitted mutation. ROOT_GAME and ROOT_STEAM have no row: they are never writable."""

WRITABLE: Final = frozenset(row.root for row in MATRIX)
"""The roots some mode may change (a mode can be switched while serving): only there can a write leave a
temporary file behind."""


def row_for(mode: Mode, root: RootCategory, parts: tuple[str, ...], *, in_local_mod: bool) -> Row | None:
    """The most specific row covering a target, or None."""
    best: Row | None = None
    for row in MATRIX:
        applies = row.mode is mode and row.root is root and _covers(row, parts, in_local_mod=in_local_mod)
        if applies and (best is None or len(row.prefix) > len(best.prefix)):
            best = row
    return best


def _covers(row: Row, parts: tuple[str, ...], *, in_local_mod: bool) -> bool:
    if row.scope is Scope.EXACT:
        return parts == row.prefix
    if row.scope is Scope.PLAYSET_LOCAL_MOD and not in_local_mod:
        return False
    return len(parts) > len(row.prefix) and parts[: len(row.prefix)] == row.prefix
