"""`ck3raven doctor`'s checks of what `serve` needs and what close reads: a state directory it can write, a
state database it can read and write (and that no other process holds locked), an audit chain that holds,
token records every reply can show, and every repository close would use (each root's and each mod
folder's own) with a readable HEAD and index.

Each check is one line, `(ok, text)`; nothing here raises, and nothing is changed.
"""

import json
import os
import sqlite3
from contextlib import closing
from pathlib import Path

from adapters.audit_anchors import read_anchors
from adapters.json_playsets import JsonPlaysets
from adapters.launcher_db import SqliteLauncher
from adapters.lazy_history import LazyHistory
from adapters.local_files import LocalFiles
from adapters.server_lock import running
from adapters.sqlite_state import SqliteState
from app.bootstrap import active_mods
from app.config import ConfigError, Settings
from domain.compliance import tokens
from domain.leaks import LeakGate
from domain.world.playsets import ModFolder
from ports.errors import PortError

Check = tuple[bool, str]


def state_writable(state: Path) -> Check:
    """The state directory (and its server, log and database files) can be written, as `serve` must."""
    if not state.exists():
        parent = next((p for p in state.parents if p.exists()), None)
        if parent is None or not os.access(parent, os.W_OK | os.X_OK):
            return False, f"state directory {state} cannot be made: {parent} is not writable"
        return True, f"state directory {state} can be made: {parent} is writable"
    places: tuple[Path, ...] = (state, state / "servers", state / "logs", state / "logs" / "ck3raven.log")
    places += tuple(state / name for name in ("ck3raven.db", "ck3raven.db-wal", "ck3raven.db-shm"))
    unwritable = [str(place) for place in places if place.exists() and not os.access(place, os.W_OK)]
    if unwritable:
        return False, f"not writable, so `serve` stops: {', '.join(unwritable)}"
    return True, f"state directory {state} is writable"


def database(state: Path) -> Check:
    """The state database opens, is one, and passes SQLite's quick check."""
    path = state / "ck3raven.db"
    if not path.exists():
        return True, "no state database yet: it is made at the first start"
    try:
        opened = SqliteState(path, read_only=True)
    except PortError:
        return False, f"state database {path} cannot be read: it is damaged or not a database"
    try:
        found = opened.execute("PRAGMA quick_check")
    except PortError:
        return False, f"state database {path} cannot be read: it is damaged or not a database"
    finally:
        opened.close()
    if [str(row[0]) for row in found] != ["ok"]:
        return False, f"state database {path} is damaged: {found[0][0]}"
    return True, f"state database {path} reads"


LOCK_WAIT = 1.0
"""How long doctor waits for the state database's write lock before it says another process holds it."""


def store_takes_changes(state: Path, wait: float = LOCK_WAIT) -> Check:
    """The state database can take a change now: no other process (a backup, a `sqlite3` shell) holds its
    write lock, which makes every governed change wait for it and then be refused. Taken and let go at
    once: nothing is written."""
    path = state / "ck3raven.db"
    if not path.exists():
        return True, "no state database yet: nothing can hold it locked"
    try:
        with closing(sqlite3.connect(path, timeout=wait, isolation_level=None)) as db:
            db.execute("BEGIN IMMEDIATE")
            db.execute("ROLLBACK")
    except sqlite3.Error as exc:
        return False, (
            f"state database {path} cannot take a change ({exc}): while another process holds it locked, "
            "every governed change waits and is then refused; end that process (or its transaction)"
        )
    return True, f"state database {path} takes changes: no other process holds it locked"


def repositories(settings: Settings) -> list[Check]:
    """Every repository close would use, each root's and each enabled mod folder's: HEAD and index read."""
    roots = {root.value: path for root, path in settings.roots.items()}
    history = LazyHistory(roots)
    places: dict[tuple[str, tuple[str, ...]], str] = {(root, ()): f"{root}:/" for root in roots}
    try:
        for mod in _mods(settings):
            places[(mod.root.value, mod.parts)] = f"mod:{mod.name}:/"
    except (ConfigError, PortError, OSError) as exc:
        return [(False, f"the active playset cannot be read: {exc}")]
    checks: list[Check] = _began_on(settings, history)
    seen: set[tuple[str, tuple[str, ...]]] = set()
    for (root, folder), name in places.items():
        try:
            top = history.repository(root, folder)
            if top is None or (root, top) in seen:
                continue
            seen.add((root, top))
            history.head(root, folder)
            history.staged(root, folder)
            history.log(root, 1, folder)
        except (PortError, sqlite3.Error, OSError):
            checks.append((False, f"the git repository of {name} cannot be read (HEAD or index damaged)"))
            continue
        checks.append((True, f"the git repository of {name} reads (HEAD and index)"))
    return checks


def _began_on(settings: Settings, history: LazyHistory) -> list[Check]:
    """A repository an open contract's baseline began on that is no repository now (its `.git` removed):
    close would compare against history that is gone."""
    path = settings.state_path(os.environ) / "ck3raven.db"
    if not path.is_file():
        return []
    try:
        state = SqliteState(path, read_only=True)
    except PortError:
        return []  # named by the database check
    checks: list[Check] = []
    try:
        for record in state.contracts.all():
            document = state.evidence.document("baseline", record.baseline_sha or "")
            if record.status != "open" or document is None:
                continue
            for top, _ in json.loads(document).get("repositories", []):
                parts = tuple(str(top).split("/")) if top else ()
                if history.repository(record.root_category, parts) != parts:
                    where = f"{record.root_category}:/{top} (contract {record.contract_id} began on it)"
                    checks.append((False, f"the git repository at {where} is gone"))
    except (PortError, ValueError, AttributeError, TypeError):
        return [(False, "the baselines of open contracts cannot be read from the state database")]
    finally:
        state.close()
    return checks


def launcher_left_out(settings: Settings) -> list[Check]:
    """A PROBLEM for each enabled mod of the launcher's playset named as the active one (else the launcher's
    active playset) whose folder lies in no configured root: `playsets import` left it out, so the agent
    never sees it though the game loads it."""

    roots = {root.value: path for root, path in settings.roots.items()}
    try:
        state = SqliteLauncher(roots, LocalFiles(roots)).read()
    except PortError:
        return [(False, "the launcher database cannot be read")]
    if state is None:
        return []
    named = [p for p in state.playsets if p.name == settings.active_playset]
    playset = next(iter(named or [p for p in state.playsets if p.active]), None)
    if playset is None:
        return []
    return [
        (
            False,
            (
                f"the launcher's playset {playset.name!r} has the mod {mod.name!r}, whose folder lies in no "
                "configured root: the import left it out; give its folder's root with `ck3raven init` "
                "(--documents, --steam) and run `ck3raven playsets import` again"
            ),
        )
        for mod in playset.mods
        if mod.enabled and mod.folder is None
    ]


def _mods(settings: Settings) -> list[ModFolder]:
    if settings.active_playset is None:
        return []
    files = LocalFiles({root.value: path for root, path in settings.roots.items()})
    return list(active_mods(JsonPlaysets(files), settings.active_playset))


def audit_chain(settings: Settings) -> list[Check]:
    """The audit chain, one line per problem (`ck3raven audit --verify`'s), and the crash gaps not yet
    recorded (no problem: the next server to start records them)."""
    problems, count, gaps = checked(settings)
    if problems:
        return [(False, f"audit log: {problem}") for problem in problems]
    return [(True, f"audit log: {count} rows, chain intact"), *((True, f"audit log: {g}") for g in gaps)]


def verified(settings: Settings) -> tuple[list[str], int]:
    """What is wrong with the audit chain, one line each, and how many rows it holds (see `checked`)."""
    problems, count, _ = checked(settings)
    return problems, count


def checked(settings: Settings) -> tuple[list[str], int, list[str]]:
    """What is wrong with the audit chain, one line each, how many rows it holds, and the crash gaps it
    holds that no row records yet. Problems: edited or missing rows, calls of a running server that left no
    row, and what the anchors in the servers' logs say of the database (gone, replaced, rolled back,
    rewritten). The calls a server that no longer runs left without a row, while the chain holds, are a
    crash's gap (the server was killed before writing them, and a deleted or changed row would break the
    chain): named, not failed; the next server to start records them as a row of the log. Nothing is
    written here: a check never changes what it checks, and works on a store another process holds."""
    folder = settings.state_path(os.environ)
    anchors = read_anchors(folder / "logs")
    try:
        database = folder / "ck3raven.db"
        state = SqliteState(database, read_only=True) if database.is_file() else None
    except PortError:
        return (
            [f"the state database {folder / 'ck3raven.db'} cannot be read: it is damaged or not one"],
            0,
            [],
        )
    if state is None:
        written = max((seq for seq, _, _ in anchors), default=0)
        if written:
            return (
                [f"the state database is missing: the log anchored {written} audit rows written to it"],
                0,
                [],
            )
        return [], 0, []
    live = {str(server.get("server_id")) for server in running(folder)}

    def ended(server_id: str) -> bool:
        return server_id not in live

    try:
        problems = state.audit.verify(ended) + state.audit.against(anchors)
        gaps = [] if problems else state.audit.crash_gaps(ended)
        return problems, len(state.audit.rows()), gaps
    except PortError:
        return (
            [f"the state database {folder / 'ck3raven.db'} cannot be read: it is damaged or not one"],
            0,
            [],
        )
    finally:
        state.close()


def token_records(state: Path, leaks: LeakGate) -> Check:
    """The NST and removal records kept in the state database that no longer pass the screen of names the
    door applies (stored before it did, or written by hand): replies skip them; named here by contract and
    row, never by their text."""
    path = state / "ck3raven.db"
    if not path.exists():
        return True, "no state database yet: no token record to screen"
    try:
        opened = SqliteState(path, read_only=True)
        try:
            rows = opened.execute(
                "SELECT kind, name, document FROM evidence WHERE kind IN ('nst', 'removal')"
            )
        finally:
            opened.close()
    except PortError:
        return False, f"token records: state database {path} cannot be read"
    skipped = [
        f"{kind} of {contract_id} row {row}"
        for kind, contract_id, document in sorted(rows)
        for row in _unfit(str(kind), str(document), leaks)
    ]
    if skipped:
        return False, (
            f"{len(skipped)} stored token rows no longer pass the screen of names and are skipped by every "
            f"reply: {', '.join(skipped)}; declare them again in words the screen takes"
        )
    return True, "every stored token record passes the screen of names"


def _unfit(kind: str, document: str, leaks: LeakGate) -> list[int]:
    """The positions of the rows of one token record that no longer pass the screen."""
    try:
        rows = json.loads(document).get("nsts" if kind == "nst" else "removals")
    except (ValueError, AttributeError, RecursionError):
        return []
    if not isinstance(rows, list):
        return []
    return [number for number, row in enumerate(rows) if not _fit(kind, row, leaks)]


def _fit(kind: str, row: object, leaks: LeakGate) -> bool:
    if not isinstance(row, dict):
        return False
    if kind == "nst":
        return tokens.nst_shown(leaks, tokens.Nst(str(row.get("name")), None, str(row.get("reason"))))
    removal = tokens.Removal(str(row.get("key")), str(row.get("kind")), str(row.get("address")))
    return tokens.removal_shown(leaks, removal)
