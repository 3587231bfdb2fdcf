"""A stdio tap: `python tap.py FOLDER -- COMMAND ARGS...` runs COMMAND and relays its stdin and stdout
unchanged, keeping a byte-exact copy of each direction and how the command ended.

FOLDER/in holds what the client sent and FOLDER/out what the command answered; FOLDER/pid the command's
process id once it runs; FOLDER/end, written once the command has exited, one JSON object:
{"status": N, "after_end_of_input": bool, "seconds_after_end_of_input": float | null}.

The MCP SDK's stdio client closes the server's input at shutdown, waits 2 s, then kills the server's whole
process group. So the relay runs in a keeper process that leaves that group first: whatever the client
does, the command's own exit is recorded (the process the client started waits for the keeper and exits
with the command's status, unless it is killed first).
"""

import contextlib
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import IO


class Input(threading.Thread):
    """Client to command, line by line, until the client closes its end; then close the command's. A
    command that is gone ends the relay too: its exit status says why."""

    def __init__(self, source: IO[bytes], sink: IO[bytes], copy: IO[bytes]) -> None:
        super().__init__(daemon=True)
        self.source, self.sink, self.copy = source, sink, copy
        self.ended_at: float | None = None

    def run(self) -> None:
        with contextlib.suppress(BrokenPipeError):
            for line in iter(self.source.readline, b""):
                self.copy.write(line)
                self.copy.flush()
                self.sink.write(line)
                self.sink.flush()
        self.ended_at = time.monotonic()
        with contextlib.suppress(BrokenPipeError):
            self.sink.close()


def keep(folder: Path, command: list[str]) -> int:
    """Run `command`, relay both directions with copies, and record how it ended; its exit status."""
    child = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert child.stdin is not None
    assert child.stdout is not None
    (folder / "pid").write_text(str(child.pid), encoding="utf-8")
    with (folder / "in").open("wb") as sent, (folder / "out").open("wb") as answered:
        relay = Input(sys.stdin.buffer, child.stdin, sent)
        relay.start()
        for line in iter(child.stdout.readline, b""):
            answered.write(line)
            answered.flush()
            with contextlib.suppress(BrokenPipeError):  # the client may be gone: keep the copy going
                sys.stdout.buffer.write(line)
                sys.stdout.buffer.flush()
        status = child.wait()
    exited_at = time.monotonic()
    ended_at = relay.ended_at
    end = {
        "status": status,
        "after_end_of_input": ended_at is not None,
        "seconds_after_end_of_input": None if ended_at is None else round(exited_at - ended_at, 3),
    }
    (folder / "end.part").write_text(json.dumps(end), encoding="utf-8")
    (folder / "end.part").replace(folder / "end")
    return status


def main(argv: list[str]) -> int:
    if argv[1:2] != ["--"] or not argv[2:]:
        sys.exit("usage: tap.py FOLDER -- COMMAND ARGS...")
    folder, command = Path(argv[0]), argv[2:]
    folder.mkdir(parents=True, exist_ok=True)
    keeper = os.fork()
    if keeper:
        _, status = os.waitpid(keeper, 0)
        return os.waitstatus_to_exitcode(status)
    os.setsid()
    os._exit(keep(folder, command))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
