"""The Launcher port over the Paradox launcher's SQLite database, opened read-only (SQLite's `mode=ro`
URI), never written. A mod's folder comes from its workshop id (`ROOT_STEAM:/<id>`), else from the
`path=` line of its registry file (`mod/<name>.mod` in the documents folder, read through the Files
port), else from the database's `dirPath`, each only when it lies in a configured root.

A launcher run inside a sandbox (Flatpak or Snap Steam) writes folders as the sandbox sees them: its own
home stands where the host keeps the sandbox's files (`~/.var/app/com.valvesoftware.Steam/...`), so
`$HOME/.local/share/Paradox Interactive/Crusader Kings III/mod/X` names a folder the host has elsewhere. A
folder that lies in no root but names the documents folder by its own last two names
(`Paradox Interactive/Crusader Kings III`) is taken as that folder's, in the documents root.
"""

import re
import sqlite3
from collections.abc import Mapping
from contextlib import closing
from pathlib import Path, PurePosixPath

from ports.errors import PortError, Unavailable
from ports.files import Files, Location
from ports.launcher import LauncherMod, LauncherPlayset, LauncherState

DATABASE = "launcher-v2.sqlite"
DOCUMENTS = "ROOT_USER_DOCS"
WORKSHOP = "ROOT_STEAM"
INTEGER_MIGRATION = "modifyPositionToInteger"
NAMED_BY = ("Paradox Interactive", "Crusader Kings III")
"""How many of the documents folder's last names a sandbox's path to it shares (the two shown)."""
_PATH_LINE = re.compile(r'^[ \t]*path[ \t]*=[ \t]*"([^"\n]*)"', re.MULTILINE)


class SqliteLauncher:
    """The launcher database in the documents root (`ROOT_USER_DOCS`), if one is configured."""

    def __init__(self, roots: Mapping[str, Path], files: Files) -> None:
        self._roots = {name: Path(path).resolve() for name, path in roots.items()}
        self._files = files

    def read(self) -> LauncherState | None:
        documents = self._roots.get(DOCUMENTS)
        if documents is None:
            return None
        database = documents / DATABASE
        if not database.is_file() or database.is_symlink():
            return None
        try:
            with closing(sqlite3.connect(f"{database.as_uri()}?mode=ro", uri=True)) as db:
                return self._state(db)
        except sqlite3.Error as exc:
            raise Unavailable("the launcher database cannot be read") from exc

    def _state(self, db: sqlite3.Connection) -> LauncherState:
        migrations = {str(row[0]) for row in db.execute("select name from knex_migrations")}
        integer = any(INTEGER_MIGRATION in name for name in migrations)
        columns = {str(row[1]) for row in db.execute("pragma table_info(playsets)")}
        removed = "and coalesce(isRemoved, 0) = 0" if "isRemoved" in columns else ""
        have = {str(row[1]) for row in db.execute("pragma table_info(mods)")}
        wanted = ("displayName", "name", "steamId", "gameRegistryId", "source", "dirPath")
        picked = {column: f"m.{column}" if column in have else "null" for column in wanted}
        playsets = []
        for playset_id, name, active in db.execute(
            f"select id, name, isActive from playsets where 1 = 1 {removed} order by name"  # noqa: S608 - a fixed clause
        ).fetchall():
            rows = db.execute(
                f"select {picked['displayName']}, {picked['name']}, pm.enabled, pm.position,"  # noqa: S608 - column names from a fixed list
                f" {picked['steamId']}, {picked['gameRegistryId']}, {picked['source']}, {picked['dirPath']}"
                " from playsets_mods pm join mods m on m.id = pm.modId where pm.playsetId = ?",
                (playset_id,),
            ).fetchall()
            mods = sorted((self._mod(row) for row in rows), key=lambda mod: mod.position)
            playsets.append(LauncherPlayset(str(name), bool(active), tuple(mods)))
        return LauncherState(tuple(playsets), "integer-positions" if integer else "text-positions")

    def _mod(self, row: tuple[object, ...]) -> LauncherMod:
        shown, name, enabled, position, steam_id, registry, source, folder = row
        steam = str(steam_id) if steam_id else None
        return LauncherMod(
            str(shown or name or ""),
            bool(enabled),
            _position(position),
            steam,
            str(registry) if registry else None,
            str(source) if source else None,
            self._folder(steam, str(registry) if registry else None, str(folder) if folder else None),
        )

    def _folder(
        self, steam_id: str | None, registry: str | None, dir_path: str | None
    ) -> tuple[str, tuple[str, ...]] | None:
        if steam_id and steam_id.isdigit() and WORKSHOP in self._roots:
            return WORKSHOP, (steam_id,)
        written = self._registry_path(registry)
        for candidate in (written, dir_path):
            found = self._inside_a_root(candidate) if candidate else None
            if found is not None:
                return found
        return None

    def _registry_path(self, registry: str | None) -> str | None:
        """The `path=` of the registry file `registry` names (relative to the documents folder)."""
        if not registry or DOCUMENTS not in self._roots:
            return None
        parts = PurePosixPath(registry.replace("\\", "/")).parts
        if not parts or any(part in {"..", ".", "/"} or "\x00" in part for part in parts):
            return None
        try:
            text = self._files.read(Location(DOCUMENTS, tuple(parts)), 64 * 1024).decode("utf-8", "replace")
        except (PortError, ValueError):
            return None
        match = _PATH_LINE.search(text)
        return match.group(1) if match else None

    def _inside_a_root(self, written: str) -> tuple[str, tuple[str, ...]] | None:
        """The root and segments of a folder the launcher names: relative to the documents folder, or an
        absolute path inside a configured root."""
        folder = written.replace("\\", "/")
        path = Path(folder) if folder.startswith("/") else self._roots[DOCUMENTS] / folder
        return self._in_a_root(path) or self._in_a_root(self._as_the_host_sees(path))

    def _as_the_host_sees(self, path: Path) -> Path:
        """`path` as written inside a sandbox, in the documents root: what follows the documents folder's
        last two names in it (unchanged when it names no such folder)."""
        documents = self._roots.get(DOCUMENTS)
        if documents is None or len(documents.parts) < len(NAMED_BY):
            return path
        tail, parts = documents.parts[-len(NAMED_BY) :], path.parts
        for at in range(len(parts) - 1, 0, -1):
            if parts[at - 1 : at + 1] == tail:
                return documents.joinpath(*parts[at + 1 :])
        return path

    def _in_a_root(self, path: Path) -> tuple[str, tuple[str, ...]] | None:
        for name, base in self._roots.items():
            try:
                parts = path.resolve(strict=False).relative_to(base).parts
            except (ValueError, OSError):
                continue
            if parts and ".." not in parts:
                return name, tuple(parts)
        return None


def _position(value: object) -> int:
    """A load-order position: zero-padded text in older schemas, an integer after the migration; anything
    else sorts last."""
    try:
        return int(str(value or 0))
    except ValueError:
        return 1 << 31
