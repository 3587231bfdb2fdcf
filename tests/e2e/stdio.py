"""Helpers to start `ck3raven serve` as a subprocess and talk to it with the official `mcp` client."""

import json
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from mcp import Client, StdioServerParameters

from tests.terminal import on_terminal as run_on_terminal

CK3RAVEN = str(Path(sys.executable).with_name("ck3raven"))


def said_by_probe(probe: str, *argv: str, first: str) -> list[dict[str, Any]]:
    """Run `probe` (Python source standing in for part of the command line) with `argv`, and the JSON lines
    it wrote to stderr whose text starts with `{"<first>"`."""
    done = subprocess.run(
        [sys.executable, "-c", probe, *argv],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    lines = [json.loads(line) for line in done.stderr.splitlines() if line.startswith('{"' + first + '"')]
    assert lines, done.stderr[-2000:]
    return lines


def write_config(
    folder: Path, *, mode: str | None = "ck3raven-dev", roots: dict[str, Path], playset: str | None = None
) -> Path:
    """A config.toml in `folder` naming `roots` (and `mode`, and the active playset); the server's state
    directory is `folder/state`."""
    lines = [f'mode = "{mode}"'] if mode else []
    lines += ['home = "ROOT_REPO"', f"state_dir = {json.dumps(str(folder / 'state'))}", "[roots]"]
    lines += [f"{name} = {json.dumps(str(path))}" for name, path in roots.items()]
    if playset:
        lines += ["[playset]", f"active = {json.dumps(playset)}"]
    config = folder / "config.toml"
    config.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return config


def server_parameters(config: Path, *extra: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=CK3RAVEN,
        args=["serve", "--config", str(config), *extra],
        cwd=str(config.parent),
        env={"FASTMCP_CHECK_FOR_UPDATES": "off", "PYTHONDONTWRITEBYTECODE": "1"},
    )


@asynccontextmanager
async def stdio_client(config: Path, era: str, *extra: str, **client_options: Any) -> AsyncIterator[Client]:
    async with Client(server_parameters(config, *extra), mode=era, **client_options) as client:
        yield client


def envelope(result: Any) -> dict[str, Any]:
    """The structured envelope of a CallToolResult, checked against its text twin."""
    structured: dict[str, Any] = result.structured_content
    assert json.loads(result.content[0].text) == structured
    return structured


def on_terminal(config: Path, verb: str, approval_id: str, answer: bytes) -> tuple[int, str]:
    """Run `ck3raven VERB ID --config CONFIG` on a controlling pseudo-terminal and type `answer`."""
    return run_on_terminal([CK3RAVEN, verb, approval_id, "--config", str(config)], answer, cwd=config.parent)
