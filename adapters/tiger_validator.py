"""ck3-tiger as the external validator close runs (ports.validators): `ck3-tiger --json [--game GAME]
<mod>/descriptor.mod`, cut after its bound, its reports read from tiger's JSON output.

Tiger's JSON (its `src/report/writer_json.rs`): each report an object with `severity`, `confidence`, `key`,
`message`, `info` and `locations`, each location with `path` (below the game or mod folder), `fullpath`,
`linenr` (null: no line), `column`, `from`, `line`, `tag`; the reports are written as a JSON array, or one
object after another. A report is placed at its first location; a location is in the mod when its
`fullpath` lies below the mod's folder, and is then named by its path below it. Host paths never leave
this module: the message is cleaned of the folders it knows, and `fullpath` is dropped.
"""

import json
import os
import shutil
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

from ports import validators

NAME: Final = "ck3-tiger"
MAX_OUTPUT: Final = 64 * 1024 * 1024
MAX_REPORTS: Final = 20_000


class TigerValidator:
    """Runs the executable at `executable` with the roots' host folders (root category -> folder)."""

    name = NAME

    def __init__(self, executable: Path, roots: Mapping[str, Path], game: Path | None) -> None:
        self.executable = executable
        self.roots = dict(roots)
        self.game = game

    def run(self, mod: str, seconds: float) -> validators.Run:
        folder = self._folder(mod)
        if folder is None:
            return validators.Run(validators.FAILED, detail="the mod's folder is not under a configured root")
        command = [str(self.executable), "--json"]
        command += ["--game", str(self.game)] if self.game is not None else []
        command.append(str(folder / "descriptor.mod"))
        try:
            done = subprocess.run(
                command,
                capture_output=True,
                timeout=seconds,
                check=False,
                stdin=subprocess.DEVNULL,
                env={**os.environ, "NO_COLOR": "1"},
            )
        except subprocess.TimeoutExpired:
            return validators.Run(validators.TIMEOUT, detail=f"cut after {seconds:g} s")
        except OSError:
            return validators.Run(validators.FAILED, detail="ck3-tiger could not be started")
        reports = _reports(done.stdout[:MAX_OUTPUT])
        if reports is None:
            return validators.Run(
                validators.FAILED, detail=f"ck3-tiger ended with status {done.returncode} and no JSON report"
            )
        found = tuple(self._reported(report, folder, mod) for report in reports[:MAX_REPORTS])
        return validators.Run(validators.RAN, found, detail=f"{len(reports)} reports")

    def _folder(self, mod: str) -> Path | None:
        root, _, rest = mod.partition(":/")
        base = self.roots.get(root)
        if base is None or ".." in rest.split("/"):
            return None
        return base.joinpath(*[part for part in rest.split("/") if part])

    def _reported(self, report: dict[str, Any], folder: Path, mod: str) -> validators.Reported:
        locations = report.get("locations") if isinstance(report.get("locations"), list) else []
        first = locations[0] if locations and isinstance(locations[0], dict) else {}
        path = _below(str(first.get("fullpath") or ""), folder)
        line = first.get("linenr")
        message = str(report.get("message") or "")
        for host, named in ((str(folder), mod), *((str(p), r + ":") for r, p in self.roots.items())):
            message = message.replace(host, named)
        return validators.Reported(
            key=_word(report.get("key")),
            severity=_word(report.get("severity")),
            path=path,
            line=line if isinstance(line, int) and line > 0 else 0,
            message=message[:500],
        )


def find(configured: str | None) -> Path | None:
    """The executable the operator named, else `ck3-tiger` on PATH; None when neither is there."""
    if configured:
        path = Path(configured).expanduser()
        return path if path.is_file() and os.access(path, os.X_OK) else None
    found = shutil.which(NAME)
    return Path(found) if found else None


def _reports(output: bytes) -> list[dict[str, Any]] | None:
    """The report objects of tiger's output: one JSON array, or objects one after another."""
    text = output.decode("utf-8", errors="replace").strip()
    if not text:
        return []
    decoder = json.JSONDecoder()
    found: list[Any] = []
    position = 0
    while position < len(text):
        try:
            value, position = decoder.raw_decode(text, position)
        except ValueError:
            return found or None
        found += value if isinstance(value, list) else [value]
        while position < len(text) and text[position] in " \t\r\n,":
            position += 1
    return [item for item in found if isinstance(item, dict)]


def _below(fullpath: str, folder: Path) -> str:
    """`fullpath` below `folder`, `/`-separated; "" when it lies elsewhere."""
    if not fullpath:
        return ""
    try:
        relative = Path(os.path.normpath(fullpath)).relative_to(os.path.normpath(folder))
    except ValueError:
        return ""
    return "/".join(relative.parts)


def _word(value: object) -> str:
    text = str(value or "unknown")
    return "".join(char if char.isalnum() or char in "-_" else "-" for char in text)[:60]
