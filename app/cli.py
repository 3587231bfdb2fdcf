"""The operator's command line: `ck3raven serve|codes`.

Each command imports only what it needs, so `ck3raven codes` never pays for the MCP stack and `serve`
reaches its first answer quickly.
"""

import argparse
import contextlib
import errno
import json
import logging
import os
import signal
import socket
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn, Protocol

from app.config import MAX_PORT, ConfigError, Settings, config_path, load
from domain.replies.registry import REGISTRY
from domain.vocabulary import Mode, RootCategory
from ports.errors import PortError

EXIT_GRACE = 2.0
"""Seconds a stdio server's exit may take to flush its streams before it ends regardless."""


def main(argv: Sequence[str] | None = None) -> int:
    """Run one operator command; the return value is the process exit status."""
    args = _parser().parse_args(argv)
    handler = {
        "serve": _serve,
        "codes": _codes,
        "policy": _policy,
        "approvals": _approvals,
        "approve": _approve,
        "decline": _decline,
        "init": _init,
        "doctor": _doctor,
        "contracts": _contracts,
        "audit": _audit,
        "playsets": _playsets,
        "token": _token,
    }[args.command]
    return handler(args)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="ck3raven", description="A governed MCP server for file work.")
    commands = parser.add_subparsers(dest="command", required=True)
    serve = commands.add_parser("serve", help="run the MCP server (stdio by default)")
    serve.add_argument(
        "--config", help="a TOML config file (default: $CK3RAVEN_CONFIG, ~/.ck3raven/config.toml)"
    )
    serve.add_argument("--mode", choices=[m.value for m in Mode], help="initialise this mode at start")
    serve.add_argument("--home", choices=[r.value for r in RootCategory], help="the session home root")
    serve.add_argument("--read-only", action="store_true", help="offer only tools that cannot change a file")
    serve.add_argument("--transport", choices=["stdio", "http"], default="stdio")
    serve.add_argument("--port", type=int, help="port for --transport http (default: [http] port, 8765)")
    commands.add_parser("policy", help="print the capability matrix (who may mutate what, on what condition)")
    doctor = commands.add_parser(
        "doctor", help="check the config, state directory, git, server, and one call"
    )
    doctor.add_argument("--config", help="the config to look at")
    listed = commands.add_parser(
        "contracts", help="open and recent contracts, with targets, status and expiry"
    )
    listed.add_argument("--config", help="the config the server runs with")
    listed.add_argument("--all", action="store_true", help="every stored contract")
    listed.add_argument("--json", action="store_true", help="JSON instead of lines")
    trail = commands.add_parser("audit", help="the audit log: one row per tool call")
    trail.add_argument("--config", help="the config the server runs with")
    trail.add_argument("--contract", help="only rows of this contract")
    trail.add_argument("--since", help="only rows since WHEN (ISO 8601, or 30m, 12h, 7d)")
    trail.add_argument("--code", help="only codes matching PATTERN (e.g. 'EN-*')")
    trail.add_argument("--json", action="store_true", help="JSON instead of lines")
    trail.add_argument(
        "--verify", action="store_true", help="check the hash chain instead (exit 1 if broken)"
    )
    listing = commands.add_parser(
        "approvals", help="list the approval requests a running server is waiting on"
    )
    listing.add_argument("--config", help="the config the server runs with")
    for verb in ("approve", "decline"):
        decision = commands.add_parser(
            verb, help=f"{verb} a pending request (asks you to confirm on a terminal)"
        )
        decision.add_argument("id", nargs="?", help="the approval id (default: the only pending one)")
        decision.add_argument("--config", help="the config the server runs with")
    init = commands.add_parser("init", help="write a config from what is found here, or for the sample world")
    init.add_argument(
        "--sample", metavar="DIR", help="copy the sample world into DIR and write DIR/config.toml"
    )
    init.add_argument("--config", help="where to write (default: ~/.ck3raven/config.toml)")
    init.add_argument("--repo", help="a code repository folder to serve as ROOT_REPO")
    init.add_argument("--mode", choices=[m.value for m in Mode], help="the mode the server starts in")
    init.add_argument("--force", action="store_true", help="replace an existing config")
    playsets = commands.add_parser("playsets", help="the launcher's playsets, written as ck3raven playsets")
    playsets.add_argument(
        "action", choices=["import"], help="import: read launcher-v2.sqlite, write ck3raven playsets"
    )
    playsets.add_argument("--config", help="the config the server runs with")
    playsets.add_argument("--name", help="only the launcher playset of this name")
    token = commands.add_parser("token", help="per-client HTTP tokens: add NAME, list, revoke NAME")
    token.add_argument("action", choices=["add", "list", "revoke"])
    token.add_argument("name", nargs="?", help="the client's name (add, revoke)")
    token.add_argument("--config", help="the config the server runs with")
    codes = commands.add_parser("codes", help="print the reply-code registry")
    codes.add_argument("--format", choices=["table", "json", "markdown"], default="table")
    return parser


def settings_from(args: argparse.Namespace) -> Settings:
    """The checked settings for a `serve` invocation (or any command that names a config)."""
    settings = load(config_path(args.config, os.environ), cwd=Path.cwd())
    if getattr(args, "mode", None):
        settings = settings.with_mode(Mode(args.mode))
    if getattr(args, "read_only", False):
        settings = settings.with_read_only()
    if getattr(args, "home", None):
        settings = settings.with_home(RootCategory(args.home))
    return settings


class _Closes(Protocol):
    """What the server keeps to close before it exits (the log sink: its queue is drained on close)."""

    def close(self) -> None: ...


def _serve(args: argparse.Namespace) -> int:
    try:
        settings = settings_from(args)
        settings.state_path(os.environ).expanduser()
    except ConfigError as exc:
        print(f"ck3raven: {exc}", file=sys.stderr)
        return 2
    except RuntimeError:  # Path.expanduser: no HOME and no password entry to stand in for it
        print(
            "ck3raven: HOME is not set: set it, or give --config and state_dir as full paths", file=sys.stderr
        )
        return 2
    # FastMCP reads these at import: no banner, no network update check, plain stderr records.
    os.environ.setdefault("FASTMCP_SHOW_SERVER_BANNER", "false")
    os.environ.setdefault("FASTMCP_CHECK_FOR_UPDATES", "off")
    os.environ.setdefault("FASTMCP_ENABLE_RICH_LOGGING", "false")
    from adapters.server_lock import ServerLock
    from app.bootstrap import state_folder

    state = state_folder(settings)
    lock = ServerLock(state)
    port = args.port or settings.http.port
    listener = _listener(settings.http.host, port) if args.transport == "http" else None
    if args.transport == "http" and listener is None:
        return 2
    try:
        lock.acquire(f"http {settings.http.host}:{port}" if args.transport == "http" else "stdio")
    except OSError as exc:
        print(f"ck3raven: the state directory {state} cannot be used ({exc.strerror})", file=sys.stderr)
        return 2
    # SIGTERM ends the server as Ctrl-C does: through the finally blocks (socket, token, lock cleaned up)
    signal.signal(signal.SIGTERM, _terminate)
    sinks: list[_Closes] = []
    try:
        status = _serve_locked(args, settings, (state, lock.socket, listener), sinks)
    finally:
        lock.release()
    if sinks:  # logging was set up: the log says how the server ended
        import structlog

        structlog.get_logger().info("server.stopped", status=status)
    if args.transport == "stdio":
        _exit_at_once(status, sinks)
    return status


def _listener(host: str, port: int) -> socket.socket | None:
    """The HTTP port, bound before anything is printed (None, said in one line, when it cannot be)."""
    if not 1 <= port <= MAX_PORT:
        print(f"ck3raven: port {port} is not a port (1 to {MAX_PORT})", file=sys.stderr)
        return None
    bound = socket.socket(_family(host), socket.SOCK_STREAM)
    try:
        bound.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        bound.bind((host, port))  # listened on once the server is ready: no connection before then
    except OSError as exc:
        bound.close()
        reason = "in use" if exc.errno == errno.EADDRINUSE else exc.strerror
        print(f"ck3raven: cannot listen on {host}:{port} ({reason})", file=sys.stderr)
        return None
    return bound


def _family(host: str) -> socket.AddressFamily:
    return socket.AF_INET6 if ":" in host else socket.AF_INET


def _exit_at_once(status: int, sinks: list[_Closes]) -> NoReturn:
    """End a stdio server as soon as its own cleanup is done: the interpreter's teardown of a few thousand
    modules takes seconds on a busy machine, and stdio clients kill a server that has not exited two
    seconds after they closed its input. Every write is already durable; the log's queue is drained and
    its file closed, and the streams are flushed."""
    watchdog = threading.Timer(EXIT_GRACE, os._exit, (status,))  # a blocked stderr never holds the exit
    watchdog.daemon = True
    watchdog.start()
    logging.shutdown()
    for sink in sinks:
        sink.close()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(status)


def _terminate(_signum: int, _frame: object) -> None:
    raise SystemExit(0)


def _serve_locked(
    args: argparse.Namespace,
    settings: Settings,
    places: tuple[Path, Path, socket.socket | None],
    sinks: list[_Closes],
) -> int:
    """Serve, once registered: `places` are the state directory, this server's approval socket and, over
    HTTP, its bound port."""
    import structlog

    from adapters.call_facts import ServerCalls
    from adapters.log_setup import configure_logging, report_crashes
    from app.bootstrap import (
        approval_channel,
        approve_command,
        build,
        build_core,
        client_tokens,
        http_app,
        http_token,
        sweep_in_background,
    )

    state, approvals, listener = places
    log_file = state / "logs" / "ck3raven.log"
    try:
        _rotate(log_file, settings)
        sinks.append(configure_logging(log_file))
        report_crashes(log_file)
    except OSError as exc:
        print(f"ck3raven: the log file {log_file} cannot be written ({exc.strerror})", file=sys.stderr)
        return 2
    lost = _lost_database(state)
    try:
        core = build_core(settings, approve_command=approve_command(settings, _approve_command(args)))
        token, made_token = http_token(settings) if args.transport == "http" else (None, False)
    except (ConfigError, PortError, OSError) as exc:  # one line naming the problem, never a traceback
        print(f"ck3raven: cannot start: {exc}", file=sys.stderr)
        return 2
    _after_start(settings, core, lost)
    if not settings.read_only:  # a read-only server removes nothing, not even a write's leftovers
        sweep_in_background(core)
    calls = ServerCalls()
    server = build(settings, core=core, token=token, calls=calls, clients=client_tokens(core))
    anchors = _anchors(core.services.audit, calls.server_id)
    channel = approval_channel(approvals, core)
    try:
        channel.start()
        started = True
    except OSError:
        # No channel, no approvals: requests that need a human stay refused (fail closed).
        structlog.get_logger().exception("approvals.channel_unavailable")
        started = False
    try:
        if args.transport == "http":
            import uvicorn

            host, port = settings.http.host, args.port or settings.http.port
            print(
                f"ck3raven: MCP over HTTP at http://{host}:{port}/mcp; clients send the header "
                f"`Authorization: Bearer {token}` (kept in {state / 'http_token'})",
                file=sys.stderr,
            )
            config = uvicorn.Config(http_app(settings, server), log_level="warning", log_config=None)
            uvicorn.Server(config).run(sockets=[listener] if listener is not None else None)
        else:
            import anyio

            from adapters.stdio_drain import serve_stdio

            anyio.run(serve_stdio, server)
    finally:
        anchors.stop()
        if started:
            channel.close()
        if made_token:  # a token made for this run ends with it
            (state / "http_token").unlink(missing_ok=True)
    return 0


def _after_start(settings: Settings, core: object, lost: int | None) -> None:
    """Say that the state database was found missing, and prune what retention lets go."""
    _report_lost(lost)
    _prune_in_background(settings, core)


def _rotate(log_file: Path, settings: Settings) -> None:
    from app.retention import rotate

    rotate(log_file, settings.retention)


def _prune_in_background(settings: Settings, core: object) -> None:
    """Prune audit rows and evidence past their days, off the request path (SQLite state only)."""
    from adapters.sqlite_state import SqliteState
    from app.retention import prune

    stores = getattr(getattr(core, "services", None), "transactions", None)
    if isinstance(stores, SqliteState) and not settings.read_only:
        threading.Thread(
            target=prune, args=(settings.retention, stores), name="ck3raven-retention", daemon=True
        ).start()


def _report_lost(lost: int | None) -> None:
    """Say that the state database was found missing (never a silent fresh start)."""
    if lost is None:
        return
    import structlog

    structlog.get_logger().error("state.database_missing", last_anchored_row=lost)
    print(
        f"ck3raven: the state database was missing: its audit log (row {lost} anchored in the log) and "
        "its records are lost; a new one was started (`ck3raven audit --verify` reports it)",
        file=sys.stderr,
    )


class _Stops(Protocol):
    def stop(self) -> None: ...


def _anchors(audit: object, server_id: str) -> _Stops:
    """The audit head's anchors in the log for this server, started (none for a store without a head)."""
    from adapters.audit_anchors import Anchors
    from adapters.sqlite_audit import SqliteAudit

    anchors = Anchors(audit if isinstance(audit, SqliteAudit) else None, server_id)
    anchors.start()
    return anchors


def _lost_database(state: Path) -> int | None:
    """The last row the log anchored, when the state database is gone though servers wrote rows to it."""
    from adapters.audit_anchors import read_anchors

    if (state / "ck3raven.db").exists():
        return None
    rows = [seq for seq, _, _ in read_anchors(state / "logs")]
    return max(rows) if rows and max(rows) > 0 else None


def _approve_command(args: argparse.Namespace) -> str:
    """The exact command a person runs to approve, as this server was started: the executable's full path
    and the config file it read."""
    executable = _executable()
    found = config_path(args.config, os.environ)
    config = f" --config {found.resolve()}" if found is not None else ""
    return f"{executable} approve {{id}}{config}"


def _sockets(args: argparse.Namespace) -> list[Path] | None:
    """The approval sockets of every live server of the config's state directory (None: no config)."""
    from adapters.server_lock import running

    try:
        settings = settings_from(args)
    except ConfigError as exc:
        print(f"ck3raven: {exc}", file=sys.stderr)
        return None
    return [Path(str(server["socket"])) for server in running(settings.state_path(os.environ))]


def _ask(path: Path, request: dict[str, object]) -> dict[str, object] | None:
    from adapters.unix_approval_channel import ask

    try:
        return ask(path, request)
    except OSError:
        return None


def _pending(args: argparse.Namespace) -> list[tuple[Path, dict[str, Any]]] | None:
    """Every pending request of every live server, with the socket of the server that asked it."""
    sockets = _sockets(args)
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


def _approvals(args: argparse.Namespace) -> int:
    pending = _pending(args)
    if pending is None:
        return 2
    for _, record in pending:
        print(
            f"{record['approval_id']}  {record['kind']:<8} until {record['expires_at']}  {record['summary']}"
        )
    if not pending:
        print("no pending approvals")
    return 0


def _approve(args: argparse.Namespace) -> int:
    return _decide(args, approve=True)


def _decline(args: argparse.Namespace) -> int:
    return _decide(args, approve=False)


def _decide(args: argparse.Namespace, *, approve: bool) -> int:
    pending = _pending(args)
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
        print("ck3raven: the request could not be decided (expired or already decided)", file=sys.stderr)
        return 1
    print(f"{record['approval_id']}: {answer['state']}")
    return 0


def _init(args: argparse.Namespace) -> int:
    from app import setup

    after: list[str] = []
    try:
        if args.sample:
            config = setup.sample(Path(args.sample).expanduser().resolve())
        else:
            config, after = _init_detected(args)
    except (ConfigError, OSError) as exc:
        print(f"ck3raven: {exc}", file=sys.stderr)
        return 2
    print("\n".join([f"wrote {config}", f"serve it with: ck3raven serve --config {config}", *after]))
    return 0


def _init_detected(args: argparse.Namespace) -> tuple[Path, list[str]]:
    """Write the config from what is found here; the lines to print after saying where it went."""
    import platform

    from app import setup
    from app.detection import detect, platform_name
    from app.mounts import read_mountinfo

    target = Path(args.config or "~/.ck3raven/config.toml").expanduser().resolve()
    if target.exists() and not args.force:
        raise ConfigError(f"{target} exists; pass --force to replace it")
    distro = os.environ.get("WSL_DISTRO_NAME")
    where = platform_name(sys.platform, platform.release(), distro=distro)
    found = detect(Path.home(), os.environ, where, wsl_conf=_text_of(Path("/etc/wsl.conf")))
    for line in (*found.found, *(f"not found: {line}" for line in found.missing)):
        print(line)
    data = target.parent / "data"
    data.mkdir(parents=True, exist_ok=True)
    roots = {**found.roots, "ROOT_CK3RAVEN_DATA": data}
    if args.repo:
        roots["ROOT_REPO"] = Path(args.repo).expanduser().resolve()
    state = Settings("init", {}, RootCategory.ROOT_REPO).state_path(os.environ)
    warning = setup.repository_warning(roots)
    warnings = ([warning] if warning is not None else []) + setup.case_warnings(roots)
    warnings += setup.placement_warnings(roots, state, read_mountinfo())
    for text in warnings:
        print(f"warning: {text}")
    setup.write_checked(target, setup.config_text(roots, state_dir=state, mode=args.mode, playset=None))
    return target, [setup.windows_clients(_executable(), target, distro)] if where == "wsl" else []


def _text_of(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def _executable() -> Path:
    """This command's own executable, as a full path (what a client is to start)."""
    return Path(sys.argv[0]).resolve() if sys.argv and sys.argv[0] else Path("ck3raven")


def _codes(args: argparse.Namespace) -> int:
    print(render_codes(args.format))
    return 0


_TAILS = {"exact": "", "playset-local-mod": "/<local mod of the playset>/...", "below": "/..."}


def _policy(_: argparse.Namespace) -> int:
    print(render_policy())
    return 0


def render_policy() -> str:
    """The capability matrix as a table; anything not listed may not be mutated."""
    from domain.policy.capabilities import MATRIX

    header = f"{'mode':<13} {'target':<52} {'WRITE':<24} {'DELETE':<9} rule"
    lines = [header, "-" * len(header)]
    for row in MATRIX:
        tail = _TAILS[row.scope.value] if row.prefix else _TAILS[row.scope.value].lstrip("/")
        target = f"{row.root.value}:/{'/'.join(row.prefix)}{tail}"
        write = row.write.value if row.write else "-"
        delete = row.delete.value if row.delete else "-"
        lines.append(f"{row.mode.value:<13} {target:<52} {write:<24} {delete:<9} {row.rule}")
    lines.append(
        "Not listed (ROOT_GAME, ROOT_STEAM, state/, roots themselves, ...): never. Reads follow visibility."
    )
    return "\n".join(lines)


def render_codes(fmt: str) -> str:
    """The registry as a table, JSON list or Markdown document."""
    rows = [
        {
            "code": s.code,
            "layer": s.layer.value,
            "area": s.area.value,
            "type": s.reply_type.value,
            "template": s.template,
            "data": s.data_schema(),
        }
        for s in sorted(REGISTRY.values(), key=lambda spec: spec.code)
    ]
    if fmt == "json":
        return json.dumps(rows, indent=2)
    if fmt == "markdown":
        lines = [
            "# Reply codes",
            "",
            "Generated from the registry by `ck3raven codes --format markdown`; do not edit by hand.",
            "Agents branch on `reply_type` and `code`; the message is a convenience.",
            "",
            "`data` names each field and what it holds; `?` marks a field a reply may leave out.",
            "Every reply's data is held to this when it is built; a tool's output schema names its codes.",
            "",
            "| code | layer | area | type | message template | data |",
            "|---|---|---|---|---|---|",
        ]
        lines += [
            f"| `{r['code']}` | {r['layer']} | {r['area']} | {r['type']} | {r['template']} | "
            f"{_data_brief(REGISTRY[str(r['code'])].data_schema())} |"
            for r in rows
        ]
        return "\n".join(lines)
    return "\n".join(f"{r['code']:<16} {r['template']}" for r in rows)


def _data_brief(schema: dict[str, Any]) -> str:
    """A data schema in a few words: `address: string, index?: integer`."""
    required = set(schema["required"])
    return ", ".join(
        f"{name}{'' if name in required else '?'}: {_kind(shape)}"
        for name, shape in schema["properties"].items()
    )


def _kind(shape: dict[str, Any]) -> str:
    if "anyOf" in shape:
        return " or ".join(_kind(option) for option in shape["anyOf"])
    if shape.get("type") == "array":
        return f"list of {_kind(shape['items'])}"
    return str(shape["type"])


def _doctor(args: argparse.Namespace) -> int:
    from app import reports

    found = config_path(args.config, os.environ)
    try:
        settings = settings_from(args)
    except ConfigError as exc:
        print(f"PROBLEM config {found or '(none found)'}: {exc}")
        return 1
    lines, status = reports.doctor(settings, found, os.environ)
    print("\n".join(lines))
    return status


def _contracts(args: argparse.Namespace) -> int:
    from app import reports

    try:
        settings = settings_from(args)
        print(reports.contracts(settings, everything=args.all, as_json=args.json))
    except (ConfigError, PortError) as exc:
        print(f"ck3raven: {exc}", file=sys.stderr)
        return 2
    return 0


def _token(args: argparse.Namespace) -> int:
    from app.token_command import run

    return run(args, settings_from)


def _playsets(args: argparse.Namespace) -> int:
    from app.playset_import import import_playsets

    try:
        settings = settings_from(args)
    except ConfigError as exc:
        print(f"ck3raven: {exc}", file=sys.stderr)
        return 2
    lines, status = import_playsets(settings, args.name)
    print("\n".join(lines), file=sys.stderr if status == 2 else sys.stdout)  # noqa: PLR2004 - exit 2: nothing read
    return status


def _audit(args: argparse.Namespace) -> int:
    from app import reports

    try:
        settings = settings_from(args)
        text, status = reports.audit(
            settings,
            contract=args.contract,
            since=args.since,
            code=args.code,
            as_json=args.json,
            verify=args.verify,
        )
    except ConfigError as exc:
        print(f"ck3raven: {exc}", file=sys.stderr)
        return 2
    except ValueError:
        print("ck3raven: --since takes an ISO 8601 time or a span such as 30m, 12h, 7d", file=sys.stderr)
        return 2
    print(text)
    return status


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
