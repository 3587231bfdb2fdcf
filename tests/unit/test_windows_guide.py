"""The client configs of the WSL guide (docs/windows.md) start the server the one safe way: `wsl.exe -d
<distro> -e <absolute path> serve --config <absolute path>`, no shell, both paths on the distribution's own
disk, the same command line `ck3raven init` prints under WSL."""

import json
import re
import shlex
import tomllib
from pathlib import Path, PurePosixPath
from typing import Any

import pytest

from app.setup import windows_clients

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "windows.md"
_BLOCK = re.compile(r"^```(\w+)\n(.*?)^```", re.MULTILINE | re.DOTALL)
SHELLS = {"sh", "bash", "-c", "-lc", "-ic", "--shell-type", "cmd", "/c", "powershell", "pwsh"}


def blocks(language: str) -> list[str]:
    return [text for found, text in _BLOCK.findall(GUIDE.read_text(encoding="utf-8")) if found == language]


def entries() -> list[tuple[str, dict[str, Any]]]:
    """Every ck3raven server entry of the guide's JSON and TOML configs, with where it was found."""
    documents = [json.loads(text) for text in blocks("json")]
    found = [
        (key, doc[key]["ck3raven"]) for doc in documents for key in ("mcpServers", "servers") if key in doc
    ]
    found += [("mcp_servers", tomllib.loads(text)["mcp_servers"]["ck3raven"]) for text in blocks("toml")]
    return found


def launches() -> list[list[str]]:
    """The command line of each config of the guide, the `claude mcp add` ones included."""
    lines = [[entry["command"], *entry["args"]] for _, entry in entries()]
    added = [line for text in blocks("sh") for line in text.splitlines() if line.startswith("claude mcp add")]
    return lines + [shlex.split(line.split(" -- ", 1)[1]) for line in added]


def problems(argv: list[str]) -> list[str]:
    """What is wrong with a command line a Windows client starts the server with."""
    found = [f"{word!r} starts a shell" for word in argv if word in SHELLS]
    if len(argv) != 8 or argv[0] != "wsl.exe" or argv[1] != "-d" or argv[3] != "-e":
        return [*found, f"not `wsl.exe -d <distro> -e <program> serve --config <config>`: {argv}"]
    if not re.fullmatch(r"[A-Za-z0-9._-]+", argv[2]):
        found.append(f"distribution name {argv[2]!r}")
    if argv[5:7] != ["serve", "--config"]:
        found.append(f"not `serve --config`: {argv[5:7]}")
    for path in (argv[4], argv[7]):
        posix = PurePosixPath(path)
        if not posix.is_absolute() or posix.parts[1:2] == ("mnt",) or "~" in path or "$" in path:
            found.append(f"{path!r} is not an absolute path on the distribution's own disk")
    if PurePosixPath(argv[4]).name != "ck3raven":
        found.append(f"{argv[4]!r} is not the ck3raven command")
    return found


def test_the_guide_has_a_config_for_each_windows_client_it_names():
    assert len(launches()) == 6  # Claude Desktop, VS Code, Cursor, Gemini CLI, Codex CLI, Claude Code


@pytest.mark.parametrize("argv", launches(), ids=lambda argv: " ".join(argv)[:40])
def test_each_config_starts_the_server_through_wsl_exe_without_a_shell(argv: list[str]):
    assert problems(argv) == []


def test_each_config_is_the_command_line_init_prints_under_wsl():
    printed = windows_clients(
        PurePosixPath("/home/ada/.local/bin/ck3raven"),
        PurePosixPath("/home/ada/.ck3raven/config.toml"),
        "Ubuntu-24.04",
    )
    line = printed.split("starts it with: ", 1)[1].split(";", 1)[0]

    assert all(argv == shlex.split(line) for argv in launches())


def test_the_line_the_guide_shows_init_printing_is_the_one_it_prints():
    printed = windows_clients(
        PurePosixPath("/home/ada/.local/bin/ck3raven"),
        PurePosixPath("/home/ada/.ck3raven/config.toml"),
        "Ubuntu-24.04",
    )

    assert printed in [text.strip() for text in blocks("text")]


def test_the_vs_code_config_declares_a_stdio_server():
    assert [entry.get("type") for key, entry in entries() if key == "servers"] == ["stdio"]


@pytest.mark.parametrize(
    "argv",
    [
        ["wsl.exe", "-d", "Ubuntu", "bash", "-lc", "ck3raven serve --config /home/a/c.toml"],
        ["wsl.exe", "-d", "Ubuntu", "-e", "ck3raven", "serve", "--config", "/home/a/c.toml"],
        [
            "wsl.exe",
            "-d",
            "Ubuntu",
            "-e",
            "/home/a/bin/ck3raven",
            "serve",
            "--config",
            "/mnt/c/Users/a/c.toml",
        ],
        ["wsl.exe", "-d", "Ubuntu", "-e", "/home/a/bin/ck3raven", "serve", "--config", "~/c.toml"],
        ["C:/tools/ck3raven.exe", "serve", "--config", "C:/c.toml"],
    ],
)
def test_the_shape_check_refuses_a_shell_a_bare_name_a_windows_drive_and_a_native_command(argv: list[str]):
    assert problems(argv) != []
