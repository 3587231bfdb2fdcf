"""Through the real server, a world on a filesystem that ignores case has one spelling per file (SPEC §3): an
address spelled otherwise is Invalid and names the spelling on disk, listings and searches use that
spelling, and no declaration or write under another spelling gets through. Run on a real folder of such
a filesystem (skipped, saying why, where none can be mounted) and on the in-memory one."""

import copy
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client

from adapters.local_files import LocalFiles
from adapters.memory_files import MemoryFiles
from app.bootstrap import build, build_core
from app.config import Settings
from domain.vocabulary import Mode, RootCategory
from tests.integration.test_files_contract import materialize

pytestmark = pytest.mark.anyio
R = RootCategory
TREE: dict[str, object] = {"README.md": b"read me\n", "Docs": {"Guide.txt": b"guide\n"}}


@pytest.fixture(params=["folder", "memory"])
def server(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Any]:
    """The server over ROOT_REPO holding TREE on a filesystem that ignores case, in ck3raven-dev."""
    files: LocalFiles | MemoryFiles
    if request.param == "folder":
        repo = request.getfixturevalue("folding")
        materialize(repo, TREE)
        files = LocalFiles({"ROOT_REPO": repo})
    else:
        repo = tmp_path / "repo"
        repo.mkdir()
        files = MemoryFiles({"ROOT_REPO": copy.deepcopy(TREE)}, ignores_case=True)  # it writes into it
    settings = Settings(
        "t", {R.ROOT_REPO: repo}, R.ROOT_REPO, Mode.CK3RAVEN_DEV, state_dir=tmp_path / "state"
    )
    yield build(settings, core=build_core(settings, files=files))
    if isinstance(files, LocalFiles):
        files.close()  # nothing of this process holds the mounted folder open when it is unmounted


async def call(client: Client, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    result = await client.call_tool(tool, args, raise_on_error=False)
    return dict(result.structured_content)


def opening(*targets: tuple[str, str]) -> dict[str, Any]:
    return {
        "command": "open",
        "root_category": "ROOT_REPO",
        "intent": "Add a guide page",
        "work_declaration": "The declared files only",
        "operations": ["WRITE"],
        "targets": [{"path": address, "edit_kind": kind} for address, kind in targets],
    }


async def test_a_read_spelled_otherwise_is_invalid_and_names_the_spelling_on_disk(server: Any):
    async with Client(server) as client:
        reply = await call(client, "ck3_read", {"path": "ROOT_REPO:/readme.MD"})

    assert reply["code"] == "WA-RES-I-019"
    assert reply["data"] == {"address": "ROOT_REPO:/readme.MD", "canonical": "ROOT_REPO:/README.md"}


async def test_the_named_spelling_reads(server: Any):
    async with Client(server) as client:
        refused = await call(client, "ck3_read", {"path": "ROOT_REPO:/DOCS/guide.txt"})
        reply = await call(client, "ck3_read", {"path": refused["data"]["canonical"]})

    assert reply["reply_type"] == "S"
    assert reply["data"]["address"] == "ROOT_REPO:/Docs/Guide.txt"


async def test_a_listing_and_a_search_name_entries_as_their_folders_have_them(server: Any):
    async with Client(server) as client:
        listing = await call(client, "ck3_dir", {"command": "list", "path": "ROOT_REPO:/"})
        found = await call(client, "ck3_search", {"command": "names", "glob": "**/*.txt"})

    assert [entry["name"] for entry in listing["data"]["entries"]] == ["Docs", "README.md"]
    assert [match["address"] for match in found["data"]["matches"]] == ["ROOT_REPO:/Docs/Guide.txt"]


async def test_a_contract_declaring_another_spelling_does_not_open_and_names_the_one_on_disk(server: Any):
    async with Client(server) as client:
        reply = await call(client, "ck3_contract", opening(("ROOT_REPO:/docs/Guide.txt", "modify")))

    assert reply["code"] == "CT-GATE-I-003"
    assert reply["data"]["targets"] == [
        {"index": 0, "problem": "WA-RES-I-019", "canonical": "ROOT_REPO:/Docs/Guide.txt"}
    ]


async def test_a_write_spelled_otherwise_than_its_folder_lands_nowhere(server: Any):
    async with Client(server) as client:
        opened = await call(client, "ck3_contract", opening(("ROOT_REPO:/Docs/New.txt", "add")))
        refused = await call(
            client, "ck3_file", {"command": "write", "path": "ROOT_REPO:/DOCS/New.txt", "content": "x\n"}
        )
        listing = await call(client, "ck3_dir", {"command": "list", "path": "ROOT_REPO:/Docs"})

    assert opened["code"] == "CT-GATE-S-001"
    assert refused["code"] == "WA-RES-I-019"
    assert refused["data"]["canonical"] == "ROOT_REPO:/Docs/New.txt"
    assert [entry["name"] for entry in listing["data"]["entries"]] == ["Guide.txt"]


async def test_a_case_only_rename_declared_as_delete_and_add_is_one_file_spelled_two_ways_and_does_not_open(
    server: Any,
):
    async with Client(server) as client:
        reply = await call(
            client,
            "ck3_contract",
            {
                **opening(("ROOT_REPO:/Docs/Guide.txt", "delete"), ("ROOT_REPO:/Docs/guide.txt", "add")),
                "operations": ["WRITE", "DELETE"],
            },
        )

    assert reply["code"] == "CT-GATE-I-003"
    assert reply["data"]["targets"] == [
        {"index": 1, "problem": "WA-RES-I-019", "canonical": "ROOT_REPO:/Docs/Guide.txt"}
    ]


async def test_two_new_targets_spelled_two_ways_are_one_file_and_do_not_open(server: Any):
    async with Client(server) as client:
        reply = await call(
            client,
            "ck3_contract",
            opening(("ROOT_REPO:/Docs/New.txt", "add"), ("ROOT_REPO:/Docs/new.txt", "add")),
        )

    assert reply["code"] == "CT-GATE-I-003"
    assert reply["data"]["targets"] == [
        {"index": 1, "problem": "another target names the same file", "canonical": "ROOT_REPO:/Docs/New.txt"}
    ]


async def test_a_case_only_rename_is_one_file_under_one_spelling_and_closes_as_declared(
    folding: Path, tmp_path: Path
):
    materialize(folding, TREE)
    files = LocalFiles({"ROOT_REPO": folding})
    settings = Settings(
        "t", {R.ROOT_REPO: folding}, R.ROOT_REPO, Mode.CK3RAVEN_DEV, state_dir=tmp_path / "state"
    )
    try:
        async with Client(build(settings, core=build_core(settings, files=files))) as client:
            opened = await call(client, "ck3_contract", opening(("ROOT_REPO:/Docs/Guide.txt", "modify")))
            (folding / "Docs" / "Guide.txt").rename(folding / "Docs" / "guide.txt")
            closed = await call(client, "ck3_contract", {"command": "close"})
    finally:
        files.close()

    assert opened["code"] == "CT-GATE-S-001"
    assert closed["code"] == "CT-GATE-S-002", closed
    assert [c["address"] for c in closed["data"]["changes"]] in ([], ["ROOT_REPO:/Docs/guide.txt"])
