"""What close checks beyond the declared targets (Phase 1.5): the ruleset is the one recorded at open,
every new symbol has an NST, and lint findings in changed files are none or within what live LXEs excuse.

The result says what was found either way, so the evidence of a close (or of a refused one) records it.
"""

import hashlib
import json
from collections import Counter
from collections.abc import Callable

from attrs import frozen

from domain.addresses import canonical, parsed_or_none
from domain.ck3 import definitions
from domain.compliance import ck3_checks, game_rejects, key_changes, ruleset, symbols, tokens
from domain.compliance.symbols import FileSymbols
from domain.services import Services
from domain.session import Session
from domain.vocabulary import RootCategory
from ports.contracts import ContractRecord
from ports.errors import NotFound, PortError
from ports.linter import Finding

FILE_LIMIT = 8 * 1024 * 1024
AtOpen = Callable[[tuple[str, ...]], tuple[bytes | None, bool]]
"""A file's content when the contract opened (None: absent), and whether it is known at all."""


@frozen
class Assessment:
    """The compliance facts of one close; `problem` names the first rule broken ("ruleset", "index": the
    content index is not complete enough to judge on, "symbols", "removals", "lint"), None when the work
    complies."""

    ruleset_hash: str
    recorded_hash: str | None
    symbols: list[FileSymbols]
    uncovered: list[dict[str, str]]
    findings: list[Finding]
    over: list[dict[str, object]]
    nsts: list[tokens.Nst]
    lxes: list[str]
    keys: key_changes.KeyChanges = key_changes.NOTHING
    rejects: dict[str, object] | None = None
    """How the checks of what the game would reject ran (SPEC §14)."""

    @property
    def problem(self) -> str | None:
        if self.recorded_hash != self.ruleset_hash:
            return "ruleset"
        if not self.keys.decided or (self.rejects or {}).get(
            "unread"
        ):  # nothing is decided on what was not read
            return "index"
        if self.uncovered:
            return "symbols"
        if self.keys.blocked:
            return "removals"
        return "lint" if self.over else None

    def evidence(self) -> dict[str, object]:
        return {
            "ruleset_hash": self.ruleset_hash,
            "recorded_ruleset_hash": self.recorded_hash,
            "symbols": [
                {"address": f.address, "kind": f.kind, "added": list(f.added), "problem": f.problem}
                for f in self.symbols
            ],
            "nsts": [{"name": n.name, "address": n.address, "reason": n.reason} for n in self.nsts],
            "uncovered": self.uncovered,
            "findings": [
                {"rule": f.rule, "path": f.path, "line": f.line, "message": f.message} for f in self.findings
            ],
            "over": self.over,
            "lxes": self.lxes,
            "keys": self.keys.evidence(),
            "index": self.keys.index,
            "removals_blocked": self.keys.blocked,
            "game_rejects": self.rejects,
            "outcome": self.problem or "complies",
        }


def ruleset_record(services: Services, inherited_from: str | None) -> str:
    """The record of the ruleset a contract is judged by: its predecessor's when renewing, else the
    current one. Raises PortError (the linter cannot say what it runs)."""
    inherited = services.evidence.document("ruleset", inherited_from) if inherited_from else None
    if inherited is not None:
        return inherited
    rules = ruleset.current(services.linter)
    return json.dumps({"hash": ruleset.digest(rules), "ruleset": rules})


def agent_work(
    session: Session, services: Services, root: str, changes: list[dict[str, object]]
) -> list[dict[str, object]]:
    """The changes less the LXE files this server wrote, unchanged since (their digest is on record in
    the state store, which outlives a restart): those are the record of a human's approval, not an
    agent's work, in a close as in a later open's carry-over."""
    try:
        stored = services.tokens.read_all(root)
    except PortError:
        return changes
    ours = {
        session.world.address_of(root, (*tokens.TOKEN_FOLDER, name)).casefold()
        for name, document in stored
        if services.evidence.document("lxe-file", f"{root}/{name}") == hashlib.sha256(document).hexdigest()
    }
    return [change for change in changes if str(change["address"]).casefold() not in ours]


def nsts_of(services: Services, contract_id: str) -> list[tokens.Nst]:
    """The contract's NSTs while their signature holds, as removals and LXEs are verified: a stored record
    edited, forged or malformed counts for nothing and is never shown. Of a genuine record, an NST whose
    address is no canonical address (recorded before addresses were checked), or that no longer passes
    the door's screen, counts for nothing either, so no stored record can make a later reply fail."""
    return stored_nsts(services, contract_id)[0]


def stored_nsts(services: Services, contract_id: str) -> tuple[list[tokens.Nst], int]:
    """`nsts_of`, and how many NSTs of the genuine record it skipped."""
    stored = services.evidence.document("nst", contract_id)
    document = _signed_document(stored, "nsts", ("name", "reason"), nullable="address")
    if document is None:
        return [], 0
    rows, signature = document
    found = [tokens.Nst(str(n["name"]), _optional(n.get("address")), str(n["reason"])) for n in rows]
    if not services.authority.signer.verify(tokens.nst_payload(contract_id, found), signature):
        return [], 0
    kept = [
        nst
        for nst in found
        if (nst.address is None or _canonical_text(nst.address)) and tokens.nst_shown(services.leaks, nst)
    ]
    return kept, len(found) - len(kept)


def _signed_document(
    stored: str | None, key: str, fields: tuple[str, ...], nullable: str | None = None
) -> tuple[list[dict[str, object]], str] | None:
    """The rows under `key` of a stored token document and its signature; None when there is none or it
    is not of that shape (every row an object whose `fields` are text, and whose `nullable` field is text,
    null or absent)."""
    if stored is None:
        return None
    try:
        document = json.loads(stored)
    except (ValueError, RecursionError):
        return None
    if not isinstance(document, dict) or not isinstance(document.get("signature"), str):
        return None
    rows = document.get(key)
    if not isinstance(rows, list) or not all(_row_of(row, fields, nullable) for row in rows):
        return None
    return rows, document["signature"]


def _row_of(row: object, fields: tuple[str, ...], nullable: str | None) -> bool:
    if not isinstance(row, dict) or not all(isinstance(row.get(name), str) for name in fields):
        return False
    return nullable is None or isinstance(row.get(nullable), str | None)


def _optional(value: object) -> str | None:
    return None if value is None else str(value)


def _canonical_text(address: str) -> bool:
    """Whether `address` names its root or mod (a bare path does not); a host path never parses."""
    return parsed_or_none(address, RootCategory.ROOT_REPO.value) is not None and ":/" in address


def lineage(services: Services, record: ContractRecord) -> list[str]:
    """The contract's id and those of the contracts it renews, newest first."""
    ids = [record.contract_id]
    previous = record.renewed_from
    while previous and previous not in ids:
        ids.append(previous)
        found = services.contracts.get(previous)
        previous = found.renewed_from if found else None
    return ids


def assess(
    session: Session,
    services: Services,
    record: ContractRecord,
    changes: list[dict[str, object]],
    at_open: AtOpen,
) -> Assessment:
    """The compliance facts of closing `record` with `changes`; `at_open` tells a file's content when the
    contract opened. Raises PortError (history, linter, store)."""
    recorded = services.evidence.document("ruleset", record.contract_id)
    found_symbols: list[FileSymbols] = []
    findings: list[Finding] = []
    before_findings: list[Finding] = []
    python: list[tuple[str, bytes]] = []
    python_before: list[tuple[str, bytes]] = []
    ck3_files: list[key_changes.ChangedFile] = []
    for change in changes:
        if change["kind"] == "delete":
            ck3_files += _deleted(session, at_open, str(change["address"]))
            continue
        read = _now_and_before(session, at_open, str(change["address"]), str(change["kind"]))
        if read is None:
            continue
        parts, now, before, known = read
        kind = symbols.kind_of(parts)
        text = _text(now)
        if kind is not None and text is not None:
            found_symbols.append(
                symbols.added(str(change["address"]), kind, _text(before), text, known=known, parts=parts)
            )
        address = str(change["address"])
        if text is not None and _ck3_file(parts):
            located = _root_form(session, address)
            ck3_files.append(key_changes.ChangedFile(address, located, parts, text, _text(before)))
        findings += ck3_checks.checks(address, parts, now)
        before_findings += ck3_checks.checks(address, parts, before) if before is not None else []
        if parts[-1].casefold().endswith(".py"):
            python.append((address, now))
            python_before += [(address, before)] if before is not None else []
    findings += services.linter.lint(python) if python else []
    before_findings += services.linter.lint(python_before) if python_before else []
    ids = lineage(services, record)
    nsts = [nst for contract_id in ids for nst in nsts_of(services, contract_id)]
    lxes = live_lxes(services, record, set(ids))
    removals = [removal for contract_id in ids for removal in removals_of(services, contract_id)]
    try:
        keys = key_changes.assess(session.world, services.index, ck3_files, removals, everywhere=True)
    except PortError:  # the index cannot answer: nothing is decided on it
        keys = key_changes.NOT_READ
    settings = (services.language, services.validator, services.validator_seconds)
    rejects = (
        game_rejects.assess(session.world, services.index, ck3_files, keys, settings)
        if keys.decided
        else game_rejects.Rejects([], {"checked": False, "why": "the content index is not complete"})
    )
    findings += rejects.findings
    return Assessment(
        ruleset.digest(ruleset.current(services.linter)),
        json.loads(recorded)["hash"] if recorded else None,
        found_symbols,
        _uncovered(found_symbols, nsts, keys.overriding()),
        findings,
        _over(findings, before_findings, tokens.allowance(lxes)),
        nsts,
        [lxe.lxe_id for lxe in lxes],
        keys,
        rejects.evidence,
    )


def _now_and_before(
    session: Session, at_open: AtOpen, address: str, kind: str
) -> tuple[tuple[str, ...], bytes, bytes | None, bool] | None:
    """The file's parts, its bytes now and when the contract opened (None: it did not exist), and whether
    that content is known at all. None when the file cannot be read now."""
    world = session.world
    ref = world.ref_or_none(address, session.home)
    if ref is None or ref.kind != "file":
        return None
    parts = world.location_of(ref).parts
    try:
        now = world.read_file(ref, FILE_LIMIT)
    except PortError:
        return None
    if kind == "add":
        return parts, now, None, True
    before, known = at_open(parts)
    return parts, now, before, known


def live_lxes(services: Services, record: ContractRecord, ids: set[str]) -> list[tokens.Lxe]:
    """The LXEs under policy/tokens/ of the contract's root that this server signed, bound to the contract
    (or one it renews) and not expired, less any that names a host path (no reply could show it). Raises
    PortError."""
    authority = services.authority
    try:
        stored = services.tokens.read_all(record.root_category)
    except NotFound:
        return []
    found = [tokens.lxe_from(document, authority.signer) for _, document in stored]
    now = authority.clock.now()
    return [
        lxe
        for lxe in found
        if lxe is not None and tokens.live(lxe, ids, now) and not services.leaks.findings(lxe.body())
    ]


def _uncovered(
    found: list[FileSymbols], nsts: list[tokens.Nst], overrides: set[tuple[str, str]]
) -> list[dict[str, str]]:
    """New symbols without an NST; an override of a key the playset defined before needs none (§14)."""
    declared = {(nst.name, nst.address) for nst in nsts}
    return [
        {"name": name, "address": item.address}
        for item in found
        for name in item.added
        if (name, None) not in declared
        and (name, item.address) not in declared
        and (name, item.address) not in overrides
    ]


def _deleted(session: Session, at_open: AtOpen, address: str) -> list[key_changes.ChangedFile]:
    """A deleted CK3 file as a change to the playset's keys: every key it defined at open is removed."""
    ref = session.world.ref_or_none(address, session.home, must_exist=False)
    if ref is None:
        return []
    place = session.world.location_of(ref)
    before, _ = at_open(place.parts)
    text = _text(before)
    if text is None or not _ck3_file(place.parts):
        return []
    return [key_changes.ChangedFile(address, canonical(place.root, place.parts), place.parts, "", text)]


def _ck3_file(parts: tuple[str, ...]) -> bool:
    path = definitions.game_path(parts)
    return path is not None and definitions.file_kind(path) is not None


def _root_form(session: Session, address: str) -> str:
    """`address` spelled from its root (`ROOT_STEAM:/1/common/…`), as the content index names files."""
    ref = session.world.ref_or_none(address, session.home)
    if ref is None:
        return address
    place = session.world.location_of(ref)
    return canonical(place.root, place.parts)


def removals_of(services: Services, contract_id: str) -> list[tokens.Removal]:
    """The contract's removal tokens (`ck3_token removal`); a record whose signature does not hold, or that
    is not of a token's shape, counts for nothing, and so does a token that no longer passes the door's
    screen."""
    stored = services.evidence.document("removal", contract_id)
    document = _signed_document(stored, "removals", ("key", "kind", "address"))
    if document is None:
        return []
    rows, signature = document
    found = [tokens.Removal(str(r["key"]), str(r["kind"]), str(r["address"])) for r in rows]
    if not services.authority.signer.verify(tokens.removal_payload(contract_id, found), signature):
        return []
    return [removal for removal in found if tokens.removal_shown(services.leaks, removal)]


def _over(
    findings: list[Finding], before: list[Finding], allowed: dict[tuple[str, str], int]
) -> list[dict[str, object]]:
    """Per (rule, path): the findings the work added (now, less those the baseline had), where more than
    live LXEs excuse."""
    counted = Counter((f.rule, f.path) for f in findings)
    counted.subtract(Counter((f.rule, f.path) for f in before))
    return [
        {"rule": rule, "path": path, "found": count, "excused": allowed.get((rule, path), 0)}
        for (rule, path), count in sorted(counted.items())
        if count > allowed.get((rule, path), 0)
    ]


def _text(data: bytes | None) -> str | None:
    if data is None:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None
