"""`ck3_contract revert`: the open contract's work shown first, then undone with a human's approval, the
content before saved aside."""

from pathlib import Path
from typing import Any

import pytest
from dulwich import porcelain
from fastmcp import Client

from app.bootstrap import build, build_core
from app.config import Settings
from domain.vocabulary import RootCategory
from tests.e2e.stdio import envelope, stdio_client, write_config
from tests.state_db import evidence

pytestmark = pytest.mark.anyio

OPEN = {
    "command": "open",
    "root_category": "ROOT_REPO",
    "intent": "Rework a",
    "work_declaration": "Edit a, add new, delete b",
    "operations": ["WRITE", "DELETE"],
    "targets": [
        {"path": "ROOT_REPO:/src/a.py", "edit_kind": "modify"},
        {"path": "ROOT_REPO:/src/new.py", "edit_kind": "add"},
        {"path": "ROOT_REPO:/src/b.py", "edit_kind": "delete"},
    ],
}
REVERT = {"command": "revert"}


@pytest.fixture
def repo(git_settings: Settings) -> Path:
    """The repository with `src/b.py` committed beside `src/a.py`."""
    repo = git_settings.roots[RootCategory.ROOT_REPO]
    (repo / "src" / "b.py").write_text("b = 1\n", encoding="utf-8")
    porcelain.add(str(repo), paths=[str(repo / "src" / "b.py")])
    porcelain.commit(str(repo), message=b"b", author=b"T <t@x>", committer=b"T <t@x>")
    return repo


async def call(client: Client, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    return dict((await client.call_tool(tool, args, raise_on_error=False)).structured_content)


WORK = [
    ("ck3_contract", OPEN),
    ("ck3_file", {"command": "write", "path": "src/a.py", "content": "a = 2\n"}),
    ("ck3_file", {"command": "write", "path": "src/new.py", "content": "new\n"}),
    ("ck3_file", {"command": "delete", "path": "src/b.py"}),
]
"""The contract's work: open, modify a, add new, delete b."""


async def work(client: Client) -> None:
    for tool, args in WORK:
        await call(client, tool, args)


async def test_a_dry_run_lists_each_change_and_what_reverting_does_and_changes_nothing(
    git_settings: Settings, repo: Path
):
    async with Client(build(git_settings)) as client:
        await work(client)
        shown = await call(client, "ck3_contract", {**REVERT, "dry_run": True})

    assert shown["code"] == "CT-GATE-S-008"
    assert {(f["address"], f["action"]) for f in shown["data"]["files"]} == {
        ("ROOT_REPO:/src/a.py", "restore"),
        ("ROOT_REPO:/src/new.py", "remove"),
        ("ROOT_REPO:/src/b.py", "recreate"),
    }
    assert (repo / "src" / "new.py").exists()


async def test_a_revert_waits_for_a_human_and_changes_nothing_until_then(git_settings: Settings, repo: Path):
    async with Client(build(git_settings)) as client:
        await work(client)
        asked = await call(client, "ck3_contract", REVERT)

    assert (asked["code"], asked["data"]["state"]) == ("CT-GATE-I-005", "pending")
    assert (repo / "src" / "a.py").read_text(encoding="utf-8") == "a = 2\n"


async def test_an_approved_revert_restores_the_baseline_and_saves_what_was_there(
    git_settings: Settings, repo: Path, state_home: Path
):
    core = build_core(git_settings)
    async with Client(build(git_settings, core=core)) as client:
        await work(client)
        asked = await call(client, "ck3_contract", REVERT)
        core.decide_approval(asked["data"]["approval_id"], approve=True)
        done = await call(client, "ck3_contract", REVERT)

    assert done["code"] == "CT-GATE-S-009"
    assert (repo / "src" / "a.py").read_text(encoding="utf-8") == "a = 1\n"
    assert (repo / "src" / "b.py").read_text(encoding="utf-8") == "b = 1\n"
    assert not (repo / "src" / "new.py").exists()
    saved = {
        f["address"]: f["content"] for f in evidence(state_home, "revert", done["data"]["saved_as"])["files"]
    }
    assert saved["ROOT_REPO:/src/b.py"] is None
    assert saved["ROOT_REPO:/src/new.py"] is not None


async def test_a_declined_revert_changes_nothing(git_settings: Settings, repo: Path):
    core = build_core(git_settings)
    async with Client(build(git_settings, core=core)) as client:
        await work(client)
        asked = await call(client, "ck3_contract", REVERT)
        core.decide_approval(asked["data"]["approval_id"], approve=False)
        declined = await call(client, "ck3_contract", REVERT)

    assert declined["data"]["state"] == "declined"
    assert (repo / "src" / "new.py").exists()


async def test_an_approval_for_one_set_of_changes_does_not_revert_another(git_settings: Settings, repo: Path):
    core = build_core(git_settings)
    async with Client(build(git_settings, core=core)) as client:
        await work(client)
        asked = await call(client, "ck3_contract", REVERT)
        core.decide_approval(asked["data"]["approval_id"], approve=True)
        await call(client, "ck3_file", {"command": "write", "path": "src/a.py", "content": "a = 3\n"})
        await call(client, "ck3_file", {"command": "delete", "path": "src/new.py"})
        again = await call(client, "ck3_contract", REVERT)

    assert (again["code"], again["data"]["state"]) == ("CT-GATE-I-005", "pending")
    assert (repo / "src" / "a.py").read_text(encoding="utf-8") == "a = 3\n"


async def test_without_an_open_contract_there_is_nothing_to_revert(git_settings: Settings):
    async with Client(build(git_settings)) as client:
        refused = await call(client, "ck3_contract", {**REVERT, "dry_run": True})

    assert refused["code"] == "CT-GATE-I-006"


async def test_a_client_that_can_ask_its_user_reverts_in_one_call_over_stdio(
    tmp_path: Path, git_settings: Settings, repo: Path
):
    from mcp.types import ElicitResult

    async def approve(context: object, params: object) -> ElicitResult:
        return ElicitResult(action="accept", content={"approve": True})

    roots = {root.value: path for root, path in git_settings.roots.items()}
    config = write_config(tmp_path, roots=roots)
    async with stdio_client(config, "auto", elicitation_callback=approve) as client:
        for tool, args in WORK:
            await client.call_tool(tool, args)
        done = envelope(await client.call_tool("ck3_contract", REVERT))

    assert done["code"] == "CT-GATE-S-009"
    assert not (repo / "src" / "new.py").exists()


async def test_a_revert_that_fails_partway_puts_back_what_it_restored_and_says_so(
    git_settings: Settings, repo: Path
):
    from adapters.local_files import LocalFiles
    from ports.errors import Unavailable
    from ports.files import Location

    class FailingOnB(LocalFiles):
        def write(self, location: Location, data: bytes, *, exclusive: bool = False) -> None:
            if location.parts == ("src", "b.py"):
                raise Unavailable("injected: the disk failed here")
            super().write(location, data, exclusive=exclusive)

    files = FailingOnB({root.value: path for root, path in git_settings.roots.items()})
    core = build_core(git_settings, files=files)
    async with Client(build(git_settings, core=core)) as client:
        await work(client)
        asked = await call(client, "ck3_contract", REVERT)
        core.decide_approval(asked["data"]["approval_id"], approve=True)
        stopped = await call(client, "ck3_contract", REVERT)

    assert (stopped["code"], stopped["data"]["left_changed"]) == ("CT-GATE-E-004", [])
    assert (repo / "src" / "a.py").read_text(encoding="utf-8") == "a = 2\n"
    assert (repo / "src" / "new.py").exists()


async def test_a_file_that_cannot_be_saved_refuses_the_revert_before_a_human_is_asked(
    git_settings: Settings, repo: Path
):
    async with Client(build(git_settings)) as client:
        await work(client)
        (repo / "twin.py").hardlink_to(repo / "src" / "a.py")  # a file with two links is never read
        refused = await call(client, "ck3_contract", REVERT)

    assert refused["code"] == "CT-GATE-I-006"
    assert "ROOT_REPO:/src/a.py" in refused["data"]["problem"]
