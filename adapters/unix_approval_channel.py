"""The operator's approval channel: a Unix socket in the state directory, mode 0600.

No agent tool can address it (the state directory lies outside every root).
`ck3raven approvals|approve|decline` speak one JSON request per connection:
{"op": "list"} | {"op": "decide", "id": ID, "approve": bool}.
"""

import contextlib
import json
import os
import socket
import threading
from pathlib import Path
from typing import Any

import structlog
from cattrs import Converter

from domain.policy import approvals
from domain.policy.approvals import Authority

log = structlog.get_logger()
_MAX_REQUEST = 4096


class ApprovalChannel:
    """Serves human decisions for `authority` on a Unix socket at `path`, in a daemon thread."""

    def __init__(self, path: Path, authority: Authority) -> None:
        self._path = path
        self._authority = authority
        self._converter = Converter()
        self._server: socket.socket | None = None

    def start(self) -> None:
        self._path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        with contextlib.suppress(FileNotFoundError):
            self._path.unlink()
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        previous = os.umask(0o177)  # the socket is born 0600: no window in which others may connect
        try:
            server.bind(str(self._path))
        finally:
            os.umask(previous)
        server.listen(4)
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
            with connection:
                try:
                    request = json.loads(connection.recv(_MAX_REQUEST).decode("utf-8"))
                    answer = self._answer(request)  # the approval store serialises its own writes
                except (ValueError, UnicodeDecodeError, TypeError, KeyError):
                    answer = {"ok": False, "problem": "malformed request"}
                connection.sendall(json.dumps(answer).encode("utf-8") + b"\n")

    def _answer(self, request: dict[str, Any]) -> dict[str, Any]:
        operation = request["op"]
        if operation == "list":
            return {
                "ok": True,
                "pending": [self._converter.unstructure(r) for r in approvals.pending(self._authority)],
            }
        if operation == "decide":
            decided = approvals.human_decision(
                self._authority, str(request["id"]), approve=request["approve"] is True
            )
            log.info("approval.decided", approval_id=request["id"], state=decided.state if decided else None)
            return {"ok": decided is not None, "state": decided.state if decided else None}
        return {"ok": False, "problem": "unknown op"}


def ask(path: Path, request: dict[str, Any]) -> dict[str, Any]:
    """Send one request to a running server's approval channel and return its answer."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
        client.connect(str(path))
        client.sendall(json.dumps(request).encode("utf-8"))
        data = b""
        while not data.endswith(b"\n"):
            chunk = client.recv(65536)
            if not chunk:
                break
            data += chunk
    answer: dict[str, Any] = json.loads(data.decode("utf-8"))
    return answer
