"""Run a command the way a person does: on a pseudo-terminal that is its controlling terminal."""

import os
import pty
import selectors
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

# The child makes the terminal on its stdin its controlling one (it leads a new session), then becomes
# the command: the pid the server's channel sees is the command's, and it has a terminal.
_TAKE_TERMINAL = (
    "import fcntl, os, sys, termios; fcntl.ioctl(0, termios.TIOCSCTTY, 0); "
    "os.execv(sys.argv[1], sys.argv[1:])"
)


def on_terminal(
    argv: Sequence[str], answer: bytes = b"", *, prompt: bytes = b"it: ", cwd: Path | None = None
) -> tuple[int, str]:
    """Run `argv` on a controlling pseudo-terminal, type `answer` once `prompt` appears; (status, output)."""
    master, slave = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-c", _TAKE_TERMINAL, *argv],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        cwd=cwd,
        start_new_session=True,
    )
    os.close(slave)
    seen = b""
    typed = not answer
    watch = selectors.DefaultSelector()  # poll-based: no limit on descriptor numbers, unlike select()
    watch.register(master, selectors.EVENT_READ)
    while True:
        if not watch.select(20):
            break
        try:
            chunk = os.read(master, 4096)
        except OSError:  # the terminal closes when the command exits
            break
        if not chunk:
            break
        seen += chunk
        if not typed and prompt in seen:
            os.write(master, answer)
            typed = True
    watch.close()
    os.close(master)
    return process.wait(timeout=20), seen.decode("utf-8", "replace")
