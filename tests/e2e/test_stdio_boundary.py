"""The trust boundary, driven through `ck3raven serve` over stdio: each hole once seen stays closed.

No server state in any root; no implicit root; the operator log out of reach; `ck3_git` under the file
rules; protected defaults in mod folders; ordinary names never withheld as host paths; no replay of a
restored approval record.
"""

import os
import subprocess
from pathlib import Path
from typing import Any

import anyio
import pytest
from dulwich import porcelain

from tests.e2e.stdio import CK3RAVEN, envelope, on_terminal, stdio_client, write_config
from tests.state_db import record, write_record
from tests.worlds import small_git_repo

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]
CHECKOUT = Path(__file__).resolve().parents[2]


async def tool(client: Any, name: str, args: dict[str, Any]) -> dict[str, Any]:
    return envelope(await client.call_tool(name, args))


def open_request(root: str, *targets: str, operations: tuple[str, ...] = ("WRITE",)) -> dict[str, Any]:
    return {
        "command": "open",
        "root_category": root,
        "intent": "Boundary check",
        "work_declaration": "Touch the named files",
        "operations": list(operations),
        "targets": [{"path": target, "edit_kind": "add"} for target in targets],
    }


@pytest.fixture
def base(short_base: Path) -> Path:
    return short_base


@pytest.fixture
def lens(lens_config: Path) -> Path:
    return lens_config


@pytest.fixture
def dev_repo(base: Path) -> tuple[Path, Path]:
    """A git repository as ROOT_REPO in ck3raven-dev mode: the config, and the repository."""
    repo, data = small_git_repo(base)
    return write_config(base, roots={"ROOT_REPO": repo, "ROOT_CK3RAVEN_DATA": data}), repo


async def test_the_default_world_shows_no_server_state_and_no_other_root_inside_root_repo(tmp_path: Path):
    params = {
        "command": "make",
        "args": ["-s", "-C", str(CHECKOUT), "run"],
        "cwd": str(tmp_path),
        "env": {
            "HOME": str(tmp_path),
            "PATH": "/usr/bin:/bin:/usr/local/bin",
            "FASTMCP_CHECK_FOR_UPDATES": "off",
        },
    }
    from mcp import Client, StdioServerParameters

    async with Client(StdioServerParameters(**params)) as client:
        tree = envelope(
            await client.call_tool("ck3_dir", {"command": "tree", "path": "ROOT_REPO:/", "depth": 8})
        )
        data = envelope(
            await client.call_tool("ck3_dir", {"command": "list", "path": "ROOT_CK3RAVEN_DATA:/"})
        )
        state = envelope(
            await client.call_tool("ck3_dir", {"command": "list", "path": "ROOT_CK3RAVEN_DATA:/state"})
        )

    folders = " ".join(
        d for d in tree["data"]["directories"] if not d.startswith("ROOT_REPO:/.git")
    ).casefold()
    assert tree["reply_type"] == "S"
    assert not any(
        word in folders for word in ("state", "ck3raven_data", "steam", "documents", "game", "logs")
    )
    assert {entry["address"].split(":/")[1] for entry in data["data"]["entries"]} <= {
        "wip",
        "playsets",
        "config",
        "cache",
        "artifacts",
    }
    assert state["code"] == "WA-RES-I-001"


def test_serve_without_a_config_started_from_the_filesystem_top_exits_2_and_says_where_it_looked(
    tmp_path: Path,
):
    done = subprocess.run(
        [CK3RAVEN, "serve"],
        cwd="/",
        env={"HOME": str(tmp_path), "PATH": os.environ.get("PATH", "")},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        stdin=subprocess.DEVNULL,
    )

    assert done.returncode == 2
    assert "ck3raven init" in done.stderr
    assert "~/.ck3raven/config.toml" in done.stderr
    assert "Traceback" not in done.stderr


async def test_the_operator_log_is_written_in_the_state_directory_and_no_root_shows_it(lens: Path):
    async with stdio_client(lens, "auto") as client:
        logs = await tool(client, "ck3_dir", {"command": "list", "path": "ROOT_CK3RAVEN_DATA:/logs"})
        top = await tool(client, "ck3_dir", {"command": "list", "path": "ROOT_CK3RAVEN_DATA:/"})

    assert logs["code"] == "WA-RES-I-001"
    assert "ROOT_CK3RAVEN_DATA:/logs" not in {entry["address"] for entry in top["data"]["entries"]}
    assert any((lens.parent / "state").rglob("*.log"))


async def test_git_add_refuses_a_symbolic_link_as_the_file_tool_does(dev_repo: tuple[Path, Path]):
    config, repo = dev_repo
    (repo / "src" / "link.py").symlink_to("/etc/hostname")
    async with stdio_client(config, "auto") as client:
        await tool(client, "ck3_contract", open_request("ROOT_REPO", "ROOT_REPO:/src/link.py"))
        staged = await tool(client, "ck3_commit", {"command": "add", "paths": ["ROOT_REPO:/src/link.py"]})

    assert staged["code"] == "WA-RES-I-012"
    assert b"src/link.py" not in porcelain.open_repo(str(repo)).open_index()


async def test_git_add_refuses_a_file_with_a_second_hard_link(dev_repo: tuple[Path, Path]):
    config, repo = dev_repo
    outside = repo.parent / "outside.txt"
    outside.write_text("not the agent's\n", encoding="utf-8")
    os.link(outside, repo / "src" / "twin.py")
    async with stdio_client(config, "auto") as client:
        await tool(client, "ck3_contract", open_request("ROOT_REPO", "ROOT_REPO:/src/twin.py"))
        staged = await tool(client, "ck3_commit", {"command": "add", "paths": ["ROOT_REPO:/src/twin.py"]})

    assert staged["code"] == "WA-RES-I-013"
    assert b"src/twin.py" not in porcelain.open_repo(str(repo)).open_index()


async def test_git_diff_of_a_committed_link_never_shows_its_host_target(dev_repo: tuple[Path, Path]):
    config, repo = dev_repo
    (repo / "src" / "link.py").symlink_to("/etc/hostname")
    porcelain.add(str(repo), paths=[str(repo / "src" / "link.py")])
    porcelain.commit(str(repo), message=b"link", author=b"T <t@x>", committer=b"T <t@x>")
    (repo / "src" / "link.py").unlink()
    async with stdio_client(config, "auto") as client:
        shown = await tool(client, "ck3_git", {"command": "diff", "path": "ROOT_REPO:/src/link.py"})

    assert shown["code"] == "WA-READ-S-005"
    assert "/etc/hostname" not in str(shown)


async def test_git_works_on_a_local_mod_that_is_its_own_repository(lens: Path):
    mod = lens.parent / "world" / "documents" / "mod" / "LocalFix"
    porcelain.init(str(mod))
    files = [str(path) for path in mod.rglob("*") if path.is_file() and ".git" not in path.parts]
    porcelain.add(str(mod), paths=files)
    porcelain.commit(str(mod), message=b"Local fix, first", author=b"T <t@x>", committer=b"T <t@x>")
    async with stdio_client(lens, "auto") as client:
        log = await tool(client, "ck3_git", {"command": "log", "path": "mod:Local Fix:/"})

    assert log["code"] == "WA-READ-S-006"
    assert [commit["message"] for commit in log["data"]["commits"]] == ["Local fix, first"]


async def test_a_git_hook_in_a_local_mod_is_protected_and_needs_a_human_approval(lens: Path):
    hook = "mod:Local Fix:/.git/hooks/pre-commit"
    async with stdio_client(lens, "auto") as client:
        asked = await tool(client, "ck3_contract", open_request("ROOT_USER_DOCS", hook))
        opened = await tool(
            client, "ck3_contract", open_request("ROOT_USER_DOCS", "mod:Local Fix:/notes.txt")
        )
        written = await tool(client, "ck3_file", {"command": "write", "path": hook, "content": "#!/bin/sh\n"})

    assert (asked["code"], asked["data"]["targets"]) == (
        "CT-GATE-I-005",
        ["ROOT_USER_DOCS:/mod/LocalFix/.git/hooks/pre-commit"],  # where it is, whatever a playset calls it
    )
    assert opened["code"] == "CT-GATE-S-001"
    assert (written["code"], written["data"]["required"]) == ("EN-WRITE-D-005", "human_approval")
    assert not (lens.parent / "world" / "documents" / "mod" / "LocalFix" / ".git" / "hooks").exists()


@pytest.mark.parametrize("folder", ["gfx (old)", "k (1)", "art \U0001f3a8"])
async def test_an_ordinary_folder_name_is_never_withheld_as_a_host_path(lens: Path, folder: str):
    address = f"ROOT_CK3RAVEN_DATA:/wip/{folder}/x.txt"
    async with stdio_client(lens, "auto") as client:
        written = await tool(client, "ck3_file", {"command": "write", "path": address, "content": "x\n"})
        listed = await tool(client, "ck3_dir", {"command": "list", "path": "ROOT_CK3RAVEN_DATA:/wip"})

    assert (written["code"], written["data"]["address"]) == ("WA-WRITE-S-001", address)
    assert f"ROOT_CK3RAVEN_DATA:/wip/{folder}" in [entry["address"] for entry in listed["data"]["entries"]]


async def test_a_commit_whose_message_names_the_state_directory_is_refused_before_it_happens(
    dev_repo: tuple[Path, Path],
):
    config, repo = dev_repo
    head = porcelain.open_repo(str(repo)).head()
    (repo / "src" / "a.py").write_text("a = 2\n", encoding="utf-8")
    message = f"see {config.parent / 'state'}/contracts"
    async with stdio_client(config, "auto") as client:
        await tool(client, "ck3_contract", open_request("ROOT_REPO", "ROOT_REPO:/src/a.py"))
        await tool(client, "ck3_commit", {"command": "add", "paths": ["ROOT_REPO:/src/a.py"]})
        committed = await tool(client, "ck3_commit", {"command": "commit", "message": message})

    assert (committed["reply_type"], committed["code"]) == ("I", "WA-WRITE-I-005")
    assert porcelain.open_repo(str(repo)).head() == head


async def test_a_restored_approved_record_is_never_used_again(lens: Path):
    state = lens.parent / "state"
    async with stdio_client(lens, "auto") as client:
        first = await tool(client, "ck3_mode", {"command": "init", "mode": "ck3raven-dev"})
        first_id = str(first["data"]["approval_id"])
        await anyio.to_thread.run_sync(on_terminal, lens, "approve", first_id, b"approve\n")
        kept = record(state, "approvals", first_id)
        await tool(client, "ck3_mode", {"command": "init", "mode": "ck3raven-dev"})
        back = await tool(client, "ck3_mode", {"command": "init", "mode": "ck3lens"})
        await anyio.to_thread.run_sync(
            on_terminal, lens, "approve", str(back["data"]["approval_id"]), b"approve\n"
        )
        await tool(client, "ck3_mode", {"command": "init", "mode": "ck3lens"})
        write_record(state, "approvals", first_id, kept)
        replayed = await tool(client, "ck3_mode", {"command": "init", "mode": "ck3raven-dev"})
        status = await tool(client, "ck3_mode", {"command": "status"})

    assert replayed["code"] == "MCP-CFG-I-002"
    assert replayed["data"]["approval_id"] != first_id
    assert status["data"]["mode"] == "ck3lens"


async def test_the_playset_cannot_change_while_a_contract_is_open(lens: Path):
    async with stdio_client(lens, "auto") as client:
        opened = await tool(
            client, "ck3_contract", open_request("ROOT_USER_DOCS", "mod:Local Fix:/notes.txt")
        )
        switched = await tool(client, "ck3_playset", {"command": "switch", "name": "Sample Playset"})

    assert (switched["code"], switched["data"]["contract_id"]) == (
        "CT-GATE-I-002",
        opened["data"]["contract_id"],
    )


async def test_a_commit_message_naming_a_system_file_lands_and_is_told_as_it_is(dev_repo: tuple[Path, Path]):
    config, repo = dev_repo
    (repo / "src" / "a.py").write_text("a = 2\n", encoding="utf-8")
    async with stdio_client(config, "auto") as client:
        await tool(client, "ck3_contract", open_request("ROOT_REPO", "ROOT_REPO:/src/a.py"))
        await tool(client, "ck3_commit", {"command": "add", "paths": ["ROOT_REPO:/src/a.py"]})
        committed = await tool(
            client, "ck3_commit", {"command": "commit", "message": "read config from /etc/hosts"}
        )

    assert (committed["code"], committed["data"]["message"]) == (
        "WA-WRITE-S-004",
        "read config from /etc/hosts",
    )
    assert porcelain.open_repo(str(repo)).head().decode() == committed["data"]["sha"]
