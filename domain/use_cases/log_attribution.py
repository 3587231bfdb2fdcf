"""Where each file a log names lies, and who changed it (SPEC §17 attribution): a game-relative path is
resolved through the file-level merged view (domain.ck3.merged) to the source the game reads it from and
its address; a host path is placed by domain.ck3.log_paths and shown as the address it lies at, else a
placeholder naming its root category, else `<outside>`. Where a contract's journal changed the file, the
file names the contract and whether the change came before or after the log was written (after: the
error is possibly fixed). Each path is worked out once per question."""

from datetime import datetime
from typing import Final

from attrs import define, field

from domain.addresses import canonical, parsed_or_none
from domain.ck3 import content_index, game_log, log_paths, merged
from domain.services import Services
from domain.session import Session
from domain.vocabulary import RootCategory
from ports.errors import PortError
from ports.journal import JournalEntry

CHANGES: Final = frozenset({"write", "delete", "revert"})
GAME: Final = "vanilla"


@define
class Attribution:
    """Attribution for one question, each path's answer kept while it lasts."""

    session: Session
    services: Services
    written: str
    """When the log was last written (ISO 8601, UTC)."""
    _sources: list[merged.Source] | None = None
    _changes: dict[tuple[str, str], JournalEntry] | None = None
    _files: dict[str, dict[str, object]] = field(factory=dict)

    @classmethod
    def of(cls, session: Session, services: Services, written: str) -> "Attribution":
        return cls(session, services, written)

    def spell(self, root: RootCategory, parts: tuple[str, ...]) -> str:
        """The address of a place a log names where the session sees it, else `<ROOT_X>`."""
        ref = self.session.world.ref_or_none(
            canonical(root.value, parts), self.session.home, must_exist=False
        )
        return ref.address if ref is not None else f"<{root.value}>"

    def file(self, path: str) -> dict[str, object]:
        """Where the file a log names as `path` lies: `address` (None: nowhere the session sees), `origin`
        (the mod's name, `vanilla`, or None), and the contract that changed it last, if any."""
        known = self._files.get(path)
        if known is None:
            known = self._files[path] = self._file(path)
        return known

    def _file(self, path: str) -> dict[str, object]:
        if log_paths.is_host_path(path):
            where = log_paths.placed(path)
            if where is None:
                return {"path": log_paths.OUTSIDE, "address": None, "origin": None}
            root, parts = where
            address = self.spell(root, parts)
            found = {"path": address, "address": address if address[0] != "<" else None}
            return found | self._origin_of(canonical(root.value, parts)) | self._changed(address)
        shown = log_paths.replaced(path, self.spell)
        if shown != path:  # a host path of a form not placed above: never read as game-relative
            return {"path": shown, "address": None, "origin": None}
        parsed = parsed_or_none(f"ROOT_GAME:/{path.lstrip('/')}", RootCategory.ROOT_GAME.value)
        if parsed is None or not parsed.parts:
            return {"path": log_paths.replaced(path, self.spell), "address": None, "origin": None}
        return {"path": path} | self._merged(parsed.parts)

    def _merged(self, parts: tuple[str, ...]) -> dict[str, object]:
        """The source the game reads game-relative `parts` from, by the merged view."""
        world, home = self.session.world, self.session.home
        rows, winner, _ = merged.which(world, home, parts, self.sources())
        if winner is None:
            return {"address": None, "origin": None}
        origin = next((str(row["source"]) for row in rows if row["address"] == winner), None)
        return {"address": winner, "origin": origin} | self._changed(winner)

    def _origin_of(self, root_address: str) -> dict[str, object]:
        """The source whose folder holds a place given in root form (a host path's place)."""
        for source in self.sources():
            if root_address.startswith(source.folder.rstrip("/") + "/"):
                return {"origin": source.label}
        return {"origin": None}

    def sources(self) -> list[merged.Source]:
        if self._sources is None:
            self._sources = content_index.sources_of(self.session.world)
        return self._sources

    def _changed(self, address: str) -> dict[str, object]:
        """The contract whose journal changed the file at `address` last, and whether before or after the
        log was written."""
        ref = self.session.world.ref_or_none(address, self.session.home, must_exist=False)
        if ref is None:
            return {}
        place = self.session.world.location_of(ref)
        entry = self.changes().get((place.root, "/".join(place.parts)))
        if entry is None:
            return {}
        after = _after(entry.at, self.written)
        return {
            "contract": entry.contract_id,
            "changed": "after" if after else "before",
            "possibly_fixed": after,
        }

    def changes(self) -> dict[tuple[str, str], JournalEntry]:
        """The last landed journal entry of each file (root, path)."""
        if self._changes is None:
            self._changes = {}
            try:
                entries = self.services.journal.entries()
            except PortError:
                entries = []
            for entry in entries:
                if entry.kind in CHANGES and entry.state == "done" and entry.path:
                    self._changes[(entry.root, entry.path)] = entry
        return self._changes

    def addresses(self, emission: game_log.Emission) -> list[str]:
        """What a glob filter matches for each file an emission names: its address, else its path."""
        found = []
        for named in emission.named():
            file = self.file(named.path)
            found.append(str(file["address"] or file["path"]))
        return found

    def origins(self, emission: game_log.Emission) -> list[tuple[str, str]]:
        """Each file an emission names as (address or path, origin: the mod, vanilla or unknown)."""
        found = []
        for named in emission.named():
            file = self.file(named.path)
            found.append((str(file["address"] or file["path"]), str(file["origin"] or "unknown")))
        return found

    def row(self, emission: game_log.Emission, *, whole: bool) -> dict[str, object]:
        """An emission as a reply shows it: host paths replaced, files attributed; `whole`: every
        continuation line kept, else the first three."""
        continued = emission.continued if whole else emission.continued[:3]
        files = [
            self.file(named.path) | {"line": named.line, "form": named.form} for named in emission.named()
        ]
        row: dict[str, object] = {
            "number": emission.number,
            "first_line": emission.first_line,
            "last_line": emission.last_line,
            "time": emission.time,
            "level": emission.level,
            "source": log_paths.replaced(emission.source, self.spell) if emission.source else emission.source,
            "message": log_paths.replaced(emission.message, self.spell),
            "continued": [log_paths.replaced(line, self.spell) for line in continued],
            "files": files,
        }
        cause = emission.cause()
        if cause is not None:
            row["cause"] = {"kind": cause[0], "name": log_paths.replaced(cause[1], self.spell)}
        if not whole and len(emission.continued) > len(continued):
            row["more_lines"] = len(emission.continued) - len(continued)
        return row

    def screened(self, row: dict[str, object]) -> dict[str, object]:
        """`row` with host paths replaced in its text values (and in lists of text)."""
        return {key: self._screen(value) for key, value in row.items()}

    def _screen(self, value: object) -> object:
        if isinstance(value, str):
            return log_paths.replaced(value, self.spell)
        if isinstance(value, list):
            return [self._screen(item) for item in value]
        return value


def _after(changed_at: str, written: str) -> bool:
    """Whether a change made at `changed_at` came after the log was written (unreadable times: after, the
    careful answer: the error may be fixed)."""
    try:
        return datetime.fromisoformat(changed_at) > datetime.fromisoformat(written)
    except ValueError:
        return True
