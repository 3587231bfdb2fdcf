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


class Terminal:
    """A command on a controlling pseudo-terminal, typed into and read from as a person at it would."""

    def __init__(
        self, argv: Sequence[str], *, cwd: Path | None = None, env: dict[str, str] | None = None
    ) -> None:
        self._master, slave = pty.openpty()
        self.process = subprocess.Popen(
            [sys.executable, "-c", _TAKE_TERMINAL, *argv],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            cwd=cwd,
            env=env,
            start_new_session=True,
        )
        os.close(slave)
        self.seen = b""

    def type(self, keys: bytes) -> None:
        os.write(self._master, keys)

    def wait_for(self, text: bytes, *, seconds: float = 120) -> bool:
        """Read what the command writes until `text` appears (True) or it ends or is silent for `seconds`."""
        watch = selectors.DefaultSelector()
        watch.register(self._master, selectors.EVENT_READ)
        try:
            while text not in self.seen:
                if not watch.select(seconds):
                    return False
                try:
                    chunk = os.read(self._master, 4096)
                except OSError:  # the terminal closes when the command exits
                    return False
                if not chunk:
                    return False
                self.seen += chunk
            return True
        finally:
            watch.close()

    def close(self) -> None:
        os.close(self._master)
