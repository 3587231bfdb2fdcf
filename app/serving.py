"""`ck3raven serve`: one server per state directory (locked), its log, its approval socket, and the stdio
or HTTP transport until the client or a signal ends it. Only that command imports this module.
"""

import argparse
import contextlib
import logging
import os
import signal
import sys
from pathlib import Path
from typing import NoReturn, Protocol

from app.config import ConfigError, Settings
from ports.errors import PortError


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
    from adapters.server_lock import AlreadyServing, ServerLock
    from app.bootstrap import state_folder

    state = state_folder(settings)
    lock = ServerLock(state)
    port = args.port or settings.http.port
    try:
        lock.acquire(f"http {settings.http.host}:{port}" if args.transport == "http" else "stdio")
    except AlreadyServing as exc:
        print(
            f"ck3raven: {exc} ({state}); stop it first, or give this one its own state_dir", file=sys.stderr
        )
        return 2
    except OSError as exc:
        print(f"ck3raven: the state directory {state} cannot be locked ({exc.strerror})", file=sys.stderr)
        return 2
    # SIGTERM ends the server as Ctrl-C does: through the finally blocks (socket, token, lock cleaned up)
    signal.signal(signal.SIGTERM, _terminate)
    sinks: list[_Closes] = []
    try:
        status = _serve_locked(args, settings, (state, same_config), sinks)
    finally:
        lock.release()
    if sinks:  # logging was set up: the log says how the server ended
        import structlog

        structlog.get_logger().info("server.stopped", status=status)
    if args.transport == "stdio":
        _exit_at_once(status, sinks)
    return status


def _exit_at_once(status: int, sinks: list[_Closes]) -> NoReturn:
    """End a stdio server as soon as its own cleanup is done: the interpreter's teardown of a few thousand
    modules takes seconds on a busy machine, and stdio clients kill a server that has not exited two
    seconds after they closed its input. Every write is already durable; the log's queue is drained and
    its file closed, and the streams are flushed."""
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
    args: argparse.Namespace, settings: Settings, place: tuple[Path, bool], sinks: list[_Closes]
) -> int:
    """Serve until the client or a signal ends it, the state directory locked (`place`: it, and the
    whether approval hints ask for its own `--config`)."""
    state, same_config = place
    import structlog

    from adapters.log_setup import configure_logging
    from app.bootstrap import (
        approval_channel,
        build,
        build_core,
        http_app,
        http_token,
        sweep_in_background,
    )

    log_file = state / "logs" / "ck3raven.log"
    try:
        sinks.append(configure_logging(log_file))
    except OSError as exc:
        print(f"ck3raven: the log file {log_file} cannot be written ({exc.strerror})", file=sys.stderr)
        return 2
    try:
        core = build_core(settings, same_config=same_config)
        token = http_token(settings) if args.transport == "http" else None
    except (ConfigError, PortError, OSError) as exc:  # one line naming the problem, never a traceback
        print(f"ck3raven: cannot start: {exc}", file=sys.stderr)
        return 2
    if not settings.read_only:  # a read-only server removes nothing, not even a write's leftovers
        sweep_in_background(core)
    made_token = token is not None and settings.http.token is None
    server = build(settings, core=core, token=token)
    channel = approval_channel(settings, core)
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
            uvicorn.run(
                http_app(settings, server), host=host, port=port, log_level="warning", log_config=None
            )
        else:
            import anyio

            from adapters.stdio_drain import serve_stdio

            anyio.run(serve_stdio, server)
    finally:
        if started:
            channel.close()
        if made_token:  # a token made for this run ends with it
            (state / "http_token").unlink(missing_ok=True)
    return 0
