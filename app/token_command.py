"""`ck3raven token add NAME | list | revoke NAME`: the clients' own HTTP tokens (SPEC §10). A token is shown
once, when it is made; only its hash is kept, in the state database."""

import argparse
import os
import sys
from collections.abc import Callable

from adapters.client_tokens import ClientTokens
from adapters.sqlite_state import SqliteState
from app.config import ConfigError, Settings
from ports.errors import PortError


def run(args: argparse.Namespace, settings_from: Callable[[argparse.Namespace], Settings]) -> int:
    """The command's exit status: 0 done, 1 refused (a name in use, no such client), 2 cannot start."""
    if args.action != "list" and not args.name:
        print(f"ck3raven: token {args.action} needs the client's NAME", file=sys.stderr)
        return 2
    try:
        settings = settings_from(args)
        state = SqliteState(settings.state_path(os.environ) / "ck3raven.db")
    except (ConfigError, PortError) as exc:
        print(f"ck3raven: {exc}", file=sys.stderr)
        return 2
    try:
        return _act(ClientTokens(state), args.action, args.name)
    except ValueError as exc:
        print(f"ck3raven: {exc}", file=sys.stderr)
        return 1
    except PortError as exc:
        print(f"ck3raven: {exc}", file=sys.stderr)
        return 2
    finally:
        state.close()


def _act(tokens: ClientTokens, action: str, name: str | None) -> int:
    if action == "add" and name:
        made = tokens.add(name)
        print(f"{name}: {made}")
        print("(shown once: only its hash is kept; `ck3raven token revoke NAME` ends it)")
        return 0
    if action == "revoke" and name:
        if not tokens.revoke(name):
            print(f"ck3raven: no live client named {name!r}", file=sys.stderr)
            return 1
        print(f"{name}: revoked")
        return 0
    rows = tokens.listed()
    for client, made_at, revoked in rows:
        print(f"{client:<24} made {made_at[:19]}" + (f"  revoked {revoked[:19]}" if revoked else ""))
    if not rows:
        print("no client tokens")
    return 0
