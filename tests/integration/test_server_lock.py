"""A server registers under the state directory by locking a file of its own; another server asking
whether it runs locks that file for a moment, which never keeps the server from starting."""

import fcntl
import os
import threading
import time
from pathlib import Path

from adapters.server_lock import SERVERS, ServerLock, running


def test_a_server_starts_while_another_briefly_holds_its_file_to_ask_whether_it_runs(tmp_path: Path):
    folder = tmp_path / SERVERS
    folder.mkdir(mode=0o700)
    path = folder / f"{os.getpid()}.lock"
    probe = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(probe, fcntl.LOCK_EX | fcntl.LOCK_NB)  # another server's probe, at the very moment

    def probe_ends() -> None:
        time.sleep(0.1)
        fcntl.flock(probe, fcntl.LOCK_UN)
        os.close(probe)

    threading.Thread(target=probe_ends).start()
    lock = ServerLock(tmp_path)
    lock.acquire("stdio", "srv-1")

    assert [server["server_id"] for server in running(tmp_path)] == ["srv-1"]
    lock.release()
