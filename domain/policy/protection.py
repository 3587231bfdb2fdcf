"""Protected files (law §10, SPEC §8): targets whose mutation needs a human approval on the contract.

The manifest `ROOT_REPO:/policy/protected_files.json` lists canonical addresses (a trailing `/` protects a
whole folder); the defaults below are always protected, the manifest among them. Matching is on the
case-folded canonical identity, so `.GIT/config`, `Policy/` or a Kelvin-sign `K` alias the same entry,
and it needs no file on disk: a name that does not exist yet is protected too. A manifest that cannot be
read as a list of valid addresses protects all of ROOT_REPO (fail closed).
"""

import json
from typing import Final

from attrs import frozen

from domain.addresses import Parsed, canonical, parse

MANIFEST: Final = ("ROOT_REPO", ("policy", "protected_files.json"))
DEFAULTS: Final = (
    "ROOT_REPO:/policy/",
    "ROOT_REPO:/.git/",
    "ROOT_REPO:/.vscode/",
    "ROOT_REPO:/.github/",
    "ROOT_REPO:/.claude/",
    "ROOT_REPO:/.cursor/",
    "ROOT_REPO:/.codex/",
    "ROOT_REPO:/.continue/",
    "ROOT_REPO:/.idea/",
    "ROOT_VSCODE:/",
)


@frozen
class Protection:
    """Case-folded protected addresses: exact files and folder prefixes (ending in '/')."""

    entries: frozenset[str]

    @classmethod
    def from_manifest(cls, raw: bytes | None) -> "Protection":
        """Defaults plus the manifest's entries; all of ROOT_REPO when the manifest is unusable."""
        listed = _entries(raw) if raw is not None else []
        if listed is None:
            listed = ["ROOT_REPO:/"]
        return cls(frozenset(entry.casefold() for entry in (*DEFAULTS, *listed)))

    def covers(self, root: str, parts: tuple[str, ...]) -> bool:
        """Whether the target (root, parts) is protected."""
        key = canonical(root, parts).casefold()
        return any(key == entry or (entry.endswith("/") and key.startswith(entry)) for entry in self.entries)


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
    parsed = parse(entry, "ROOT_REPO")
    return isinstance(parsed, Parsed) and parsed.mod is None and entry.startswith(f"{parsed.root}:/")
