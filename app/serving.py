"""`ck3raven serve`: a server registered in its state directory (several may share one: each has its own
approval socket; only an HTTP port is exclusive, bound before anything is printed), its log (rotated by
size, fatal signals reported to it, the audit chain's head anchored in it), and the stdio or HTTP
transport until the client or a signal ends it. Only that command imports this module.
"""

import argparse
import contextlib
import errno
import logging
import os
import socket
import sys
import threading
from datetime import UTC, datetime
from pathlib import Path
from typing import NoReturn, Protocol, TypeVar

from app.collection import resumed
from app.config import MAX_PORT, ConfigError, Settings
from app.stopping import Stopping
from ports.errors import PortError

EXIT_GRACE = 2.0
"""Seconds a stdio server's exit may take to flush its streams before it ends regardless."""


class _Closes(Protocol):
    """What the server keeps to close before it exits (the log sink: its queue is drained on close)."""

    def close(self) -> None: ...


def serve(args: argparse.Namespace, settings: Settings, *, same_config: bool) -> int:
    """Serve `settings` as `args` say (transport, port); `same_config`: approval hints ask for the server's
    own `--config` (it is not the default one).
    The exit status: 0, or 2 when the server could not start (one line on stderr says why)."""
    # FastMCP reads these at import: no banner, no network update check, plain stderr records.
    os.environ.setdefault("FASTMCP_SHOW_SERVER_BANNER", "false")
    os.environ.setdefault("FASTMCP_CHECK_FOR_UPDATES", "off")
    os.environ.setdefault("FASTMCP_ENABLE_RICH_LOGGING", "false")
    from adapters.call_facts import ServerCalls
    from adapters.server_lock import ServerLock
    from app.bootstrap import state_folder

    state = state_folder(settings)
    lock = ServerLock(state)
    port = args.port or settings.http.port
    listener = _listener(settings.http.host, port) if args.transport == "http" else None
    if args.transport == "http" and listener is None:
        return 2
    server_id = ServerCalls().server_id  # registered with the lock: while the lock is held, the server runs
    try:
        lock.acquire(f"http {settings.http.host}:{port}" if args.transport == "http" else "stdio", server_id)
    except OSError as exc:
        print(f"ck3raven: the state directory {state} cannot be used ({exc.strerror})", file=sys.stderr)
        return 2
    stopping = Stopping()
    stopping.add(lock.release)
    sinks: list[_Closes] = []
    stopping.on_signals(lambda: _stop(stopping, sinks))
    status = 2
    try:
        places = (state, same_config, lock.socket, listener)
        status = _serve_locked(args, settings, places, (sinks, stopping, server_id))
    finally:
        stopping.run(status)
    return _exit_at_once(status, sinks)


def _stop(stopping: Stopping, sinks: list[_Closes]) -> None:
    """End the server for a signal (SIGINT, SIGTERM) at once, its input open or not: its steps taken (a
    request in flight is settled by the journal at the next start, as after a crash)."""
    watchdog = threading.Timer(EXIT_GRACE, os._exit, (0,))  # a step that blocks never holds the exit
    watchdog.daemon = True
    watchdog.start()
    if stopping.run(0):
        _exit_at_once(0, sinks)
    # else the server was already ending (its client gone), and ends on its own


def _listener(host: str, port: int) -> socket.socket | None:
    """The HTTP port, bound before anything is printed (None, said in one line, when it cannot be)."""
    if not 1 <= port <= MAX_PORT:
        print(f"ck3raven: port {port} is not a port (1 to {MAX_PORT})", file=sys.stderr)
        return None
    # Named TCP outright: asyncio turns Nagle's algorithm off (TCP_NODELAY) only on connections accepted
    # from a socket whose protocol says TCP, and with it on, a reply's body waited for the client's
    # delayed acknowledgement of its headers (about 40 ms a call).
    bound = socket.socket(_family(host), socket.SOCK_STREAM, socket.IPPROTO_TCP)
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
    """End the server as soon as its own cleanup is done: the interpreter's teardown of a few thousand
    modules takes seconds on a busy machine, and stdio clients kill a server that has not exited two
    seconds after they closed its input. Every write is already durable; the log's queue is drained and
    its file closed (its last lines, the audit anchor at stop among them, are written), and the streams
    are flushed."""
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


def _serve_locked(
    args: argparse.Namespace,
    settings: Settings,
    places: tuple[Path, bool, Path, socket.socket | None],
    ending: tuple[list[_Closes], Stopping, str],
) -> int:
    """Serve, once registered: `places` are the state directory, whether approval hints ask for the
    server's own `--config`, this server's approval socket and, over HTTP, its bound port; `ending`, the
    log sinks to close, the steps to take as the server ends (each added as what it undoes is set up) and
    the server's id, registered with its lock."""
    import structlog

    from adapters.call_facts import ServerCalls
    from adapters.log_setup import configure_logging, report_crashes
    from adapters.server_lock import LockedServers
    from app.bootstrap import (
        approval_channel,
        build,
        build_core,
        client_tokens,
        http_app,
        http_token,
        sweep_in_background,
    )

    state, same_config, approvals, listener = places
    sinks, stopping, server_id = ending
    log_file = state / "logs" / "ck3raven.log"
    try:
        _rotate(log_file, settings)
        sinks.append(configure_logging(log_file))
        report_crashes(log_file)
        stopping.add(lambda: _said_stopped(stopping))
    except OSError as exc:
        print(f"ck3raven: the log file {log_file} cannot be written ({exc.strerror})", file=sys.stderr)
        return 2
    lost = _lost_database(state)
    try:
        servers = LockedServers(state, server_id)
        core = build_core(settings, same_config=same_config, index_in_child=True, servers=servers)
        token, made_token = http_token(settings) if args.transport == "http" else (None, False)
    except (ConfigError, PortError, OSError) as exc:  # one line naming the problem, never a traceback
        print(f"ck3raven: cannot start: {exc}", file=sys.stderr)
        return 2
    if made_token:  # a token made for this run ends with it
        stopping.add(lambda: (state / "http_token").unlink(missing_ok=True))
    _after_start(settings, core, lost)
    _record_gaps(core, servers)
    sweep_in_background(core, read_only=settings.read_only)
    calls = ServerCalls(server_id)
    server = _built(
        build(
            settings,
            core=core,
            token=token,
            calls=calls,
            clients=client_tokens(core),
            one_client=args.transport == "stdio",  # its reads may be answered on the event loop
        )
    )
    stopping.add(_anchors(core.services.audit, calls.server_id).stop)
    channel = approval_channel(approvals, core)
    try:
        channel.start()
        stopping.add(channel.close)
    except OSError:
        # No channel, no approvals: requests that need a human stay refused (fail closed).
        structlog.get_logger().exception("approvals.channel_unavailable")
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
    return 0


def _said_stopped(stopping: Stopping) -> None:
    """The log says how the server ended (once logging is set up: before, it would print on stdout)."""
    import structlog

    because = {"signal": stopping.signal} if stopping.signal else {}
    structlog.get_logger().info("server.stopped", status=stopping.status, **because)


_T = TypeVar("_T")


def _built(server: _T) -> _T:
    """The server, start-up being over: garbage collection resumes (app.collection)."""
    resumed(started=True)
    return server


def _after_start(settings: Settings, core: object, lost: int | None) -> None:
    """Say that the state database was found missing, and prune what retention lets go."""
    _report_lost(lost)
    _prune_in_background(settings, core)


def _record_gaps(core: object, servers: object) -> None:
    """Record the calls left with no audit row by servers of this state directory that ended (killed or
    crashed before writing them), so the log tells a crash from a deleted row; a store that cannot take
    the row now leaves them for the next server's start."""
    import structlog

    from adapters.server_lock import LockedServers
    from adapters.sqlite_state import SqliteState

    stores = getattr(getattr(core, "services", None), "transactions", None)
    if not isinstance(stores, SqliteState) or not isinstance(servers, LockedServers):
        return
    now = datetime.now(UTC).isoformat()
    try:
        recorded = stores.audit.record_gaps(lambda server_id: not servers.running(server_id), now)
    except PortError:
        structlog.get_logger().exception("audit.gaps_unrecorded")
        return
    for line in recorded:
        structlog.get_logger().warning("audit.gap_recorded", gap=line)


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
