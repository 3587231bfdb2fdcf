"""The content index of a playset built in a child process of the server.

A whole build parses every script file of the playset: minutes of Python for a real game. On a thread of
the server it shares the interpreter's lock with every call, and each call waits for it at every hand-over
between threads (a trivial call took about 6 ms more while it ran). A child process has an interpreter of
its own: the server's thread only waits for its answer, and the operating system shares the processors
between the two far more finely than the interpreter's lock does.

The child stores; its files are read and parsed in processes of its own (app.parse_workers), one a
processor; the child and its workers run at a low priority (`nice` 10), so the server's calls go first
meanwhile. The child is started fresh (`spawn`: nothing of the server's threads, locks or open databases
is copied), from the server's settings and the playset's view; it opens the index in the state directory
itself. It ends when its build does, and at once when the server is gone (it watches its parent), so it
never outlives the server by more than a second; its standard output is its standard error, so nothing
it does reaches, or holds open, the protocol of a server over stdio.
"""

import multiprocessing
import os
import sys
import traceback
from multiprocessing.connection import Connection
from pathlib import Path

from adapters.local_files import LocalFiles
from adapters.sqlite_index import SqliteIndex
from adapters.system_clock import SystemClock
from app.collection import stopped
from app.config import Settings
from app.parse_workers import Workers, lowered, processors, watch_parent
from domain.use_cases.content_queries import build_into
from domain.world.adapter import WorldAdapter
from domain.world.view import WorldView
from ports.content_index import Build
from ports.errors import PortError


class ChildFailed(RuntimeError):
    """The child ended without a build: its stack trace, when it had one, is the message."""


def build_in_child(settings: Settings, index_path: Path, view: WorldView, playset: str) -> Build | None:
    """Build `playset`'s index (at `index_path`) over `settings`' roots as `view` shows them, in a child
    process; its Build (None: another server is building, or the index cannot be kept). Raises ChildFailed
    when the child failed or ended without an answer."""
    context = multiprocessing.get_context("spawn")
    receiving, sending = context.Pipe(duplex=False)
    child = context.Process(
        target=_child,
        args=(settings, view, playset, index_path, sending, os.getpid()),
        name="ck3raven-index",
        daemon=True,  # ended with the server when it exits in order
    )
    child.start()
    sending.close()  # the child holds the only sending end: its exit ends the wait below
    try:
        answer = receiving.recv()
    except EOFError:
        answer = f"the index builder ended without an answer (exit code {child.exitcode})"
    finally:
        receiving.close()
        child.join()
    if isinstance(answer, str):
        raise ChildFailed(answer)
    return answer if isinstance(answer, Build) else None


def _child(  # noqa: PLR0913, PLR0917 - what a spawned process is given, by position
    settings: Settings, view: WorldView, playset: str, index_path: Path, answer: Connection, parent: int
) -> None:
    _off_the_protocol()
    lowered()  # its reading and storing are half a build's work: the server's calls go first
    watch_parent(parent)
    # a daemon, to its server; to its own workers a builder that may start them, and that ends them itself
    multiprocessing.current_process().daemon = False
    stopped()  # the child only builds, then ends (app.collection)
    try:
        try:
            index = SqliteIndex(index_path)
        except PortError:
            answer.send(None)
            return
        roots = {root.value: path for root, path in settings.roots.items()}
        with Workers(processors(), roots, view) as workers:
            world = WorldAdapter(LocalFiles(roots), view)
            answer.send(build_into(index, SystemClock(), world, playset, workers))
    except Exception:  # noqa: BLE001 - whatever failed, the server logs it with its own trace
        answer.send(traceback.format_exc())
    finally:
        answer.close()


def _off_the_protocol() -> None:
    """Point this process's standard output at its standard error: a stdio server's standard output
    carries the protocol, which nothing of the child may write to, nor keep open past the server."""
    sys.stdout.flush()
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
