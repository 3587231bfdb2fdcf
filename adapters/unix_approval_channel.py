"""The operator's approval channel: a Unix socket in the state directory, mode 0600.

No agent tool can address it (the state directory lies outside every root).
`ck3raven approvals|approve|decline` speak one JSON line per connection:
{"op": "list"} | {"op": "decide", "id": ID, "approve": bool}.

It survives its clients: each connection is served on its own thread (a few at once; more wait for a
free one, at most the read timeout), with a read timeout and a bounded request, and whatever one client
does (stay idle, hang up, send deep nesting or garbage) ends that connection only. Only a peer running
as the server's user is answered (SO_PEERCRED), and decisions only from one that has a controlling
terminal; the CLI still asks for the typed word. Where the kernel gives no peer credentials, nothing is
decided here (fail closed).
"""

import contextlib
import json
import os
import socket
import struct
import threading
import time
from pathlib import Path
from typing import Any

import structlog
from cattrs import Converter

from domain.policy import approvals
from domain.policy.approvals import Authority
from ports.errors import PortError

log = structlog.get_logger()
_MAX_REQUEST = 4096
_READ_TIMEOUT = 5.0
_AT_ONCE = 8


class _TooLarge(Exception):
    pass


class ApprovalChannel:
    """Serves human decisions for `authority` on a Unix socket at `path`, in daemon threads."""

    def __init__(self, path: Path, authority: Authority, *, read_timeout: float = _READ_TIMEOUT) -> None:
        self._path = path
        self._authority = authority
        self._read_timeout = read_timeout
        self._converter = Converter()
        self._server: socket.socket | None = None
        self._slots = threading.BoundedSemaphore(_AT_ONCE)

    def start(self) -> None:
        """Bind and serve. The caller holds the state directory's server lock, so a socket file left
        here belongs to no live server and is replaced."""
        self._path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        with contextlib.suppress(FileNotFoundError):
            self._path.unlink()
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        previous = os.umask(0o177)  # the socket is born 0600: no window in which others may connect
        try:
            server.bind(str(self._path))
        finally:
            os.umask(previous)
        server.listen(64)
        self._server = server
        threading.Thread(target=self._serve, name="ck3raven-approvals", daemon=True).start()

    def close(self) -> None:
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(FileNotFoundError):
                self._path.unlink()

    def _serve(self) -> None:
        assert self._server is not None  # noqa: S101 - start() sets it before the thread runs
        while True:
            try:
                connection, _ = self._server.accept()
            except OSError:
                return  # closed
            if not self._slots.acquire(timeout=self._read_timeout):
                connection.close()  # every slot held by a client that stays silent: this one may retry
                continue
            threading.Thread(target=self._handle, args=(connection,), daemon=True).start()

    def _handle(self, connection: socket.socket) -> None:
        try:
            with connection:
                connection.settimeout(self._read_timeout)
                answer = self._respond(connection)
                connection.sendall(json.dumps(answer).encode("utf-8") + b"\n")
        except OSError as exc:  # a timeout, or a client that hung up: that connection only
            log.info("approvals.client_dropped", problem=type(exc).__name__)
        except Exception:  # one client never stops the channel; the trace goes to the log
            log.exception("approvals.client_failed")
        finally:
            self._slots.release()

    def _respond(self, connection: socket.socket) -> dict[str, Any]:
        peer = _peer(connection)
        if peer is None or peer[1] != os.getuid():
            return {"ok": False, "problem": "only the server's own user is answered"}
        request = _request(connection)
        if isinstance(request, str):
            return {"ok": False, "problem": request}
        if request.get("op") == "decide" and not _has_terminal(peer[0]):
            return {"ok": False, "problem": "decisions are taken only from a terminal"}
        try:
            return self._answer(request)
        except (TypeError, KeyError):
            return {"ok": False, "problem": "malformed request"}

    def _answer(self, request: dict[str, Any]) -> dict[str, Any]:
        operation = request["op"]
        if operation == "list":
            return {
                "ok": True,
                "pending": [self._converter.unstructure(r) for r in approvals.pending(self._authority)],
            }
        if operation == "decide":
            try:
                decided = approvals.human_decision(
                    self._authority, str(request["id"]), approve=request["approve"] is True
                )
            except PortError:  # the store cannot take the decision with its audit row: nothing decided
                return {"ok": False, "problem": "the state store cannot take the decision now: try again"}
            log.info("approval.decided", approval_id=request["id"], state=decided.state if decided else None)
            return {"ok": decided is not None, "state": decided.state if decided else None}
        return {"ok": False, "problem": "unknown op"}


def ask(path: Path, request: dict[str, Any]) -> dict[str, Any]:
    """Send one request to a running server's approval channel and return its answer."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
        client.connect(str(path))  # blocking: a busy server's backlog makes a timed connect fail at once
        client.settimeout(_READ_TIMEOUT * 2)
        client.sendall(json.dumps(request).encode("utf-8") + b"\n")
        data = b""
        while not data.endswith(b"\n"):
            chunk = client.recv(65536)
            if not chunk:
                break
            data += chunk
    answer: dict[str, Any] = json.loads(data.decode("utf-8"))
    return answer


def _request(connection: socket.socket) -> dict[str, Any] | str:
    """The client's request object, or what is wrong with it."""
    try:
        request = json.loads(_read_line(connection).decode("utf-8"))
    except _TooLarge:
        return "request too large"
    except (ValueError, UnicodeDecodeError, RecursionError):
        return "malformed request"
    return request if isinstance(request, dict) else "malformed request"


def _read_line(connection: socket.socket) -> bytes:
    """One request: up to a newline or the client's end of sending, at most _MAX_REQUEST bytes, all of it
    within the connection's timeout (a client trickling a byte at a time cannot hold its slot longer)."""
    timeout = connection.gettimeout() or _READ_TIMEOUT
    deadline = time.monotonic() + timeout
    data = b""
    while b"\n" not in data:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("the request took too long")
        connection.settimeout(left)
        chunk = connection.recv(_MAX_REQUEST + 1 - len(data))
        if not chunk:
            break
        data += chunk
        if len(data) > _MAX_REQUEST:
            raise _TooLarge
    return data.split(b"\n", 1)[0]


def _peer(connection: socket.socket) -> tuple[int, int] | None:
    """The connecting process's (pid, uid), from the kernel; None where it does not say."""
    option = getattr(socket, "SO_PEERCRED", None)
    if option is None:
        return None
    try:
        pid, uid, _ = struct.unpack(
            "3i", connection.getsockopt(socket.SOL_SOCKET, option, struct.calcsize("3i"))
        )
    except OSError:
        return None
    return pid, uid


def _has_terminal(pid: int) -> bool:
    """Whether process `pid` is at a terminal as a person's command is (Linux /proc): it has a controlling
    terminal, its standard input is a terminal device, and it is in the terminal's foreground process
    group. A tool subprocess of a terminal-hosted program, with piped input, is not."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="utf-8", errors="replace")
        stdin = str(Path(f"/proc/{pid}/fd/0").readlink())
    except OSError:
        return False
    fields = stat.rsplit(")", 1)[-1].split()  # after the command name, which may hold spaces and ')'
    if len(fields) < _TPGID + 1:
        return False
    pgrp, tty_nr, tpgid = fields[_PGRP], fields[_TTY_NR], fields[_TPGID]
    return tty_nr != "0" and tpgid == pgrp and stdin.startswith(("/dev/pts/", "/dev/tty"))


_PGRP, _TTY_NR, _TPGID = 2, 4, 5  # fields after the name: state ppid pgrp session tty_nr tpgid
