"""The operator's views of a configuration's state: `ck3raven contracts`, `audit` and `doctor`.

They read the state database (a running server may keep writing: WAL lets both go on) and never change
it; `doctor`'s self-test runs one call through the real server over an in-memory state.
"""

import fnmatch
import json
import logging
import os
import re
import shutil
import stat
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import anyio
from fastmcp import Client

from adapters.log_setup import configure_logging
from adapters.memory_state import MemoryState
from adapters.server_lock import running
from adapters.sqlite_state import SqliteState
from app import doctor_checks, mounts
from app.audit_calls import one_per_call
from app.bootstrap import build, build_core, leak_gate
from app.config import Settings
from app.doctor_checks import checked
from app.setup import case_warnings, placement_warnings, repository_warning
from domain.vocabulary import RootCategory
from ports.audit import AuditRow
from ports.contracts import ContractRecord
from ports.errors import PortError

RECENT = 10
"""How many ended contracts `ck3raven contracts` shows besides the open ones (all with --all)."""


def _state(settings: Settings) -> SqliteState | None:
    database = settings.state_path(os.environ) / "ck3raven.db"
    return SqliteState(database, read_only=True) if database.is_file() else None


def contracts(settings: Settings, *, everything: bool, as_json: bool) -> str:
    """Open contracts and the most recent ended ones (or all), newest first."""
    state = _state(settings)
    stored = state.contracts.all() if state else []
    now = datetime.now(UTC)
    shown = sorted(stored, key=lambda r: r.created_at, reverse=True)
    if not everything:
        ended = [r for r in shown if r.status != "open"][:RECENT]
        shown = [r for r in shown if r.status == "open" or r in ended]
    if as_json:
        return json.dumps([_contract_row(record, now) for record in shown], indent=1)
    if not shown:
        return "no contracts"
    return "\n".join(
        f"{r.contract_id}  {_contract_row(r, now)['status']:<9} {r.root_category:<18} until {r.expires_at}  "
        + ", ".join(target.address for target in r.targets)
        for r in shown
    )


def _contract_row(record: ContractRecord, now: datetime) -> dict[str, object]:
    expired = record.status == "open" and now >= datetime.fromisoformat(record.expires_at)
    return {
        "contract_id": record.contract_id,
        "status": "expired" if expired else record.status,
        "root": record.root_category,
        "operations": list(record.operations),
        "targets": [target.address for target in record.targets],
        "created_at": record.created_at,
        "expires_at": record.expires_at,
        "closed_at": record.closed_at,
        "session_id": record.session_id,
        "renewed_from": record.renewed_from,
    }


def audit(  # noqa: PLR0913 - one parameter per command-line filter
    settings: Settings,
    *,
    contract: str | None,
    since: str | None,
    code: str | None,
    as_json: bool,
    verify: bool,
) -> tuple[str, int, list[str]]:
    """The audit rows that pass the filters (or the chain check); the exit status goes with it, and what to
    say on stderr (the rows that cannot be read)."""
    if verify:
        problems, count, gaps = checked(settings)
        if problems:
            return "\n".join(problems), 1, []
        return "\n".join([f"OK: {count} rows, chain intact", *gaps]), 0, []
    start = _since(since) if since else None
    try:
        stored, unread, evidence = _log(settings, contract)
    except Unshown as exc:
        return str(exc), exc.status, []
    rows = [
        (row, seqs)
        for row, seqs in one_per_call(stored)
        if (contract is None or row.entry.contract_id == contract)
        and (start is None or datetime.fromisoformat(row.entry.at) >= start)
        and (code is None or fnmatch.fnmatchcase(row.entry.code, code))
    ]
    # the rows that can be read are shown, and the exit status says some cannot (the last lines name them)
    status = 2 if unread else 0
    said = [f"ck3raven: audit row {n} cannot be read (edited or damaged); see audit --verify" for n in unread]
    if as_json:
        document = [_audit_json(row, seqs) for row, seqs in rows]
        text = json.dumps({"rows": document, "evidence": evidence} if contract else document, indent=1)
        return text, status, said
    lines = [_audit_line(row) for row, _ in rows] or ["no matching rows"]
    for kind, kept in evidence.items():
        compliance = kept.get("compliance", {})
        lines.append(
            f"{kind} evidence: outcome {compliance.get('outcome', '?')}, "
            f"ruleset {str(compliance.get('ruleset_hash', '?'))[:12]}, "
            f"{sum(len(s['added']) for s in compliance.get('symbols', []))} new symbols, "
            f"{len(compliance.get('nsts', []))} NSTs, {len(compliance.get('findings', []))} findings, "
            f"LXEs {compliance.get('lxes', [])}"
        )
    return "\n".join(lines), status, said


class Unshown(Exception):
    """What stops the audit view: its message, and the exit status that goes with it."""

    def __init__(self, message: str, status: int = 2) -> None:
        super().__init__(message)
        self.status = status


def _log(
    settings: Settings, contract: str | None
) -> tuple[list[AuditRow], list[int], dict[str, dict[str, Any]]]:
    """The stored rows, the numbers of those that cannot be read, and the evidence of `contract`'s close.
    Raises Unshown: no log yet, a database that cannot be read, a contract it never knew."""
    try:
        state = _state(settings)
        if state is None:
            raise Unshown("no audit log yet", 0)
        stored, unread = state.audit.read()
        known = contract is None or any(r.entry.contract_id == contract for r in stored)
        known = known or (contract is not None and state.contracts.get(contract) is not None)
        evidence = _close_evidence(state, contract) if contract else {}
    except (PortError, ValueError):
        database = settings.state_path(os.environ) / "ck3raven.db"
        raise Unshown(
            f"ck3raven: the state database {database} cannot be read: it is damaged or not one"
        ) from None
    if not known:
        raise Unshown(f"ck3raven: no contract {_shown(str(contract))} in the audit log or the contracts")
    return stored, unread, evidence


def _close_evidence(state: SqliteState, contract: str) -> dict[str, dict[str, Any]]:
    """The evidence of the contract's close, and of its last refused close, by kind."""
    found = {}
    for kind in ("close", "close-refused"):
        document = state.evidence.document(kind, contract)
        if document is not None:
            found[kind] = json.loads(document)
    return found


def _since(text: str) -> datetime:
    """An ISO 8601 time, or a span back from now: 30m, 12h, 7d."""
    span = re.fullmatch(r"(\d+)([mhd])", text)
    if span:
        unit = {"m": "minutes", "h": "hours", "d": "days"}[span.group(2)]
        return datetime.now(UTC) - timedelta(**{unit: int(span.group(1))})
    moment = datetime.fromisoformat(text)
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _audit_json(row: AuditRow, seqs: list[int]) -> dict[str, object]:
    entry = row.entry
    return {
        "seq": row.seq,
        "at": entry.at,
        "session_id": entry.session_id,
        "trace_id": entry.trace_id,
        "tool": entry.tool,
        "command": entry.command,
        "targets": list(entry.targets),
        "reply_type": entry.reply_type,
        "code": entry.code,
        "contract_id": entry.contract_id,
        "approval_id": entry.approval_id,
        "duration_ms": entry.duration_ms,
        "notes": list(entry.notes),
        "server_id": entry.server_id,
        "call": entry.call,
        "client": entry.client,
        "stage": entry.stage,
        "digest": row.digest,
        "rows": seqs,
    }


def _shown(text: str) -> str:
    """Text as a terminal may show it: control and format characters escaped."""
    return "".join(char if char.isprintable() else f"\\u{{{ord(char):04x}}}" for char in text)


def _audit_line(row: AuditRow) -> str:
    entry = row.entry
    what = f"{entry.tool} {entry.command or ''}".strip()
    extra = " ".join(filter(None, [entry.contract_id, entry.approval_id, *entry.notes]))
    targets = " ".join(entry.targets)
    outcome = f"{entry.reply_type} {entry.code:<15}" if entry.stage == "reply" else f"- {entry.stage:<15}"
    line = f"{row.seq:>6} {entry.at[:19]} {outcome} {what:<22} {targets} {extra}"
    return _shown(line)


def doctor(
    settings: Settings, config: Path | None, environ: Mapping[str, str], *, mountinfo: str | None = None
) -> tuple[list[str], int]:
    """One line per check, `OK` or `PROBLEM` with what to do, then `WARNING` lines; the exit status is 1
    when any check failed. `mountinfo` stands in for /proc/self/mountinfo."""
    state = settings.state_path(environ)
    roots = {root.value: path for root, path in settings.roots.items()}
    table = mounts.read_mountinfo() if mountinfo is None else mountinfo
    checks = [
        (True, f"config {config} is valid; roots exist and are disjoint"),
        _state_directory(state),
        doctor_checks.state_writable(state),
        doctor_checks.database(state),
        doctor_checks.store_takes_changes(state),
        doctor_checks.token_records(state, leak_gate(settings)),
        *doctor_checks.audit_chain(settings),
        _git(),
        *doctor_checks.repositories(settings),
        *doctor_checks.launcher_left_out(settings),
        _detected(settings),
        _windows_drives(roots, table),
        _server(state),
        _token(settings, state),
        _quarantine(settings),
        _self_test(settings),
    ]
    lines = [f"{'OK     ' if ok else 'PROBLEM'} {text}" for ok, text in checks]
    warning = repository_warning(roots)
    warnings = ([warning] if warning is not None else []) + placement_warnings(roots, state, table)
    lines += [f"WARNING {text}" for text in warnings + case_warnings(roots) + first_run_warnings(settings)]
    return lines, 0 if all(ok for ok, _ in checks) else 1


def first_run_warnings(settings: Settings) -> list[str]:
    """What leaves an agent blocked or blind at its first call: no mode (it can read nothing until a human
    approves one in a terminal), and, with a game configured, no active playset (it sees no mods)."""
    warnings = []
    if settings.mode is None:
        warnings.append(
            "no mode is set: an agent can read nothing until you approve the mode it asks for "
            '(set mode = "ck3lens" or "ck3raven-dev" in the config to start in one)'
        )
    if RootCategory.ROOT_GAME in settings.roots and settings.active_playset is None:
        warnings.append(
            "no active playset: an agent sees the game but no mod (`ck3raven playsets import` imports the "
            "launcher's; set [playset] active in the config)"
        )
    return warnings


def _state_directory(state: Path) -> tuple[bool, str]:
    if not state.exists():
        return True, f"state directory {state} will be made (0700) at the first start"
    mode = stat.S_IMODE(state.stat().st_mode)
    if mode & 0o077:
        return False, f"state directory {state} is {oct(mode)}: run `chmod 700 {state}`"
    return True, f"state directory {state} is private (0700)"


def _git() -> tuple[bool, str]:
    try:
        import dulwich  # noqa: PLC0415 - whether it imports is what this check asks
    except ImportError:  # pragma: no cover - a dependency of the package
        return False, "dulwich is missing: reinstall ck3raven"
    cli = shutil.which("git")
    return True, f"git history through dulwich {dulwich.__version__}" + (
        "" if cli else " (no git CLI: not needed)"
    )


def _detected(settings: Settings) -> tuple[bool, str]:
    wanted = ("ROOT_GAME", "ROOT_STEAM", "ROOT_USER_DOCS")
    missing = [name for name in wanted if name not in {root.value for root in settings.roots}]
    if missing:
        return True, f"not configured: {', '.join(missing)} (`ck3raven init` looks for them)"
    return True, "CK3 folders configured: " + ", ".join(wanted)


def _windows_drives(roots: Mapping[str, Path], mountinfo: str) -> tuple[bool, str]:
    table = mounts.parse(mountinfo)
    on_drives = {name: mounts.windows_drive(path.resolve(), table) for name, path in roots.items()}
    named = [f"{name} ({drive.point})" for name, drive in on_drives.items() if drive is not None]
    if not named:
        return True, "no root lies on a Windows drive"
    return True, (
        f"on Windows drives (WSL): {', '.join(named)}; many small files read slower there than on the "
        "distro's own disk"
    )


def _server(state: Path) -> tuple[bool, str]:
    servers = running(state)
    if not servers:
        return True, "no server runs on this state directory"
    named = ", ".join(f"pid {server.get('pid')} ({server.get('transport')})" for server in servers)
    return True, f"{len(servers)} server(s) run on it: {named}"


def _token(settings: Settings, state: Path) -> tuple[bool, str]:
    token = state / "http_token"
    if settings.http.token is not None:
        return True, "http token: set in the config"
    if token.is_file():
        return True, f"http token: {token.read_text(encoding='utf-8').strip()} (in {token})"
    return True, f"http token: made at the next `serve --transport http`, kept in {token}"


def _quarantine(settings: Settings) -> tuple[bool, str]:
    try:
        state = _state(settings)
        found = state.quarantined() if state else []
    except PortError:
        return False, "quarantined state records: the state database cannot be read"
    if not found:
        return True, "no state record is quarantined"
    names = ", ".join(f"{record_id} ({reason})" for _, record_id, reason in found)
    return False, f"{len(found)} unreadable state records were set aside and are ignored: {names}"


def _self_test(settings: Settings) -> tuple[bool, str]:
    """One `ck3_dir pwd` through the real server and middleware, over an in-memory state."""
    configure_logging(None, level=logging.WARNING)  # the call's log line is not part of the report

    async def call() -> dict[str, object]:
        core = build_core(settings, stored=MemoryState())
        async with Client(build(settings, core=core)) as client:
            result = await client.call_tool("ck3_dir", {"command": "pwd"}, raise_on_error=False)
        return dict(result.structured_content or {})

    try:
        answer = anyio.run(call)
    except Exception as exc:  # noqa: BLE001 - the operator is told what failed, whatever it was
        return False, f"self-test: the server could not answer ({type(exc).__name__}: {exc})"
    if answer.get("code") != "MCP-CFG-S-001":
        return False, f"self-test: pwd answered {answer.get('code')}, expected MCP-CFG-S-001"
    return True, f"self-test: pwd answered {answer.get('code')} through the real server"
