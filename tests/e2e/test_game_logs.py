"""The game's logs through the served tools (SPEC §17): logs built from the forms the game writes in the
sample world's documents folder, asked with `ck3_search log`, kept with `ck3_file keep`; attributed through
the merged view and the journal; host paths never shown; the logs themselves never written."""

import os
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client

from app.bootstrap import build
from app.config import Settings
from tests.worlds import sample_world_on_disk

pytestmark = pytest.mark.anyio
DOCS = r"C:\Users\Ada\Documents\Paradox Interactive\Crusader Kings III"
WORKSHOP = "Z:/home/ada/.steam/steam/steamapps/workshop/content/1158310"
LOG = (
    "[18:55:24][jomini_script_system.cpp:169]: Script system error!\n"
    "  Error: has_trait trigger [ Unknown trait 'lucky_charm' ]\n"
    "  Script location: file: events/more_events.txt line: 12 (more.1:trigger)\n"
    "[18:55:25][jomini_script_system.cpp:169]: Script system error!\n"
    "  Error: has_trait trigger [ Unknown trait 'lucky_charm' ]\n"
    "  Script location: file: common/traits/zz_better_traits.txt line: 3 (x:trigger)\n"
    "[18:55:26][jomini_script_system.cpp:169]: Script system error!\n"
    "  Error: has_trait trigger [ Unknown trait 'lucky_charm' ]\n"
    f"  Script location: file: {WORKSHOP}/2217000001/localization/english/better_traits_l_english.yml"
    " line: 4 (x:trigger)\n"
    "[18:55:27][jomini_script_system.cpp:169]: Script system error!\n"
    "  Error: has_trait trigger [ Unknown trait 'lucky_charm' ]\n"
    f"  Script location: file: {DOCS}\\mod\\LocalFix\\common\\traits\\zzz_local_fix.txt line: 5 (x:y)\n"
    "[18:55:28][jomini_script_system.cpp:169]: Script system error!\n"
    "  Error: has_trait trigger [ Unknown trait 'lucky_charm' ]\n"
    "  Script location: file: common/traits/00_traits.txt line: 9 (x:trigger)\n"
    "[18:55:29][E][parser.cpp:932]: Error: unexpected token in"
    ' file: "common/traits/00_traits.txt" near line: 2\n'
    "a line that matches no form, naming /home/ada/secret.txt\n"
    "[18:55:30][W][lexer.cpp:299]: File '/mnt/c/Games/elsewhere/x.txt' should be in utf8-bom encoding\n"
)


def _world(tmp_path: Path, log: bytes = LOG.encode()) -> tuple[Settings, Path]:
    settings = sample_world_on_disk(tmp_path)
    logs = tmp_path / "world" / "documents" / "logs"
    logs.mkdir()
    (logs / "error.log").write_bytes(log)
    return settings, logs


async def _log(client: Client, **args: Any) -> dict[str, Any]:
    result = await client.call_tool("ck3_search", {"command": "log", **args}, raise_on_error=False)
    return dict(result.structured_content)


async def test_the_summary_counts_by_level_and_template_and_keeps_the_raw_line(tmp_path: Path):
    settings, _ = _world(tmp_path)

    async with Client(build(settings)) as client:
        reply = await _log(client)

    data = reply["data"]
    assert reply["code"] == "WA-LOG-S-001"
    assert data["emissions"] == 8
    assert data["levels"] == {"error": 6, "unknown": 1, "warning": 1}
    assert data["templates"][0]["count"] == 5
    assert data["templates"][0]["source"] == "jomini_script_system.cpp:169"


async def test_no_host_path_reaches_a_reply_of_any_view(tmp_path: Path):
    settings, _ = _world(tmp_path)

    async with Client(build(settings)) as client:
        replies = [
            await _log(client, view=view, offset=3 if view == "emission" else None)
            for view in ("summary", "groups", "emissions", "emission", "cascades", "raw")
        ]

    assert [r["reply_type"] for r in replies] == ["S"] * 6
    text = str(replies)
    assert "Ada" not in text
    assert "/home/" not in text
    assert "<outside>" in text
    raw = replies[5]["data"]["lines"]
    assert "mod:Local Fix:/common/traits/zzz_local_fix.txt" in raw[11]
    assert "mod:Better Traits:/localization/english/better_traits_l_english.yml" in raw[8]


async def test_an_emission_naming_an_overridden_file_names_the_mod_and_the_contract_that_changed_it(
    tmp_path: Path,
):
    settings, logs = _world(tmp_path)
    async with Client(build(settings)) as client:
        target = "mod:Local Fix:/common/traits/00_traits.txt"
        opened = await client.call_tool(
            "ck3_contract",
            {
                "command": "open",
                "root_category": "ROOT_USER_DOCS",
                "intent": "Fix the trait file",
                "work_declaration": "Edit the local override",
                "operations": ["WRITE"],
                "targets": [{"path": target, "edit_kind": "modify"}],
            },
        )
        written = await client.call_tool(
            "ck3_file", {"command": "write", "path": target, "content": "x = {}\n"}
        )
        assert written.structured_content["reply_type"] == "S"
        after = (await _log(client, view="emission", offset=5))["data"]["emission"]["files"][0]
        os.utime(logs / "error.log", (4102444800, 4102444800))  # the log written later: in 2100
        before = (await _log(client, view="emission", offset=5))["data"]["emission"]["files"][0]

    assert after["origin"] == "Local Fix"
    assert after["address"] == target
    assert after["contract"] == opened.structured_content["data"]["contract_id"]
    assert (after["changed"], after["possibly_fixed"]) == ("after", True)
    assert (before["changed"], before["possibly_fixed"]) == ("before", False)


async def test_a_missing_trait_used_in_five_files_of_three_mods_is_one_cascade_naming_the_trait(
    tmp_path: Path,
):
    settings, _ = _world(tmp_path)

    async with Client(build(settings)) as client:
        reply = await _log(client, view="cascades")

    first = reply["data"]["cascades"][0]
    assert (first["cause"], first["name"], first["count"], first["file_count"]) == (
        "trait",
        "lucky_charm",
        5,
        5,
    )
    assert first["origins"] == ["Better Traits", "Local Fix", "More Events"]


async def test_filters_keep_the_emissions_of_a_level_a_text_and_a_mod(tmp_path: Path):
    settings, _ = _world(tmp_path)

    async with Client(build(settings)) as client:
        warning = await _log(client, view="emissions", level="warning")
        found = await _log(client, view="emissions", pattern="UNEXPECTED TOKEN")
        mod = await _log(client, view="emissions", glob="mod:Better Traits:/*")

    assert [e["number"] for e in warning["data"]["emissions"]] == [8]
    assert [e["number"] for e in found["data"]["emissions"]] == [6]
    assert [e["number"] for e in mod["data"]["emissions"]] == [2, 3]


async def test_a_page_of_emissions_gives_the_cursor_of_the_next(tmp_path: Path):
    settings, _ = _world(tmp_path)

    async with Client(build(settings)) as client:
        first = await _log(client, view="emissions", limit=3)
        rest = await _log(client, view="emissions", limit=10, cursor=first["data"]["next_cursor"])

    assert [e["number"] for e in first["data"]["emissions"]] == [1, 2, 3]
    assert [e["number"] for e in rest["data"]["emissions"]] == [4, 5, 6, 7, 8]
    assert rest["data"]["next_cursor"] is None


@pytest.mark.parametrize(
    "log",
    [b"\x00\x01\x02\xff" * 100, b"[1:00:00][a.cpp:1]: caf\xe9\n\xff\xfe", b"[18:55:24][a.cpp:1]: cut", b""],
)
async def test_a_binary_truncated_or_not_utf8_log_answers_what_parsed_never_an_error(
    tmp_path: Path, log: bytes
):
    settings, _ = _world(tmp_path, log)

    async with Client(build(settings)) as client:
        replies = [await _log(client, view=view) for view in ("summary", "raw", "emissions")]

    assert [r["reply_type"] for r in replies] == ["S", "S", "S"]
    assert bool(replies[0]["data"]["findings"]) is bool(log)


async def test_kept_logs_are_asked_like_the_live_ones_and_the_live_log_is_untouched(tmp_path: Path):
    settings, logs = _world(tmp_path)

    async with Client(build(settings)) as client:
        kept = (
            await client.call_tool("ck3_file", {"command": "keep", "path": "ROOT_USER_DOCS:/logs"})
        ).structured_content
        copy = kept["data"]["files"][0]["address"]
        (logs / "error.log").write_bytes(b"")  # the game starts again and wipes it
        summary = await _log(client, path=copy)

    assert kept["code"] == "WA-LOG-S-005"
    assert copy.startswith("ROOT_CK3RAVEN_DATA:/wip/logs/")
    assert copy.endswith("/error.log")
    assert summary["data"]["emissions"] == 8


@pytest.mark.parametrize("command", ["write", "delete"])
async def test_no_agent_call_writes_or_deletes_a_log_of_the_game(tmp_path: Path, command: str):
    settings, logs = _world(tmp_path)

    async with Client(build(settings)) as client:
        reply = await client.call_tool(
            "ck3_file",
            {"command": command, "path": "ROOT_USER_DOCS:/logs/error.log", "content": "x"}
            if command == "write"
            else {"command": command, "path": "ROOT_USER_DOCS:/logs/error.log"},
            raise_on_error=False,
        )
        read = await client.call_tool(
            "ck3_read", {"path": "ROOT_USER_DOCS:/logs/error.log"}, raise_on_error=False
        )

    assert reply.structured_content["reply_type"] in {"I", "D"}
    assert read.structured_content["code"] == "WA-RES-I-001"
    assert (logs / "error.log").read_text(encoding="utf-8") == LOG


async def test_the_log_folder_lists_the_logs_and_crash_reports_to_ask(tmp_path: Path):
    settings, logs = _world(tmp_path)
    (logs / "game.log").write_text("[1:00:00][a.cpp:1]: x\n", encoding="utf-8")
    (logs.parent / "crashes" / "ck3_20261129").mkdir(parents=True)

    async with Client(build(settings)) as client:
        listed = await _log(client, path="ROOT_USER_DOCS:/logs")
        crashes = await _log(client, path="ROOT_USER_DOCS:/crashes")
        steam = await _log(client, path="ROOT_STEAM:/")

    assert [row["address"] for row in listed["data"]["logs"]] == [
        "ROOT_USER_DOCS:/logs/error.log",
        "ROOT_USER_DOCS:/logs/game.log",
    ]
    assert [row["kind"] for row in crashes["data"]["logs"]] == ["dir"]
    assert "2217000099" not in str(steam)


async def test_in_the_development_mode_too_no_call_writes_or_deletes_a_log_of_the_game(tmp_path: Path):
    from domain.vocabulary import Mode

    settings = sample_world_on_disk(tmp_path, Mode.CK3RAVEN_DEV)
    logs = tmp_path / "world" / "documents" / "logs"
    logs.mkdir()
    (logs / "error.log").write_text(LOG, encoding="utf-8")
    address = "ROOT_USER_DOCS:/logs/error.log"

    async with Client(build(settings)) as client:
        wrote = await client.call_tool(
            "ck3_file", {"command": "write", "path": address, "content": "x"}, raise_on_error=False
        )
        deleted = await client.call_tool(
            "ck3_file", {"command": "delete", "path": address}, raise_on_error=False
        )
        summary = await _log(client)

    assert wrote.structured_content["reply_type"] == "D"
    assert deleted.structured_content["reply_type"] == "D"
    assert summary["data"]["emissions"] == 8
    assert (logs / "error.log").read_text(encoding="utf-8") == LOG


FORMS_SEEN_NOWHERE = (
    "[18:56:00][E][C:/build/engine/jomini_script_system.cpp:12]: Error: in file:"
    " /data/SteamLibrary/steamapps/common/Crusader Kings III/game/events/a.txt line: 3\n"
    "[18:56:01][E][parser.cpp:1]: Error: reading file: /etc/ck3/x.txt line: 4 and //server/share/y.txt,"
    " file:///home/ada/z.txt, /lib/x86_64-linux-gnu/libc.so.6, -/home/ada/w and /Volumes/Games/v.txt\n"
)


async def test_host_paths_of_forms_the_logs_were_not_seen_to_write_are_replaced_in_every_view(
    tmp_path: Path,
):
    settings, _ = _world(tmp_path, (LOG + FORMS_SEEN_NOWHERE).encode())

    async with Client(build(settings)) as client:
        replies = [
            await _log(client, view=view, offset=8 if view == "emission" else None)
            for view in ("summary", "groups", "emissions", "emission", "cascades", "raw")
        ]

    assert [r["reply_type"] for r in replies] == ["S"] * 6
    text = str(replies)
    for host in ("/data/", "/etc/", "//server", "/home/", "/lib/", "/Volumes/", "C:/build"):
        assert host not in text
    assert "ROOT_GAME:/events/a.txt" in text


@pytest.mark.parametrize("cursor", ["²", "٣", "9" * 5000])
async def test_a_log_cursor_of_other_digits_or_thousands_of_them_is_invalid(tmp_path: Path, cursor: str):
    settings, _ = _world(tmp_path)

    async with Client(build(settings)) as client:
        reply = await _log(client, view="emissions", cursor=cursor)

    assert reply["reply_type"] == "I"
    assert reply["code"] == "MCP-VAL-I-001"


async def test_keep_copies_the_games_logs_only_never_another_file(tmp_path: Path):
    settings, _ = _world(tmp_path)

    async with Client(build(settings)) as client:
        kept = (
            await client.call_tool(
                "ck3_file",
                {"command": "keep", "path": "mod:Local Fix:/common/traits/zzz_local_fix.txt"},
                raise_on_error=False,
            )
        ).structured_content

    assert kept["code"] == "MCP-VAL-I-001"
    assert not (tmp_path / "world" / "ck3raven_data" / "wip" / "logs").exists()
