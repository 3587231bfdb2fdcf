"""The operator guide's tables name every agent command and every operator command there is."""

import re
from pathlib import Path

from app.cli import _parser as parser
from domain.use_cases.commands import COMMANDS

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "operator-guide.md"


def _table_rows(first_cell: str) -> dict[str, str]:
    rows = {}
    for line in GUIDE.read_text(encoding="utf-8").splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if line.startswith("|") and re.fullmatch(first_cell, cells[0]):
            rows[cells[0]] = " ".join(cells[1:])
    return rows


def test_the_agent_tool_table_names_every_command_of_every_tool():
    rows = _table_rows(r"`ck3_\w+`")

    missing = [
        (tool, command)
        for tool, commands in COMMANDS.items()
        for command in commands
        if f"`{command}`" not in rows.get(f"`{tool}`", "") and tool != "ck3_read"
    ]
    assert set(rows) == {f"`{tool}`" for tool in COMMANDS}
    assert missing == []


def test_the_operator_command_table_names_every_subcommand():
    rows = " ".join(_table_rows(r"`ck3raven [a-z ]+`.*"))

    subcommands = parser()._subparsers._group_actions[0].choices
    assert [name for name in subcommands if f"`{name}`" not in rows and f"ck3raven {name}" not in rows] == []
