"""`ck3raven approvals | approve [ID] | decline [ID]`: the human's side of an approval (SPEC §9), asked of
every live server of the config's state directory over its approval channel; a decision is typed on a
terminal and goes to the server that asked it, whose key alone can sign it."""

import argparse
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from adapters.server_lock import running
from adapters.unix_approval_channel import ask
from app.config import ConfigError, Settings

SettingsFrom = Callable[[argparse.Namespace], Settings]


def _sockets(args: argparse.Namespace, settings_from: SettingsFrom) -> list[Path] | None:
    """The approval sockets of every live server of the config's state directory (None: no config)."""
    try:
        settings = settings_from(args)
    except ConfigError as exc:
        print(f"ck3raven: {exc}", file=sys.stderr)
        return None
    return [Path(str(server["socket"])) for server in running(settings.state_path(os.environ))]


def _ask(path: Path, request: dict[str, object]) -> dict[str, object] | None:
    try:
        return ask(path, request)
    except OSError:
        return None


def _pending(
    args: argparse.Namespace, settings_from: SettingsFrom
) -> list[tuple[Path, dict[str, Any]]] | None:
    """Every pending request of every live server, with the socket of the server that asked it."""
    sockets = _sockets(args, settings_from)
    if sockets is None:
        return None
    answers = [(path, _ask(path, {"op": "list"})) for path in sockets]
    if not any(answer is not None for _, answer in answers):
        print("ck3raven: no running server answers on its approval channel", file=sys.stderr)
        return None
    return [
        (path, record)
        for path, answer in answers
        for record in (answer or {}).get("pending") or []  # type: ignore[attr-defined]
        if isinstance(record, dict)
    ]


def listing(args: argparse.Namespace, settings_from: SettingsFrom) -> int:
    """`ck3raven approvals`: every pending request of every live server; exit 2 when none can be asked."""
    pending = _pending(args, settings_from)
    if pending is None:
        return 2
    for _, record in pending:
        print(
            f"{record['approval_id']}  {record['kind']:<8} until {record['expires_at']}  {record['summary']}"
        )
    if not pending:
        print("no pending approvals")
    return 0


def decide(args: argparse.Namespace, settings_from: SettingsFrom, *, approve: bool) -> int:
    """`ck3raven approve|decline [ID]`: one pending request decided, typed on a terminal, by the server that
    asked it; exit 0 decided, 1 not decided, 2 cannot ask."""
    pending = _pending(args, settings_from)
    if pending is None:
        return 2
    chosen = [(p, r) for p, r in pending if r["approval_id"] == args.id] if args.id else pending
    if len(chosen) != 1:
        print("ck3raven: name one pending approval (see: ck3raven approvals)", file=sys.stderr)
        return 1
    path, record = chosen[0]  # the server that asked: only its key can decide it
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        print("ck3raven: a decision must be typed on a terminal", file=sys.stderr)
        return 2
    word = "approve" if approve else "decline"
    print(f"{record['approval_id']} ({record['kind']}), until {record['expires_at']}:\n  {record['summary']}")
    if input(f'Type "{word}" to {word} it: ').strip() != word:
        print("nothing decided")
        return 1
    answer = _ask(path, {"op": "decide", "id": record["approval_id"], "approve": approve})
    if not answer or not answer.get("ok"):
        why = (answer or {}).get("problem") or "expired or already decided"
        print(f"ck3raven: the request could not be decided ({why})", file=sys.stderr)
        return 1
    print(f"{record['approval_id']}: {answer['state']}")
    return 0
