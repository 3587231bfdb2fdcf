"""The Linter port over ruff, run from the server's own environment as a subprocess with `--isolated`: the
repository's ruff configuration is never read. The rules are a fixed list, or the operator's list in the
ruleset file of the state directory (`lint-ruleset.json`: {"select": ["E9", "F"]}), read on every call so
that a change to it shows in the ruleset's hash.
"""

import json
import subprocess
import sys
import tempfile
from functools import cache
from pathlib import Path
from typing import Final

from ports.errors import Unavailable
from ports.linter import Finding

DEFAULT_RULES: Final = ("E9", "F")
"""Syntax errors and pyflakes (undefined names, unused imports and variables, redefinitions)."""
TIMEOUT: Final = 60


class RuffLinter:
    """Ruff with a locked rule list; `ruleset_file` (operator-owned) may replace the list."""

    def __init__(self, ruleset_file: Path) -> None:
        self._file = ruleset_file

    def ruleset(self) -> dict[str, object]:
        return {"tool": "ruff", "version": _version(), "select": list(self._rules())}

    def lint(self, sources: list[tuple[str, bytes]]) -> list[Finding]:
        rules = ",".join(self._rules())
        return [finding for name, data in sources for finding in _one(name, data, rules)]

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


def _one(name: str, data: bytes, rules: str) -> list[Finding]:
    command = [sys.executable, "-m", "ruff", "check", "--isolated", "--no-cache", "--select", rules]
    command += ["--output-format", "json", "--stdin-filename", "changed.py", "-"]
    try:
        done = subprocess.run(
            command, input=data, capture_output=True, timeout=TIMEOUT, cwd=tempfile.gettempdir(), check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise Unavailable("ruff cannot run") from exc
    if done.returncode not in {0, 1}:
        raise Unavailable("ruff failed")
    try:
        reported = json.loads(done.stdout or b"[]")
    except ValueError as exc:
        raise Unavailable("ruff answered something else than JSON") from exc
    return [
        Finding(str(item.get("code") or "E999"), name, int(item["location"]["row"]), str(item["message"]))
        for item in reported
    ]


@cache
def _version() -> str:
    try:
        done = subprocess.run(
            [sys.executable, "-m", "ruff", "--version"], capture_output=True, timeout=TIMEOUT, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise Unavailable("ruff cannot run") from exc
    if done.returncode != 0:
        raise Unavailable("ruff is not installed in the server's environment")
    return done.stdout.decode("utf-8", "replace").strip()
