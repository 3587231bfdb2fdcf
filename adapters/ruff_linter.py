"""The Linter port over ruff: the ruff executable of the server's own environment, found by absolute path
at start and run directly (never `python -m ruff`, which would import whatever `ruff` the working folder
holds), in a private empty folder, with `--isolated` (no configuration file is read) and `--ignore-noqa`
(a `# noqa` comment cannot silence a rule); its stdin is the source linted or else empty, never the
server's own (over stdio, the MCP stream). The rules are a fixed list, or the operator's list in the
ruleset file of the state directory (`lint-ruleset.json`: {"select": ["E9", "F"]}), read on every call;
the ruleset names ruff's version and the SHA-256 of its executable, so a changed ruff changes its hash.
That identity is worked out once per linter (one per server), by one thread while others wait for it, the
executable hashed in chunks, and again only when the executable changed (its inode, size or time).
"""

import hashlib
import json
import subprocess
import threading
from pathlib import Path
from typing import Final

from ports.errors import Unavailable
from ports.linter import Finding

DEFAULT_RULES: Final = ("E9", "F")
"""Syntax errors and pyflakes (undefined names, unused imports and variables, redefinitions)."""
TIMEOUT: Final = 60


class RuffLinter:
    """Ruff with a locked rule list; `ruleset_file` (operator-owned) may replace the list. `binary`: the
    executable (default: the one of the server's environment)."""

    def __init__(self, ruleset_file: Path, *, binary: Path | None = None) -> None:
        self._file = ruleset_file
        self._binary: Path | None = binary
        self._identity: tuple[tuple[int, int, int], str, str] | None = None
        self._working_out = threading.Lock()  # concurrent opens wait for one identity, never work out eight
        self._folder = ruleset_file.parent / "lint-work"  # in the state directory: private and empty

    def ruleset(self) -> dict[str, object]:
        version, digest = self._tool()
        return {"tool": "ruff", "version": version, "sha256": digest, "select": list(self._rules())}

    def lint(self, sources: list[tuple[str, bytes]]) -> list[Finding]:
        rules = ",".join(self._rules())
        binary = self._find()
        return [finding for name, data in sources for finding in self._one(binary, name, data, rules)]

    def _rules(self) -> tuple[str, ...]:
        try:
            chosen = json.loads(self._file.read_text(encoding="utf-8"))["select"]
        except FileNotFoundError:
            return DEFAULT_RULES
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise Unavailable("the lint ruleset file cannot be read") from exc
        if not isinstance(chosen, list) or not all(
            isinstance(rule, str) and rule.isalnum() for rule in chosen
        ):
            raise Unavailable("the lint ruleset file must hold {'select': [rule codes]}")
        return tuple(chosen)

    def _find(self) -> Path:
        if self._binary is None:
            try:
                from ruff.__main__ import find_ruff_bin  # type: ignore[import-untyped]  # noqa: PLC0415 - at the first lint

                self._binary = Path(find_ruff_bin()).resolve()
            except (ImportError, FileNotFoundError) as exc:
                raise Unavailable("ruff is not installed in the server's environment") from exc
        return self._binary

    def _tool(self) -> tuple[str, str]:
        """Ruff's version and its executable's SHA-256, read again whenever the executable changed."""
        binary = self._find()
        try:
            info = binary.stat()
        except OSError as exc:
            raise Unavailable("ruff's executable is gone") from exc
        stamp = (info.st_ino, info.st_size, info.st_mtime_ns)
        with self._working_out:
            if self._identity is None or self._identity[0] != stamp:
                done = self._run([str(binary), "--version"])
                self._identity = (stamp, done.stdout.decode("utf-8", "replace").strip(), _digest(binary))
            return self._identity[1], self._identity[2]

    def _one(self, binary: Path, name: str, data: bytes, rules: str) -> list[Finding]:
        command = [str(binary), "check", "--isolated", "--no-cache", "--ignore-noqa", "--select", rules]
        command += ["--output-format", "json", "--stdin-filename", "changed.py", "-"]
        done = self._run(command, data)
        if done.returncode not in {0, 1}:
            raise Unavailable("ruff failed")
        try:
            reported = json.loads(done.stdout or b"[]")
            return [
                Finding(
                    str(item.get("code") or "E999"), name, int(item["location"]["row"]), str(item["message"])
                )
                for item in reported
            ]
        except (ValueError, KeyError, TypeError) as exc:
            raise Unavailable("ruff answered something else than its JSON") from exc

    def _run(self, command: list[str], data: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
        """Ruff's answer to `command` with `data` on its stdin; with no data its stdin is empty, never
        inherited (over stdio the server's stdin is the MCP stream, which ruff would read or wait on)."""
        empty = subprocess.DEVNULL if data is None else None  # subprocess.run refuses stdin beside input
        try:
            self._folder.mkdir(mode=0o700, parents=True, exist_ok=True)
            return subprocess.run(
                command,
                input=data,
                stdin=empty,
                capture_output=True,
                timeout=TIMEOUT,
                cwd=self._folder,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise Unavailable("ruff cannot run") from exc


def _digest(binary: Path) -> str:
    """The SHA-256 of the executable, read a chunk at a time (it is tens of megabytes)."""
    try:
        with binary.open("rb") as stream:
            return hashlib.file_digest(stream, "sha256").hexdigest()
    except OSError as exc:
        raise Unavailable("ruff's executable cannot be read") from exc
