"""At close: what the game would reject in the changed CK3 files (SPEC §14), as lint findings of the locked
ruleset: ck3raven's own reference and localisation checks (domain.compliance.reference_checks) against the
playset's content index after the change, and, where it is installed, ck3-tiger's reports about the changed
files (`TIGER-<its key>`), run on each mod the change touched, bounded in time.

The evidence says what was checked: the index state, notes on files not read whole, advisories (unknown
references in a scripted effect or trigger that takes parameters: never a refusal), and whether ck3-tiger
ran, was absent, or was cut at its bound (never a failure of the close).
"""

from collections.abc import Iterable, Iterator
from typing import Final

from attrs import frozen

from domain.ck3 import content_index, definitions
from domain.ck3.merged import Source
from domain.compliance import reference_checks
from domain.compliance.key_changes import ChangedFile, KeyChanges
from domain.world.adapter import WorldAdapter
from ports import validators
from ports.content_index import ContentIndex
from ports.errors import PortError
from ports.linter import Finding

TIGER_SECONDS: Final = 120.0
"""The bound on one ck3-tiger run, unless the operator sets another."""
TIGER_PREFIX: Final = "TIGER-"


@frozen
class Rejects:
    """The findings, and what the evidence records of how they were found."""

    findings: list[Finding]
    evidence: dict[str, object]


class IndexLookup:
    """The playset's keys as its content index holds them (every source's files, the change's own
    included), each question asked once."""

    def __init__(self, index: ContentIndex, folders: list[str]) -> None:
        self.index = index
        self.folders = folders
        self._kinds: dict[str, set[str]] = {}
        self._mentions: dict[str, list[tuple[str, str, int]]] = {}
        self._elsewhere: dict[str, bool] = {}

    def kinds_of(self, key: str) -> set[str]:
        if key not in self._kinds:
            self._kinds[key] = {d.kind for d in self.index.defined(self.folders, key)}
        return self._kinds[key]

    def keys_of(self, kind: str) -> Iterator[str]:
        return iter(self.index.keys_of(self.folders, kind))

    def _mentioned(self, word: str) -> list[tuple[str, str, int]]:
        if word not in self._mentions:
            self._mentions[word] = self.index.mentions(self.folders, word)
        return self._mentions[word]

    def mentioned_elsewhere(self, word: str, located: tuple[str, str]) -> bool:
        if word not in self._elsewhere:
            self._elsewhere[word] = self.index.mentioned_outside(self.folders, word, *located)
        return self._elsewhere[word]

    def named_in(self, word: str, folder: str, located: tuple[str, str]) -> bool:
        prefix = folder.casefold() + "/"
        source, path = located
        return any(
            held.casefold().startswith(prefix) and (at, held.casefold()) != (source, path.casefold())
            for at, held, _ in self._mentioned(word)
        )

    def localised(self, key: str, language: str) -> bool:
        return any(
            d.language == language for d in self.index.defined(self.folders, key, definitions.LOCALISATION)
        )


def assess(
    world: WorldAdapter,
    index: ContentIndex | None,
    files: Iterable[ChangedFile],
    keys: KeyChanges,
    settings: tuple[str, validators.ExternalValidator | None, float],
) -> Rejects:
    """The findings of the changed CK3 `files` (`keys`: what the change adds to the playset); `settings`:
    the reference language, the external validator (None: none configured) and its bound in seconds."""
    language, validator, seconds = settings
    files = [f for f in files if f.now]
    if index is None:
        return Rejects([], {"checked": False, "why": "the server keeps no content index"})
    found = content_index.sources_of(world)
    lookup = IndexLookup(index, [source.folder for source in found])
    findings: list[Finding] = []
    notes: list[dict[str, object]] = []
    advisories: list[dict[str, object]] = []
    try:
        for changed in files:
            target = _target(found, changed)
            if target is None:
                continue
            added = {(str(r["kind"]), str(r["key"])) for r in keys.adds if r["address"] == changed.address}
            checked = reference_checks.check(target, lookup, added, language)
            findings += checked.findings
            if checked.note:
                notes.append({"address": changed.address, "note": checked.note})
            advisories += [
                {"rule": a.rule, "address": a.path, "line": a.line, "message": a.message}
                for a in checked.advisories
            ]
    except PortError:  # close decides nothing on checks that did not run (closeout: problem "index")
        return Rejects([], {"checked": False, "unread": True, "why": "the content index could not answer"})
    tiger = _tiger(found, files, validator, seconds)
    findings += tiger.findings
    evidence = {
        "checked": True,
        "language": language,
        "notes": notes,
        "advisories": advisories,
        "ck3_tiger": tiger.evidence,
    }
    return Rejects(findings, evidence)


def _target(found: list[Source], changed: ChangedFile) -> reference_checks.Changed | None:
    """The changed file as the checks read it, when it is a script file of a source of the playset."""
    path = definitions.game_path(changed.parts)
    located = _locate(found, changed.located)
    if path is None or located is None:
        return None
    return reference_checks.Changed(changed.address, located, path, changed.now, changed.before)


def _locate(found: list[Source], address: str) -> tuple[str, str] | None:
    """(source folder, path below it) of a root-form address."""
    for source in found:
        prefix = source.folder.rstrip("/") + "/"
        if address.startswith(prefix):
            return source.folder, address[len(prefix) :]
    return None


def _tiger(
    found: list[Source],
    files: list[ChangedFile],
    validator: validators.ExternalValidator | None,
    seconds: float,
) -> Rejects:
    """ck3-tiger's reports about the changed files, run once per mod the change touched."""
    if validator is None:
        return Rejects([], {"status": validators.ABSENT, "detail": "ck3-tiger is not installed: not run"})
    by_mod: dict[str, dict[str, str]] = {}
    for changed in files:
        located = _locate(found[1:], changed.located)  # the game itself is no mod
        if located is not None:
            by_mod.setdefault(located[0], {})[located[1].casefold()] = changed.address
    findings: list[Finding] = []
    runs: list[dict[str, object]] = []
    for mod, changed_paths in sorted(by_mod.items()):
        run = validator.run(mod, seconds)
        runs.append({"mod": mod, "status": run.status, "detail": run.detail, "reported": len(run.reported)})
        for report in run.reported:
            address = changed_paths.get(report.path.casefold())
            if address is not None:
                message = f"{report.severity}: {report.message}"[:500]
                findings.append(Finding(f"{TIGER_PREFIX}{report.key}", address, max(report.line, 1), message))
    unfinished = sorted({str(run["status"]) for run in runs} - {validators.RAN})
    status = (
        "not run: the change touched no mod"
        if not runs
        else f"incomplete: {', '.join(unfinished)} (its findings are not all known)"
        if unfinished
        else "run"
    )
    return Rejects(findings, {"status": status, "runs": runs})
