"""Protected files (law §10, SPEC §8): targets whose mutation needs a human approval on the contract.

The default entries apply at the top of every root and of every mod folder (`ROOT_STEAM:/<id>/`,
`ROOT_USER_DOCS:/mod/<name>/`): the policy folder, git's own folder, CI and editor configuration and
the files agents take instructions from. A `.git` segment is protected at any depth, because a nested
repository's hooks run code just as the top one's do; so is a `.gitignore`, because what it ignores
leaves the view of `close` (a `.gitignore` that ignored new work would hide it from reconciliation).
The manifest `ROOT_REPO:/policy/protected_files.json` adds canonical addresses (a trailing `/` protects a
whole folder). Matching is on the case-folded
identity, so `.GIT/config`, `Policy/` or a Kelvin-sign `K` alias the same entry, and it needs no file on
disk: a name that does not exist yet is protected too. A manifest that cannot be read as a list of valid
addresses protects all of ROOT_REPO (fail closed). Case-folding decides only what is protected; what an
approval covers is its exact canonical spelling (enforcement).
"""

import json
from typing import Final

from attrs import frozen

from domain.addresses import canonical, parsed_or_none

MANIFEST: Final = ("ROOT_REPO", ("policy", "protected_files.json"))
DEFAULT_ENTRIES: Final = (
    "policy/",
    ".git/",
    ".github/",
    ".gitlab-ci.yml",
    ".vscode/",
    ".idea/",
    ".claude/",
    ".cursor/",
    ".codex/",
    ".gemini/",
    ".continue/",
    "agents.md",
    "claude.md",
    "gemini.md",
    ".mcp.json",
    ".pre-commit-config.yaml",
)
"""Relative to the top of every root and every mod folder; a trailing `/` protects a whole folder."""

WHOLE_ROOTS: Final = frozenset({"ROOT_VSCODE"})
"""Roots protected in full: an editor's configuration is where agent tools and tasks are declared."""

_MOD_DEPTHS: Final = {"ROOT_STEAM": (1, ()), "ROOT_USER_DOCS": (2, ("mod",))}
"""Where mod folders stand in a root: their depth and the segments leading to them."""


@frozen
class Protection:
    """The relative defaults and the manifest's case-folded addresses (files, and folders ending '/')."""

    entries: frozenset[str]

    @classmethod
    def from_manifest(cls, raw: bytes | None) -> "Protection":
        """Defaults plus the manifest's entries; all of ROOT_REPO when the manifest is unusable."""
        listed = _entries(raw) if raw is not None else []
        if listed is None:
            listed = ["ROOT_REPO:/"]
        return cls(frozenset(entry.casefold() for entry in (canonical(*MANIFEST), *listed)))

    def covers(self, root: str, parts: tuple[str, ...]) -> bool:
        """Whether the target (root, parts) is protected."""
        folded = tuple(part.casefold() for part in parts)
        if root in WHOLE_ROOTS or ".git" in folded or (folded and folded[-1] == ".gitignore"):
            return True
        if any(_matches("/".join(folded[top:]), DEFAULT_ENTRIES) for top in _tops(root, folded)):
            return True
        return _matches(canonical(root, parts).casefold(), self.entries)


def _tops(root: str, folded: tuple[str, ...]) -> tuple[int, ...]:
    """How many leading segments name a folder the defaults apply in: the root's top, a mod folder's."""
    depth, leading = _MOD_DEPTHS.get(root, (0, ()))
    inside_mod = depth > 0 and len(folded) > depth and folded[: len(leading)] == leading
    return (0, depth) if inside_mod else (0,)


def _matches(key: str, entries: frozenset[str] | tuple[str, ...]) -> bool:
    return any(key == entry or (entry.endswith("/") and key.startswith(entry)) for entry in entries)


def _entries(raw: bytes) -> list[str] | None:
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None
    if not isinstance(data, dict) or set(data) != {"protected"} or not isinstance(data["protected"], list):
        return None
    entries = data["protected"]
    if not all(isinstance(entry, str) and _valid(entry) for entry in entries):
        return None
    return entries


def _valid(entry: str) -> bool:
    parsed = parsed_or_none(entry, "ROOT_REPO")
    return parsed is not None and parsed.mod is None and entry.startswith(f"{parsed.root}:/")
