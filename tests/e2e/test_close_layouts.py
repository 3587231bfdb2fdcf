"""Close sees every change in every layout modders use (SPEC §7): a root that is a repository, a root with
no git, a documents folder whose mods are one a repository and one not (work in each), and a world inside
an ignored folder of an enclosing repository. Each case runs in each layout and gets the same reply."""

import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from attrs import evolve, frozen
from dulwich import porcelain
from fastmcp import Client

from adapters.local_files import LocalFiles
from app.bootstrap import build, build_core
from app.config import Settings
from domain.vocabulary import Mode, RootCategory
from ports.files import Location
from tests.git_cli import git

pytestmark = pytest.mark.anyio
R = RootCategory
IDENTITY = b"T <t@x>"


@frozen
class Layout:
    """Where the work happens: the root, the folder declared work goes to, and another folder in scope."""

    settings: Settings
    root: str
    work: str
    """Root-relative folder of the declared work."""
    other: str
    """Another root-relative folder in the same scope (undeclared work lands there)."""
    disk: Path
    """The root on disk."""

    def address(self, folder: str, name: str) -> str:
        return f"{self.root}:/{folder}/{name}"

    def name_is_repository(self) -> bool:
        """Whether the root itself is a repository (so `ck3_commit` has one to commit into)."""
        return (self.disk / ".git").is_dir()


def _files(folder: Path, *, git: bool) -> None:
    """`a.txt`, `b.txt` and a `.gitignore` for `*.log` (committed when `git`)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "a.txt").write_text("alpha\n", encoding="utf-8")
    (folder / "b.txt").write_text("bravo\n", encoding="utf-8")
    (folder / ".gitignore").write_text("*.log\n", encoding="utf-8")
    if git:
        porcelain.init(str(folder))
        porcelain.add(str(folder), paths=[str(folder / n) for n in ("a.txt", "b.txt", ".gitignore")])
        porcelain.commit(str(folder), message=b"first", author=IDENTITY, committer=IDENTITY)


def _layout(name: str, base: Path) -> Layout:
    dev = Mode.CK3RAVEN_DEV
    if name in {"repository", "plain"}:
        root = base / "root"
        _files(root / "work", git=False)
        _files(root / "other", git=False)
        if name == "repository":
            porcelain.init(str(root))
            porcelain.add(str(root), paths=[str(p) for p in root.rglob("*") if p.is_file()])
            porcelain.commit(str(root), message=b"first", author=IDENTITY, committer=IDENTITY)
        settings = Settings("t", {R.ROOT_REPO: root}, R.ROOT_REPO, dev, state_dir=base / "state")
        return Layout(settings, "ROOT_REPO", "work", "other", root)
    if name == "enclosed":  # the `make run` world: a plain folder the checkout's repository ignores
        checkout = base / "checkout"
        _files(checkout, git=True)
        (checkout / ".gitignore").write_text("*.log\n.run/\n", encoding="utf-8")
        root = checkout / ".run" / "world"
        _files(root / "work", git=False)
        _files(root / "other", git=False)
        settings = Settings("t", {R.ROOT_REPO: root}, R.ROOT_REPO, dev, state_dir=base / "state")
        return Layout(settings, "ROOT_REPO", "work", "other", root)
    if name in WIDER:
        return _wider(name, base)
    docs = base / "documents"  # the Paradox folder: no git; one mod its own repository, one not
    _files(docs / "mod" / "GitMod", git=True)
    _files(docs / "mod" / "PlainMod", git=False)
    (docs / "pdx_settings.txt").write_text("settings\n", encoding="utf-8")
    settings = Settings("t", {R.ROOT_USER_DOCS: docs}, R.ROOT_USER_DOCS, dev, state_dir=base / "state")
    work, other = ("mod/GitMod", "mod/PlainMod") if name == "docs-git-mod" else ("mod/PlainMod", "mod/GitMod")
    return Layout(settings, "ROOT_USER_DOCS", work, other, docs)


def _wider(name: str, base: Path) -> Layout:
    """The documents folder's other layouts: every mod its own repository (`docs-every-mod`), the documents
    folder itself one repository (`docs-one-repository`), and a mod repository holding a submodule where
    the work goes, beside a plain mod holding a repository of its own (`docs-nested`)."""
    docs = base / "documents"
    dev = Mode.CK3RAVEN_DEV
    (docs / "mod").mkdir(parents=True)
    (docs / "pdx_settings.txt").write_text("settings\n", encoding="utf-8")
    work, other = "mod/GitMod", "mod/OtherMod"
    if name == "docs-nested":
        upstream = base / "upstream"
        _files(upstream, git=True)
        _files(docs / "mod" / "GitMod", git=True)
        git(docs / "mod" / "GitMod", "submodule", "add", "-q", str(upstream), "sub")
        git(docs / "mod" / "GitMod", "commit", "-q", "-m", "Add the submodule")
        _files(docs / "mod" / "OtherMod" / "lib", git=True)
        work, other = "mod/GitMod/sub", "mod/OtherMod/lib"
    else:
        every = name == "docs-every-mod"
        _files(docs / "mod" / "GitMod", git=every)
        _files(docs / "mod" / "OtherMod", git=every)
        if not every:
            git(docs, "init", "-q", "-b", "main")
            git(docs, "add", ".")
            git(docs, "commit", "-q", "-m", "first")
    settings = Settings("t", {R.ROOT_USER_DOCS: docs}, R.ROOT_USER_DOCS, dev, state_dir=base / "state")
    return Layout(settings, "ROOT_USER_DOCS", work, other, docs)


LAYOUTS = ["repository", "plain", "docs-git-mod", "docs-plain-mod", "enclosed"]
WIDER = ["docs-every-mod", "docs-one-repository", "docs-nested"]
"""Layouts the net change and case-only renames run in besides (a repository in a mod, a submodule)."""
EVERY = [*LAYOUTS, *WIDER]


@pytest.fixture(params=LAYOUTS)
def layout(request: pytest.FixtureRequest, tmp_path: Path) -> Layout:
    return _layout(str(request.param), tmp_path)


async def call(client: Client, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    result = await client.call_tool(tool, args, raise_on_error=False)
    return dict(result.structured_content)


def contract(layout: Layout, targets: list[tuple[str, str]]) -> dict[str, Any]:
    return {
        "command": "open",
        "root_category": layout.root,
        "intent": "Work on a mod",
        "work_declaration": "The declared files only",
        "operations": ["WRITE", "DELETE"],
        "targets": [{"path": layout.address(layout.work, n), "edit_kind": k} for n, k in targets],
    }


def write(address: str, content: str = "new\n") -> dict[str, Any]:
    return {"command": "write", "path": address, "content": content}


def delete(address: str) -> dict[str, Any]:
    return {"command": "delete", "path": address}


def listed(reply: dict[str, Any]) -> set[tuple[str, str]]:
    return {(c["address"], c["kind"]) for c in reply["data"]["undeclared"]}


async def closing(layout: Layout, targets: list[tuple[str, str]], work: Callable[..., Any]) -> dict[str, Any]:
    """Open a contract for `targets`, do `work(client)`, and answer the close."""
    async with Client(build(layout.settings)) as client:
        opened = await call(client, "ck3_contract", contract(layout, targets))
        assert opened["code"] == "CT-GATE-S-001", opened
        await work(client)
        return await call(client, "ck3_contract", {"command": "close"})


async def test_declared_work_only_closes_listing_it_as_the_journal_saw_it(layout: Layout):
    async def work(client: Client) -> None:
        await call(client, "ck3_file", write(layout.address(layout.work, "a.txt"), "changed\n"))
        await call(client, "ck3_file", write(layout.address(layout.work, "c.txt")))

    closed = await closing(layout, [("a.txt", "modify"), ("c.txt", "add")], work)

    assert closed["code"] == "CT-GATE-S-002"
    assert {(c["address"], c["kind"], c["source"]) for c in closed["data"]["changes"]} == {
        (layout.address(layout.work, "a.txt"), "modify", "journal"),
        (layout.address(layout.work, "c.txt"), "add", "journal"),
    }


async def test_an_undeclared_write_through_the_server_is_invalid(layout: Layout):
    async def work(client: Client) -> None:
        await call(client, "ck3_file", write(layout.address(layout.work, "a.txt"), "changed\n"))
        await call(client, "ck3_file", write(layout.address(layout.other, "stray.txt")))

    closed = await closing(layout, [("a.txt", "modify")], work)

    assert closed["code"] == "CT-GATE-I-007"
    assert closed["data"]["undeclared"] == [
        {
            "address": layout.address(layout.other, "stray.txt"),
            "kind": "add",
            "source": "journal",
            "outside": False,
        }
    ]


async def test_an_undeclared_change_outside_the_server_is_invalid_and_said_to_be_outside(layout: Layout):
    async def work(client: Client) -> None:
        (layout.disk / layout.other / "b.txt").write_text("edited in an editor\n", encoding="utf-8")
        (layout.disk / layout.other / "new.txt").write_text("made in a shell\n", encoding="utf-8")
        (layout.disk / layout.other / "a.txt").unlink()

    closed = await closing(layout, [("a.txt", "modify")], work)

    assert closed["code"] == "CT-GATE-I-007"
    assert listed(closed) == {
        (layout.address(layout.other, "b.txt"), "modify"),
        (layout.address(layout.other, "new.txt"), "add"),
        (layout.address(layout.other, "a.txt"), "delete"),
    }
    assert all(c["outside"] for c in closed["data"]["undeclared"])


async def test_a_file_the_mods_gitignore_ignores_written_outside_is_still_seen(layout: Layout):
    async def work(client: Client) -> None:
        (layout.disk / layout.work / "debug.log").write_text(
            "ignored by git, not by close\n", encoding="utf-8"
        )

    closed = await closing(layout, [("a.txt", "modify")], work)

    assert closed["code"] == "CT-GATE-I-007"
    assert listed(closed) == {(layout.address(layout.work, "debug.log"), "add")}
    assert closed["data"]["undeclared"][0]["source"] == "manifest"


async def test_an_edit_that_keeps_the_size_and_puts_the_mtime_back_is_seen(layout: Layout):
    target = layout.disk / layout.other / "b.txt"
    before = target.stat()

    async def work(client: Client) -> None:
        target.write_text("BRAVO\n", encoding="utf-8")  # the same size
        os.utime(target, ns=(before.st_atime_ns, before.st_mtime_ns))  # and the old time

    closed = await closing(layout, [("a.txt", "modify")], work)

    assert target.stat().st_mtime_ns == before.st_mtime_ns
    assert closed["code"] == "CT-GATE-I-007"
    assert listed(closed) == {(layout.address(layout.other, "b.txt"), "modify")}


async def test_a_declared_rename_closes_and_an_undeclared_one_is_listed_whole(layout: Layout):
    async def rename(client: Client) -> None:
        await call(client, "ck3_file", delete(layout.address(layout.work, "a.txt")))
        await call(client, "ck3_file", write(layout.address(layout.work, "renamed.txt"), "alpha\n"))

    async def back(client: Client) -> None:
        await call(client, "ck3_file", delete(layout.address(layout.work, "renamed.txt")))
        await call(client, "ck3_file", write(layout.address(layout.work, "a.txt"), "alpha\n"))

    declared = await closing(layout, [("a.txt", "delete"), ("renamed.txt", "add")], rename)
    undeclared = await closing(layout, [("b.txt", "modify")], back)

    assert declared["code"] == "CT-GATE-S-002"
    assert undeclared["code"] == "CT-GATE-I-007"
    assert listed(undeclared) == {
        (layout.address(layout.work, "renamed.txt"), "delete"),
        (layout.address(layout.work, "a.txt"), "add"),
    }


async def test_an_undeclared_rename_outside_the_server_lists_both_its_halves(layout: Layout):
    async def rename(client: Client) -> None:
        (layout.disk / layout.work / "a.txt").rename(layout.disk / layout.work / "renamed.txt")

    closed = await closing(layout, [("b.txt", "modify")], rename)

    assert closed["code"] == "CT-GATE-I-007"
    assert listed(closed) == {
        (layout.address(layout.work, "a.txt"), "delete"),
        (layout.address(layout.work, "renamed.txt"), "add"),
    }


@pytest.mark.parametrize("layout", EVERY, indirect=True)
async def test_a_case_only_rename_through_the_server_declared_as_delete_and_add_closes(layout: Layout):
    async def rename(client: Client) -> None:
        await call(client, "ck3_file", delete(layout.address(layout.work, "a.txt")))
        await call(client, "ck3_file", write(layout.address(layout.work, "A.txt"), "alpha\n"))

    closed = await closing(layout, [("a.txt", "delete"), ("A.txt", "add")], rename)

    assert closed["code"] == "CT-GATE-S-002", closed
    assert {(c["address"], c["kind"]) for c in closed["data"]["changes"]} == {
        (layout.address(layout.work, "a.txt"), "delete"),
        (layout.address(layout.work, "A.txt"), "add"),
    }


@pytest.mark.parametrize("layout", EVERY, indirect=True)
async def test_a_case_only_rename_outside_the_server_declared_as_delete_and_add_closes(layout: Layout):
    async def rename(client: Client) -> None:
        (layout.disk / layout.work / "a.txt").rename(layout.disk / layout.work / "A.txt")

    closed = await closing(layout, [("a.txt", "delete"), ("A.txt", "add")], rename)

    assert closed["code"] == "CT-GATE-S-002", closed
    assert {(c["address"], c["kind"]) for c in closed["data"]["changes"]} == {
        (layout.address(layout.work, "a.txt"), "delete"),
        (layout.address(layout.work, "A.txt"), "add"),
    }


async def test_a_case_only_rename_declared_under_one_spelling_only_is_invalid(layout: Layout):
    async def rename(client: Client) -> None:
        (layout.disk / layout.work / "a.txt").rename(layout.disk / layout.work / "A.txt")

    closed = await closing(layout, [("a.txt", "delete")], rename)

    assert closed["code"] == "CT-GATE-I-007", closed
    assert listed(closed) == {(layout.address(layout.work, "A.txt"), "add")}


async def test_a_file_declared_as_modified_but_deleted_is_invalid(layout: Layout):
    async def work(client: Client) -> None:
        await call(client, "ck3_file", delete(layout.address(layout.work, "a.txt")))

    closed = await closing(layout, [("a.txt", "modify")], work)

    assert closed["code"] == "CT-GATE-I-007"
    assert listed(closed) == {(layout.address(layout.work, "a.txt"), "delete")}


async def test_a_written_then_deleted_new_file_is_no_change_and_the_evidence_names_it(layout: Layout):
    async def work(client: Client) -> None:
        await call(client, "ck3_file", write(layout.address(layout.work, "a.txt"), "changed\n"))
        await call(client, "ck3_file", write(layout.address(layout.work, "scratch.txt")))
        await call(client, "ck3_file", delete(layout.address(layout.work, "scratch.txt")))

    closed = await closing(layout, [("a.txt", "modify")], work)

    assert closed["code"] == "CT-GATE-S-002"
    assert [c["address"] for c in closed["data"]["changes"]] == [layout.address(layout.work, "a.txt")]


def aged(layout: Layout) -> None:
    """Every file of the layout stamped an hour ago, as a mod's files are long after they were written: no
    file is racily clean, so the manifest takes no digest of any and only the stat speaks for it."""
    past = int((time.time() - 3600) * 1_000_000_000)
    for folder, subfolders, files in os.walk(layout.disk):
        subfolders[:] = [name for name in subfolders if name != ".git"]
        for name in files:
            os.utime(Path(folder) / name, ns=(past, past))


@pytest.mark.parametrize("layout", EVERY, indirect=True)
async def test_a_write_of_a_files_own_bytes_is_no_change(layout: Layout):
    aged(layout)

    async def work(client: Client) -> None:
        await call(client, "ck3_file", write(layout.address(layout.other, "b.txt"), "bravo\n"))

    closed = await closing(layout, [("a.txt", "modify")], work)

    assert closed["code"] == "CT-GATE-S-002", closed
    assert closed["data"]["changes"] == []


@pytest.mark.parametrize("layout", EVERY, indirect=True)
async def test_a_delete_then_a_write_of_the_same_bytes_is_no_change(layout: Layout):
    aged(layout)

    async def work(client: Client) -> None:
        await call(client, "ck3_file", delete(layout.address(layout.other, "b.txt")))
        await call(client, "ck3_file", write(layout.address(layout.other, "b.txt"), "bravo\n"))

    closed = await closing(layout, [("a.txt", "modify"), ("b.txt", "delete")], work)

    assert closed["code"] == "CT-GATE-S-002", closed
    assert closed["data"]["changes"] == []


@pytest.mark.parametrize("layout", EVERY, indirect=True)
async def test_net_zero_work_of_a_cancelled_contract_is_no_carry_over(layout: Layout):
    aged(layout)
    async with Client(build(layout.settings)) as client:
        await call(client, "ck3_contract", contract(layout, [("a.txt", "modify")]))
        await call(client, "ck3_file", write(layout.address(layout.work, "a.txt"), "alpha\n"))
        await call(client, "ck3_contract", {"command": "cancel"})
        reopened = await call(client, "ck3_contract", contract(layout, [("b.txt", "modify")]))

    assert reopened["code"] == "CT-GATE-S-001", reopened
    assert reopened["data"]["carry_over"] is None


async def test_a_human_edit_the_agent_then_overwrote_with_the_humans_bytes_is_still_listed(layout: Layout):
    aged(layout)
    b = layout.address(layout.other, "b.txt")

    async def work(client: Client) -> None:
        (layout.disk / layout.other / "b.txt").write_text("the human's longer edit\n", encoding="utf-8")
        await call(client, "ck3_file", write(b, "agent\n"))
        await call(client, "ck3_file", write(b, "the human's longer edit\n"))

    closed = await closing(layout, [("a.txt", "modify")], work)

    assert closed["code"] == "CT-GATE-I-007", closed
    assert listed(closed) == {(b, "modify")}


@pytest.mark.parametrize("layout", ["repository", "plain", "docs-git-mod"], indirect=True)
async def test_two_sessions_on_one_root_each_close_their_own_work(layout: Layout):
    core = build_core(layout.settings)
    first, second = contract(layout, [("a.txt", "modify")]), contract(layout, [("b.txt", "modify")])
    async with (
        Client(build(layout.settings, core=core)) as one,
        Client(build(layout.settings, core=core)) as two,
    ):
        opened = [await call(one, "ck3_contract", first), await call(two, "ck3_contract", second)]
        await call(one, "ck3_file", write(layout.address(layout.work, "a.txt"), "one\n"))
        await call(two, "ck3_file", write(layout.address(layout.work, "b.txt"), "two\n"))
        closed_one = await call(one, "ck3_contract", {"command": "close"})
        closed_two = await call(two, "ck3_contract", {"command": "close"})

    assert [o["code"] for o in opened] == ["CT-GATE-S-001"] * 2
    assert opened[1]["data"]["carry_over"] is None
    assert (closed_one["code"], closed_two["code"]) == ("CT-GATE-S-002", "CT-GATE-S-002")
    assert [c["address"] for c in closed_one["data"]["changes"]] == [layout.address(layout.work, "a.txt")]
    assert [c["address"] for c in closed_two["data"]["changes"]] == [layout.address(layout.work, "b.txt")]


@pytest.mark.parametrize("layout", ["repository", "docs-plain-mod"], indirect=True)
async def test_two_servers_on_one_state_directory_each_close_their_own_work(layout: Layout):
    first, second = contract(layout, [("a.txt", "modify")]), contract(layout, [("b.txt", "modify")])
    async with Client(build(layout.settings)) as one, Client(build(layout.settings)) as two:
        await call(one, "ck3_contract", first)
        await call(one, "ck3_file", write(layout.address(layout.work, "a.txt"), "one\n"))
        opened = await call(two, "ck3_contract", second)
        await call(two, "ck3_file", write(layout.address(layout.work, "b.txt"), "two\n"))
        closed_two = await call(two, "ck3_contract", {"command": "close"})
        closed_one = await call(one, "ck3_contract", {"command": "close"})

    assert opened["data"]["carry_over"] is None
    assert (closed_one["code"], closed_two["code"]) == ("CT-GATE-S-002", "CT-GATE-S-002")


@pytest.mark.parametrize("layout", ["docs-git-mod", "docs-plain-mod"], indirect=True)
async def test_the_game_writing_saves_logs_and_settings_during_a_contract_is_no_work(layout: Layout):
    async def work(client: Client) -> None:
        await call(client, "ck3_file", write(layout.address(layout.work, "a.txt"), "changed\n"))
        (layout.disk / "save games").mkdir()
        (layout.disk / "save games" / "autosave.ck3").write_bytes(b"save")
        (layout.disk / "pdx_settings.txt").write_text("changed by the game\n", encoding="utf-8")
        (layout.disk / "launcher-v2.sqlite").write_bytes(b"launcher")

    closed = await closing(layout, [("a.txt", "modify")], work)

    assert closed["code"] == "CT-GATE-S-002"


# ----------------------------------------------------------------------------------------- revert's scope


async def revert(client: Client, core: Any) -> dict[str, Any]:
    """Ask for the revert, approve it as the human, and revert."""
    asked = await call(client, "ck3_contract", {"command": "revert"})
    assert asked["code"] == "CT-GATE-I-005", asked
    core.decide_approval(asked["data"]["approval_id"], approve=True)
    return await call(client, "ck3_contract", {"command": "revert"})


@pytest.mark.parametrize("layout", ["repository", "plain", "docs-git-mod"], indirect=True)
async def test_a_revert_undoes_only_the_contracts_own_work_and_the_humans_survives(layout: Layout):
    core = build_core(layout.settings)
    human_edit, human_new = layout.disk / layout.work / "b.txt", layout.disk / layout.work / "notes.txt"
    async with Client(build(layout.settings, core=core)) as client:
        await call(client, "ck3_contract", contract(layout, [("a.txt", "modify"), ("c.txt", "add")]))
        await call(client, "ck3_file", write(layout.address(layout.work, "a.txt"), "agent\n"))
        await call(client, "ck3_file", write(layout.address(layout.work, "c.txt")))
        human_edit.write_text("the human's own edit\n", encoding="utf-8")
        human_new.write_text("the human's notes\n", encoding="utf-8")
        done = await revert(client, core)

    assert done["code"] == "CT-GATE-S-009"
    assert {(f["address"], f["action"]) for f in done["data"]["files"]} == {
        (layout.address(layout.work, "a.txt"), "restore"),
        (layout.address(layout.work, "c.txt"), "remove"),
    }
    assert (layout.disk / layout.work / "a.txt").read_text(encoding="utf-8") == "alpha\n"
    assert not (layout.disk / layout.work / "c.txt").exists()
    assert human_edit.read_text(encoding="utf-8") == "the human's own edit\n"
    assert human_new.read_text(encoding="utf-8") == "the human's notes\n"


@pytest.mark.parametrize("layout", ["repository", "plain"], indirect=True)
async def test_a_revert_leaves_alone_a_file_changed_again_since_the_contracts_work(layout: Layout):
    core = build_core(layout.settings)
    async with Client(build(layout.settings, core=core)) as client:
        await call(client, "ck3_contract", contract(layout, [("a.txt", "modify"), ("b.txt", "modify")]))
        await call(client, "ck3_file", write(layout.address(layout.work, "a.txt"), "agent\n"))
        await call(client, "ck3_file", write(layout.address(layout.work, "b.txt"), "agent\n"))
        (layout.disk / layout.work / "b.txt").write_text(
            "the human's edit after the agent's\n", encoding="utf-8"
        )
        shown = await call(client, "ck3_contract", {"command": "revert", "dry_run": True})
        done = await revert(client, core)

    assert shown["data"]["changed_since"] == [layout.address(layout.work, "b.txt")]
    assert [f["address"] for f in done["data"]["files"]] == [layout.address(layout.work, "a.txt")]
    assert (layout.disk / layout.work / "a.txt").read_text(encoding="utf-8") == "alpha\n"
    assert (layout.disk / layout.work / "b.txt").read_text(
        encoding="utf-8"
    ) == "the human's edit after the agent's\n"


@pytest.mark.parametrize("layout", ["plain"], indirect=True)
async def test_a_revert_stops_at_a_humans_edit_between_two_of_the_contracts_changes(layout: Layout):
    core = build_core(layout.settings)
    a = layout.address(layout.work, "a.txt")
    async with Client(build(layout.settings, core=core)) as client:
        await call(client, "ck3_contract", contract(layout, [("a.txt", "modify")]))
        await call(client, "ck3_file", write(a, "agent\n"))
        (layout.disk / layout.work / "a.txt").write_text("agent\nHUMAN LINE\n", encoding="utf-8")
        edit = {"command": "edit", "path": a, "old_string": "agent", "new_string": "agent again"}
        edited = await call(client, "ck3_file", edit)
        done = await revert(client, core)

    assert edited["code"] == "WA-WRITE-S-005", edited
    assert done["code"] == "CT-GATE-S-009"
    assert (layout.disk / layout.work / "a.txt").read_text(encoding="utf-8") == "agent\nHUMAN LINE\n"


@pytest.mark.parametrize("layout", ["repository"], indirect=True)
async def test_a_revert_lists_the_contracts_commits_and_leaves_them_in_history(layout: Layout):
    core = build_core(layout.settings)
    async with Client(build(layout.settings, core=core)) as client:
        await call(client, "ck3_contract", contract(layout, [("a.txt", "modify")]))
        await call(client, "ck3_file", write(layout.address(layout.work, "a.txt"), "agent\n"))
        await call(client, "ck3_commit", {"command": "add", "paths": [layout.address(layout.work, "a.txt")]})
        committed = await call(client, "ck3_commit", {"command": "commit", "message": "Agent work"})
        shown = await call(client, "ck3_contract", {"command": "revert", "dry_run": True})

    assert committed["code"] == "WA-WRITE-S-004"
    assert [c["commit"] for c in shown["data"]["commits"]] == [committed["data"]["sha"]]
    assert porcelain.open_repo(str(layout.disk)).head().decode() == committed["data"]["sha"]


# ------------------------------------------------------------------------------ links, renewal and expiry


@pytest.mark.parametrize("layout", ["repository", "docs-git-mod", "plain"], indirect=True)
async def test_a_committed_untouched_link_is_no_change_and_a_retargeted_one_is(layout: Layout):
    folder = layout.disk / layout.work
    (folder / "link").symlink_to("a.txt")
    top = layout.disk if layout.root == "ROOT_REPO" else folder
    if (top / ".git").is_dir():
        porcelain.add(str(top), paths=[str(folder / "link")])
        porcelain.commit(str(top), message=b"a link", author=IDENTITY, committer=IDENTITY)

    async def untouched(client: Client) -> None:
        await call(client, "ck3_file", write(layout.address(layout.work, "a.txt"), "changed\n"))

    async def retarget(client: Client) -> None:
        (folder / "link").unlink()
        (folder / "link").symlink_to("b.txt")

    clean = await closing(layout, [("a.txt", "modify")], untouched)
    moved = await closing(layout, [("a.txt", "modify")], retarget)

    assert clean["code"] == "CT-GATE-S-002"
    assert moved["code"] == "CT-GATE-I-007"
    assert listed(moved) == {(layout.address(layout.work, "link"), "modify")}


@pytest.mark.parametrize("layout", ["repository", "plain"], indirect=True)
async def test_a_contract_expires_by_the_clock_and_its_renewal_keeps_the_original_baseline(layout: Layout):
    from tests.fakes import FakeClock

    clock = FakeClock()
    core = build_core(layout.settings, clock=clock)
    a = layout.address(layout.work, "a.txt")
    async with Client(build(layout.settings, core=core)) as client:
        opened = await call(
            client, "ck3_contract", {**contract(layout, [("a.txt", "modify")]), "ttl_minutes": 5}
        )
        await call(client, "ck3_file", write(a, "agent\n"))
        if layout.name_is_repository():
            await call(client, "ck3_commit", {"command": "add", "paths": [a]})
            await call(client, "ck3_commit", {"command": "commit", "message": "Agent work"})
        clock.advance(minutes=6)
        expired = await call(client, "ck3_file", write(a, "after expiry\n"))
        renewed = await call(
            client, "ck3_contract", {"command": "renew", "contract_id": opened["data"]["contract_id"]}
        )
        closed = await call(client, "ck3_contract", {"command": "close"})

    assert expired["data"]["required"] == "contract"
    assert renewed["code"] == "CT-GATE-S-006"
    assert renewed["data"]["baseline_sha"] == opened["data"]["baseline_sha"]
    assert closed["code"] == "CT-GATE-S-002"
    assert [(c["address"], c["kind"]) for c in closed["data"]["changes"]] == [(a, "modify")]


# --------------------------------------------------------------------------------- carry-over and stash


@pytest.mark.parametrize("layout", ["plain", "docs-plain-mod", "repository"], indirect=True)
async def test_work_a_cancelled_contract_left_is_carry_over_and_a_stash_puts_it_back(layout: Layout):
    core = build_core(layout.settings)
    a, c = layout.address(layout.work, "a.txt"), layout.address(layout.work, "c.txt")
    async with Client(build(layout.settings, core=core)) as client:
        first = await call(client, "ck3_contract", contract(layout, [("a.txt", "modify"), ("c.txt", "add")]))
        await call(client, "ck3_file", write(a, "agent\n"))
        await call(client, "ck3_file", write(c))
        await call(client, "ck3_contract", {"command": "cancel"})
        second = await call(client, "ck3_contract", contract(layout, [("b.txt", "modify")]))
        await call(client, "ck3_contract", {"command": "cancel"})
        stash = {
            "command": "stash_carry_over",
            "root_category": layout.root,
            "contract_id": first["data"]["contract_id"],
        }
        asked = await call(client, "ck3_contract", stash)
        core.decide_approval(asked["data"]["approval_id"], approve=True)
        stashed = await call(client, "ck3_contract", stash)
        third = await call(client, "ck3_contract", contract(layout, [("b.txt", "modify")]))

    clusters = second["data"]["carry_over"]["clusters"]
    assert {(f["address"], f["kind"]) for f in clusters[first["data"]["contract_id"]]} == {
        (a, "modify"),
        (c, "add"),
    }
    assert stashed["code"] == "CT-GATE-S-007"
    assert (layout.disk / layout.work / "a.txt").read_text(encoding="utf-8") == "alpha\n"
    assert not (layout.disk / layout.work / "c.txt").exists()
    assert third["data"]["carry_over"] is None


@pytest.mark.parametrize("layout", ["plain", "repository"], indirect=True)
async def test_work_a_contract_closed_s_left_uncommitted_is_never_carry_over(layout: Layout):
    async with Client(build(layout.settings)) as client:
        await call(client, "ck3_contract", contract(layout, [("a.txt", "modify")]))
        await call(client, "ck3_file", write(layout.address(layout.work, "a.txt"), "agent\n"))
        closed = await call(client, "ck3_contract", {"command": "close"})
        reopened = await call(client, "ck3_contract", contract(layout, [("b.txt", "modify")]))

    assert closed["code"] == "CT-GATE-S-002"
    assert reopened["data"]["carry_over"] is None


@pytest.mark.parametrize("layout", ["repository", "docs-git-mod", "docs-nested"], indirect=True)
async def test_a_human_edit_a_contract_declared_and_closed_s_is_carry_over_only_once_changed_again(
    layout: Layout,
):
    by_hand = layout.disk / layout.work / "a.txt"
    async with Client(build(layout.settings)) as client:
        await call(client, "ck3_contract", contract(layout, [("a.txt", "modify")]))
        by_hand.write_text("the human's edit\n", encoding="utf-8")
        closed = await call(client, "ck3_contract", {"command": "close"})
        later = []
        for _ in range(3):
            later.append(await call(client, "ck3_contract", contract(layout, [("b.txt", "modify")])))
            await call(client, "ck3_contract", {"command": "close"})
        by_hand.write_text("another edit\n", encoding="utf-8")
        again = await call(client, "ck3_contract", contract(layout, [("b.txt", "modify")]))

    assert closed["code"] == "CT-GATE-S-002", closed
    assert [(r["code"], r["data"]["carry_over"]) for r in later] == [("CT-GATE-S-001", None)] * 3
    assert again["data"]["carry_over"]["clusters"] == {
        "unattributed": [{"address": layout.address(layout.work, "a.txt"), "kind": "modify", "opens": 1}]
    }


# ------------------------------------------------------------------- history, and what a stat cannot prove


@pytest.mark.parametrize("layout", ["repository", "docs-git-mod"], indirect=True)
async def test_an_undeclared_commit_of_work_left_uncommitted_before_the_contract_is_seen(layout: Layout):
    (layout.disk / layout.work / "b.txt").write_text("the human's uncommitted edit\n", encoding="utf-8")
    b = layout.address(layout.work, "b.txt")

    async def commit(client: Client) -> None:
        await call(client, "ck3_commit", {"command": "add", "paths": [b]})
        committed = await call(
            client,
            "ck3_commit",
            {"command": "commit", "message": "Take it", "path": f"{layout.root}:/{layout.work}"},
        )
        assert committed["code"] == "WA-WRITE-S-004", committed

    closed = await closing(layout, [("a.txt", "modify")], commit)

    assert closed["code"] == "CT-GATE-I-007"
    assert closed["data"]["undeclared"] == [
        {"address": b, "kind": "modify", "source": "repository", "outside": True}
    ]


class NoCtimeFiles(LocalFiles):
    """A filesystem that keeps no change time (as some network mounts and FAT do): a file's stat is then
    its size, inode and a modification time anyone can set back."""

    def survey(self, location: Location, keep: Any) -> Any:
        for parts, found in super().survey(location, keep):
            yield parts, evolve(found, ctime_ns=0)

    def survey_table(self, location: Location, keep: Any, above: str = "", whole: Any = None) -> Any:
        rows = super().survey_table(location, keep, above, whole)
        return {path: (*row[:3], 0, *row[4:]) for path, row in rows.items()}


@pytest.mark.parametrize("layout", ["plain"], indirect=True)
async def test_a_file_changed_in_place_where_its_stat_proves_nothing_is_seen_by_its_content(layout: Layout):
    from tests.fakes import FakeClock

    files = NoCtimeFiles({root.value: path for root, path in layout.settings.roots.items()})
    clock = FakeClock()
    core = build_core(layout.settings, files=files, clock=clock)
    target = layout.disk / layout.other / "b.txt"
    # stamped 1.5 s before the open by the server's clock (however slowly the machine runs): within the two
    # seconds in which a stat proves nothing, so the open digests the file
    stamp = int(clock.now().timestamp() * 10**9) - 1_500_000_000
    os.utime(target, ns=(stamp, stamp))
    async with Client(build(layout.settings, core=core)) as client:
        await call(client, "ck3_contract", contract(layout, [("a.txt", "modify")]))
        with target.open("r+", encoding="utf-8") as same_inode:
            same_inode.write("BRAVO\n")  # the same size and inode
        os.utime(target, ns=(stamp, stamp))  # and the same time: only the content tells
        closed = await call(client, "ck3_contract", {"command": "close"})

    assert closed["code"] == "CT-GATE-I-007"
    assert listed(closed) == {(layout.address(layout.other, "b.txt"), "modify")}


@pytest.mark.parametrize("layout", ["plain", "repository"], indirect=True)
async def test_a_file_an_ended_contract_declared_but_a_human_changed_is_never_stashed_as_its_work(
    layout: Layout,
):
    core = build_core(layout.settings)
    async with Client(build(layout.settings, core=core)) as client:
        first = await call(
            client, "ck3_contract", contract(layout, [("a.txt", "modify"), ("b.txt", "modify")])
        )
        await call(client, "ck3_file", write(layout.address(layout.work, "a.txt"), "agent\n"))
        await call(client, "ck3_contract", {"command": "cancel"})
        (layout.disk / layout.work / "b.txt").write_text("the human's edit\n", encoding="utf-8")
        stash = {
            "command": "stash_carry_over",
            "root_category": layout.root,
            "contract_id": first["data"]["contract_id"],
        }
        asked = await call(client, "ck3_contract", stash)
        core.decide_approval(asked["data"]["approval_id"], approve=True)
        stashed = await call(client, "ck3_contract", stash)

    assert stashed["data"]["files"] == [layout.address(layout.work, "a.txt")]
    assert (layout.disk / layout.work / "b.txt").read_text(encoding="utf-8") == "the human's edit\n"


@pytest.mark.parametrize("layout", ["plain", "repository"], indirect=True)
async def test_work_of_a_renewal_line_that_closed_s_is_never_carry_over(layout: Layout):
    from tests.fakes import FakeClock

    clock = FakeClock()
    core = build_core(layout.settings, clock=clock)
    a = layout.address(layout.work, "a.txt")
    async with Client(build(layout.settings, core=core)) as client:
        opened = await call(
            client, "ck3_contract", {**contract(layout, [("a.txt", "modify")]), "ttl_minutes": 5}
        )
        await call(client, "ck3_file", write(a, "agent\n"))
        clock.advance(minutes=6)
        await call(client, "ck3_contract", {"command": "renew", "contract_id": opened["data"]["contract_id"]})
        closed = await call(client, "ck3_contract", {"command": "close"})
        reopened = await call(client, "ck3_contract", contract(layout, [("b.txt", "modify")]))

    assert closed["code"] == "CT-GATE-S-002"
    assert reopened["data"]["carry_over"] is None


@pytest.mark.parametrize("layout", ["repository"], indirect=True)
async def test_work_an_ended_contract_committed_is_no_carry_over(layout: Layout):
    a = layout.address(layout.work, "a.txt")
    async with Client(build(layout.settings)) as client:
        await call(client, "ck3_contract", contract(layout, [("a.txt", "modify")]))
        await call(client, "ck3_file", write(a, "agent\n"))
        await call(client, "ck3_commit", {"command": "add", "paths": [a]})
        await call(client, "ck3_commit", {"command": "commit", "message": "Agent work"})
        await call(client, "ck3_contract", {"command": "cancel"})
        reopened = await call(client, "ck3_contract", contract(layout, [("b.txt", "modify")]))

    assert reopened["data"]["carry_over"] is None


# ------------------------------------------------------------------------------ scopes that are awkward


@pytest.mark.parametrize("layout", ["plain"], indirect=True)
async def test_folders_nested_deeper_than_a_survey_goes_make_close_invalid_not_an_error(layout: Layout):
    async def nest(client: Client) -> None:
        deep = layout.disk / layout.other / "/".join(["d"] * 300)
        deep.mkdir(parents=True)
        (deep / "x.txt").write_text("deep\n", encoding="utf-8")

    closed = await closing(layout, [("a.txt", "modify")], nest)

    assert closed["code"] == "CT-GATE-I-006"
    assert "nest deeper than" in closed["data"]["problem"]


@pytest.mark.parametrize("layout", ["plain", "docs-git-mod"], indirect=True)
async def test_an_empty_git_folder_in_the_scope_is_no_repository_and_hides_nothing(layout: Layout):
    (layout.disk / layout.other / ".git").mkdir()

    async def work(client: Client) -> None:
        (layout.disk / layout.other / "b.txt").write_text("edited\n", encoding="utf-8")

    closed = await closing(layout, [("a.txt", "modify")], work)

    assert closed["code"] == "CT-GATE-I-007"
    assert listed(closed) == {(layout.address(layout.other, "b.txt"), "modify")}


@pytest.mark.parametrize("layout", ["repository", "docs-git-mod"], indirect=True)
async def test_a_repository_made_during_the_contract_hides_nothing(layout: Layout):
    async def work(client: Client) -> None:
        if not (layout.disk / layout.other / ".git").exists():
            porcelain.init(str(layout.disk / layout.other))
        (layout.disk / layout.other / "b.txt").write_text("edited\n", encoding="utf-8")

    closed = await closing(layout, [("a.txt", "modify")], work)

    assert closed["code"] == "CT-GATE-I-007"
    assert listed(closed) == {(layout.address(layout.other, "b.txt"), "modify")}


@pytest.mark.parametrize("layout", ["plain", "repository"], indirect=True)
async def test_changes_to_files_no_address_can_spell_are_counted_never_passed_over(layout: Layout):
    async def work(client: Client) -> None:
        (layout.disk / layout.other / "e\u0301vents.txt").write_text("decomposed name\n", encoding="utf-8")
        (layout.disk / layout.other / "trailing ").mkdir()
        (layout.disk / layout.other / "trailing " / "x.txt").write_text(
            "below a bad name\n", encoding="utf-8"
        )

    closed = await closing(layout, [("a.txt", "modify")], work)

    assert closed["code"] == "CT-GATE-I-007"
    assert (closed["data"]["unnamed"], closed["data"]["undeclared"]) == (2, [])


@pytest.mark.parametrize("layout", ["repository"], indirect=True)
async def test_unattributed_work_is_put_back_at_head_each_time_it_is_stashed(layout: Layout):
    core = build_core(layout.settings)
    human = layout.disk / layout.work / "b.txt"
    stash = {"command": "stash_carry_over", "root_category": layout.root}
    stashed = []
    async with Client(build(layout.settings, core=core)) as client:
        for edit in ("the human's first edit\n", "the human's second edit\n"):
            human.write_text(edit, encoding="utf-8")
            asked = await call(client, "ck3_contract", stash)
            core.decide_approval(asked["data"]["approval_id"], approve=True)
            stashed.append(await call(client, "ck3_contract", stash))

    assert [reply["code"] for reply in stashed] == ["CT-GATE-S-007", "CT-GATE-S-007"]
    assert human.read_text(encoding="utf-8") == "bravo\n"
