"""The contract law end to end on a real git repository: open, governed writes, close reconciles, tamper
and restart make contracts inert, renewal inherits scope and baseline."""

from pathlib import Path
from typing import Any

import pytest
from dulwich import porcelain
from fastmcp import Client

from app.bootstrap import build, build_core
from app.config import Settings
from domain.vocabulary import Mode, RootCategory
from tests.state_db import evidence, record, write_record
from tests.worlds import small_git_repo

pytestmark = pytest.mark.anyio
R = RootCategory


OPEN = {
    "command": "open",
    "root_category": "ROOT_REPO",
    "intent": "Fix a",
    "work_declaration": "Edit a, add new",
    "operations": ["WRITE", "DELETE"],
    "targets": [
        {"path": "ROOT_REPO:/src/a.py", "edit_kind": "modify"},
        {"path": "src/new.py", "edit_kind": "add"},
    ],
}


@pytest.fixture
def settings(git_settings: Settings) -> Settings:
    return git_settings


async def call(client: Client, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    result = await client.call_tool(tool, args, raise_on_error=False)
    return dict(result.structured_content)


def write(path: str, content: str = "# x\n") -> dict[str, Any]:
    return {"command": "write", "path": path, "content": content}


async def test_the_whole_law_open_write_reconcile_close(settings: Settings, state_home: Path):
    async with Client(build(settings)) as client:
        before = await call(client, "ck3_file", write("ROOT_REPO:/src/a.py", "a = 2\n"))
        opened = await call(client, "ck3_contract", OPEN)
        declared = await call(client, "ck3_file", write("ROOT_REPO:/src/a.py", "a = 2\n"))
        added = await call(client, "ck3_file", write("ROOT_REPO:/src/new.py"))
        stray = await call(client, "ck3_file", write("ROOT_REPO:/src/stray.py"))
        refused = await call(client, "ck3_contract", {"command": "close"})
        removed = await call(client, "ck3_file", {"command": "delete", "path": "ROOT_REPO:/src/stray.py"})
        closed = await call(client, "ck3_contract", {"command": "close"})
        after = await call(client, "ck3_file", write("ROOT_REPO:/src/a.py", "a = 3\n"))

    assert before["data"]["required"] == "contract"
    assert opened["code"] == "CT-GATE-S-001"
    assert len(opened["data"]["baseline_sha"]) == 64
    assert [r["address"] for r in opened["data"]["repositories"]] == ["ROOT_REPO:/"]
    assert len(opened["data"]["repositories"][0]["commit"]) == 40
    assert opened["data"]["targets"][1]["address"] == "ROOT_REPO:/src/new.py"
    assert (declared["code"], added["code"], stray["code"]) == ("WA-WRITE-S-001",) * 3
    assert refused["code"] == "CT-GATE-I-007"
    assert refused["data"]["undeclared"] == [
        {"address": "ROOT_REPO:/src/stray.py", "kind": "add", "source": "journal", "outside": False}
    ]
    assert removed["code"] == "WA-WRITE-S-002"
    assert closed["code"] == "CT-GATE-S-002"
    assert evidence(state_home, "close", opened["data"]["contract_id"])["changes"]
    assert after["data"]["required"] == "contract"


async def test_a_second_contract_cannot_open_beside_the_first(settings: Settings):
    async with Client(build(settings)) as client:
        await call(client, "ck3_contract", OPEN)
        second = await call(client, "ck3_contract", OPEN)

    assert second["code"] == "CT-GATE-I-002"


@pytest.mark.parametrize(
    ("change", "code"),
    [
        ({"root_category": "ROOT_GAME"}, "CT-GATE-I-001"),
        ({"operations": []}, "CT-GATE-I-001"),
        ({"targets": [{"path": "ROOT_CK3RAVEN_DATA:/wip/x", "edit_kind": "add"}]}, "CT-GATE-I-003"),
        ({"targets": [{"path": "/etc/passwd", "edit_kind": "add"}]}, "CT-GATE-I-003"),
    ],
)
async def test_the_open_gate_refuses_bad_requests_as_invalid(settings: Settings, change, code):
    async with Client(build(settings)) as client:
        reply = await call(client, "ck3_contract", {**OPEN, **change})

    assert reply["code"] == code


async def test_a_scope_the_matrix_does_not_permit_is_infeasible(settings: Settings):
    game = settings.roots[R.ROOT_REPO].parent / "game"
    game.mkdir()
    roots = {**settings.roots, R.ROOT_GAME: game}
    settings = Settings("test", roots, R.ROOT_REPO, Mode.CK3RAVEN_DEV)
    request = {
        **OPEN,
        "root_category": "ROOT_GAME",
        "targets": [{"path": "ROOT_GAME:/x.txt", "edit_kind": "add"}],
    }
    async with Client(build(settings)) as client:
        reply = await call(client, "ck3_contract", request)

    assert reply["code"] == "CT-GATE-I-004"
    assert reply["data"]["targets"] == [
        {"address": "ROOT_GAME:/x.txt", "operation": "DELETE"},
        {"address": "ROOT_GAME:/x.txt", "operation": "WRITE"},
    ]


async def test_a_contract_edited_on_disk_is_inert(settings: Settings, state_home: Path):
    async with Client(build(settings)) as client:
        opened = await call(client, "ck3_contract", OPEN)
        contract_id = opened["data"]["contract_id"]
        stored = record(state_home, "contracts", contract_id)
        stored["targets"].append({"address": "ROOT_REPO:/src/b.py", "edit_kind": "add"})
        write_record(state_home, "contracts", contract_id, stored)
        status = await call(client, "ck3_contract", {"command": "status"})
        denied = await call(client, "ck3_file", {"command": "delete", "path": "ROOT_REPO:/src/a.py"})

    assert status["data"]["active"] is None
    assert denied["data"]["required"] == "contract"


async def test_after_a_restart_the_old_contract_is_inert_and_renewal_inherits_it(settings: Settings):
    async with Client(build(settings)) as client:
        opened = await call(client, "ck3_contract", OPEN)
    async with Client(build(settings, core=build_core(settings))) as client:
        listed = await call(client, "ck3_contract", {"command": "list"})
        before = await call(client, "ck3_file", write("ROOT_REPO:/src/a.py", "a = 9\n"))
        renewed = await call(
            client, "ck3_contract", {"command": "renew", "contract_id": opened["data"]["contract_id"]}
        )
        after = await call(client, "ck3_file", write("ROOT_REPO:/src/a.py", "a = 9\n"))

    assert listed["data"]["contracts"][0]["inert"] is True
    assert before["data"]["required"] == "contract"
    assert renewed["code"] == "CT-GATE-S-006"
    assert renewed["data"]["renewed_from"] == opened["data"]["contract_id"]
    assert renewed["data"]["baseline_sha"] == opened["data"]["baseline_sha"]
    assert after["code"] == "WA-WRITE-S-001"


SMALL = {**OPEN, "targets": [{"path": "ROOT_REPO:/src/a.py", "edit_kind": "modify"}]}


async def test_carry_over_escalates_to_required_on_the_third_open(settings: Settings):
    async with Client(build(settings)) as client:
        await call(client, "ck3_contract", OPEN)
        await call(client, "ck3_file", write("ROOT_REPO:/src/new.py"))
        await call(client, "ck3_contract", {"command": "cancel"})
        severities = []
        for _ in range(2):
            opened = await call(client, "ck3_contract", SMALL)
            severities.append(opened["data"]["carry_over"]["severity"])
            await call(client, "ck3_contract", {"command": "cancel"})
        third = await call(client, "ck3_contract", SMALL)
        adopted = await call(client, "ck3_contract", OPEN)

    assert severities == ["informational", "warning"]
    assert third["code"] == "CT-GATE-I-008"
    assert third["data"]["required"] == ["ROOT_REPO:/src/new.py"]
    assert adopted["code"] == "CT-GATE-S-001"


async def test_carry_over_is_attributed_to_the_contract_that_declared_it(settings: Settings):
    async with Client(build(settings)) as client:
        first = await call(client, "ck3_contract", OPEN)
        await call(client, "ck3_file", write("ROOT_REPO:/src/new.py"))
        await call(client, "ck3_contract", {"command": "cancel"})
        second = await call(client, "ck3_contract", SMALL)

    clusters = second["data"]["carry_over"]["clusters"]
    assert [item["address"] for item in clusters[first["data"]["contract_id"]]] == ["ROOT_REPO:/src/new.py"]


async def test_git_status_diff_and_log_read_the_repository(settings: Settings):
    (settings.roots[R.ROOT_REPO] / "src" / "a.py").write_text("a = 5\n", encoding="utf-8")
    async with Client(build(settings)) as client:
        status = await call(client, "ck3_git", {"command": "status"})
        diff = await call(client, "ck3_git", {"command": "diff", "path": "ROOT_REPO:/src/a.py"})
        log = await call(client, "ck3_git", {"command": "log"})

    assert status["data"]["changes"] == [{"address": "ROOT_REPO:/src/a.py", "kind": "modify"}]
    assert "-a = 1" in diff["data"]["diff"]
    assert "+a = 5" in diff["data"]["diff"]
    assert [c["message"] for c in log["data"]["commits"]] == ["first"]


async def test_git_status_of_a_repository_without_commits_answers_no_head(tmp_path: Path):
    repo = tmp_path / "fresh"
    repo.mkdir()
    porcelain.init(str(repo))
    settings = Settings("t", {R.ROOT_REPO: repo}, R.ROOT_REPO, Mode.CK3RAVEN_DEV, state_dir=tmp_path / "s")

    async with Client(build(settings)) as client:
        status = await call(client, "ck3_git", {"command": "status"})

    assert (status["code"], status["data"]["head"]) == ("WA-READ-S-004", None)


async def test_committing_needs_a_contract_and_is_recorded_in_the_audit(settings: Settings, state_home: Path):
    async with Client(build(settings)) as client:
        await call(client, "ck3_file", write("ROOT_CK3RAVEN_DATA:/wip/x.txt"))
        denied = await call(client, "ck3_commit", {"command": "add", "paths": ["ROOT_REPO:/src/a.py"]})
        await call(client, "ck3_contract", OPEN)
        await call(client, "ck3_file", write("ROOT_REPO:/src/a.py", "a = 7\n"))
        staged = await call(client, "ck3_commit", {"command": "add", "paths": ["ROOT_REPO:/src/a.py"]})
        committed = await call(client, "ck3_commit", {"command": "commit", "message": "Raise a"})
        log = await call(client, "ck3_git", {"command": "log"})
        closed = await call(client, "ck3_contract", {"command": "close"})

    assert denied["data"]["required"] == "contract"
    assert staged["data"]["staged"] == ["ROOT_REPO:/src/a.py"]
    assert committed["code"] == "WA-WRITE-S-004"
    assert log["data"]["commits"][0]["message"] == "Raise a"
    assert evidence(state_home, "commit", committed["data"]["sha"])["message"] == "Raise a"
    assert closed["code"] == "CT-GATE-S-002"
    assert closed["data"]["changes"] == [
        {"address": "ROOT_REPO:/src/a.py", "kind": "modify", "source": "journal", "outside": False}
    ]


async def test_stashing_carry_over_needs_a_human_and_keeps_every_change_including_deletions(
    settings: Settings,
    state_home: Path,
):
    repo = settings.roots[R.ROOT_REPO]
    (repo / "src" / "b.py").write_text("b = 1\n", encoding="utf-8")
    porcelain.add(str(repo), paths=[str(repo / "src" / "b.py")])
    porcelain.commit(str(repo), message=b"b", author=b"T <t@x>", committer=b"T <t@x>")
    core = build_core(settings)
    request = {
        **OPEN,
        "targets": [*OPEN["targets"], {"path": "ROOT_REPO:/src/b.py", "edit_kind": "delete"}],
    }
    async with Client(build(settings, core=core)) as client:
        opened = await call(client, "ck3_contract", request)
        contract_id = opened["data"]["contract_id"]
        await call(client, "ck3_file", write("ROOT_REPO:/src/a.py", "a = 2\n"))
        await call(client, "ck3_file", write("ROOT_REPO:/src/new.py"))
        await call(client, "ck3_file", {"command": "delete", "path": "ROOT_REPO:/src/b.py"})
        await call(client, "ck3_contract", {"command": "cancel"})
        asked = await call(
            client, "ck3_contract", {"command": "stash_carry_over", "contract_id": contract_id}
        )
        core.decide_approval(asked["data"]["approval_id"], approve=True)
        stashed = await call(
            client, "ck3_contract", {"command": "stash_carry_over", "contract_id": contract_id}
        )

    assert asked["code"] == "CT-GATE-I-005"
    assert stashed["code"] == "CT-GATE-S-007"
    assert (repo / "src" / "a.py").read_text(encoding="utf-8") == "a = 1\n"
    assert (repo / "src" / "b.py").read_text(encoding="utf-8") == "b = 1\n"
    assert not (repo / "src" / "new.py").exists()
    saved = evidence(state_home, "stash", stashed["data"]["stash_id"])
    kept = {item["address"]: item["content"] for item in saved["files"]}
    assert kept["ROOT_REPO:/src/b.py"] is None
    assert kept["ROOT_REPO:/src/a.py"] is not None


async def test_a_root_in_no_repository_is_governed_by_a_manifest_of_its_whole_scope(tmp_path: Path):
    plain, data = tmp_path / "plain", tmp_path / "data"
    plain.mkdir()
    data.mkdir()
    (plain / "a.txt").write_text("a\n", encoding="utf-8")
    settings = Settings(
        "test", {R.ROOT_REPO: plain, R.ROOT_CK3RAVEN_DATA: data}, R.ROOT_REPO, Mode.CK3RAVEN_DEV
    )
    request = {
        **OPEN,
        "targets": [
            {"path": "ROOT_REPO:/a.txt", "edit_kind": "modify"},
            {"path": "ROOT_REPO:/b.txt", "edit_kind": "add"},
        ],
    }
    async with Client(build(settings)) as client:
        opened = await call(client, "ck3_contract", request)
        await call(client, "ck3_file", write("ROOT_REPO:/a.txt", "changed\n"))
        await call(client, "ck3_file", write("ROOT_REPO:/b.txt"))
        await call(client, "ck3_file", write("ROOT_REPO:/stray.txt"))
        refused = await call(client, "ck3_contract", {"command": "close"})
        await call(client, "ck3_file", {"command": "delete", "path": "ROOT_REPO:/stray.txt"})
        closed = await call(client, "ck3_contract", {"command": "close"})

    assert len(opened["data"]["baseline_sha"]) == 64
    assert opened["data"]["repositories"] == []
    assert opened["data"]["baseline"] == "a manifest of the scope (no git repository in it)"
    assert [(c["address"], c["kind"]) for c in refused["data"]["undeclared"]] == [
        ("ROOT_REPO:/stray.txt", "add")
    ]
    assert closed["data"]["changes"] == [
        {"address": "ROOT_REPO:/a.txt", "kind": "modify", "source": "journal", "outside": False},
        {"address": "ROOT_REPO:/b.txt", "kind": "add", "source": "journal", "outside": False},
    ]


async def test_protected_targets_open_only_after_a_human_approves_and_then_may_be_written(settings: Settings):
    core = build_core(settings)
    request = {**OPEN, "targets": [{"path": "ROOT_REPO:/policy/protected_files.json", "edit_kind": "add"}]}
    async with Client(build(settings, core=core)) as client:
        asked = await call(client, "ck3_contract", request)
        core.decide_approval(asked["data"]["approval_id"], approve=True)
        opened = await call(client, "ck3_contract", request)
        written = await call(
            client, "ck3_file", write("ROOT_REPO:/policy/protected_files.json", '{"protected": []}')
        )
        other = await call(client, "ck3_file", write("ROOT_REPO:/.git/hooks/pre-commit"))

    assert asked["code"] == "CT-GATE-I-005"
    assert asked["data"]["targets"] == ["ROOT_REPO:/policy/protected_files.json"]
    assert opened["code"] == "CT-GATE-S-001"
    assert written["code"] == "WA-WRITE-S-001"
    assert other["code"] == "EN-WRITE-D-005"


async def test_a_commit_message_naming_a_system_path_is_still_shown_by_log(settings: Settings):
    repo = settings.roots[R.ROOT_REPO]
    (repo / "src" / "a.py").write_text("a = 4\n", encoding="utf-8")
    porcelain.add(str(repo), paths=[str(repo / "src" / "a.py")])
    porcelain.commit(str(repo), message=b"Call /usr/bin/env python", author=b"T <t@x>", committer=b"T <t@x>")
    async with Client(build(settings)) as client:
        log = await call(client, "ck3_git", {"command": "log"})

    assert log["code"] == "WA-READ-S-006"
    assert log["data"]["commits"][0]["message"] == "Call /usr/bin/env python"


@pytest.mark.parametrize(
    ("root", "code"), [("ROOT_ETC", "WA-RES-I-009"), ("ROOT_CK3RAVEN_DATA", "WA-RES-I-018")]
)
async def test_git_on_a_root_that_is_unknown_or_in_no_repository_is_invalid(settings: Settings, root, code):
    async with Client(build(settings)) as client:
        log = await call(client, "ck3_git", {"command": "log", "path": root})

    assert log["code"] == code


async def test_staging_a_file_of_a_root_in_no_repository_is_invalid(settings: Settings):
    async with Client(build(settings)) as client:
        await call(client, "ck3_file", write("ROOT_CK3RAVEN_DATA:/wip/x.txt"))
        staged = await call(
            client, "ck3_commit", {"command": "add", "paths": ["ROOT_CK3RAVEN_DATA:/wip/x.txt"]}
        )

    assert staged["code"] == "WA-RES-I-018"


async def test_a_root_whose_repository_lies_above_it_has_no_repository_to_commit_into(tmp_path: Path):
    repo, data = small_git_repo(tmp_path)
    inner = Settings(
        "test", {R.ROOT_REPO: repo / "src", R.ROOT_CK3RAVEN_DATA: data}, R.ROOT_REPO, Mode.CK3RAVEN_DEV
    )
    (repo / "NOTES.md").write_text("the operator's own work\n", encoding="utf-8")
    porcelain.add(str(repo), paths=[str(repo / "NOTES.md")])
    head = porcelain.open_repo(str(repo)).head()
    request = {**OPEN, "targets": [{"path": "ROOT_REPO:/a.py", "edit_kind": "modify"}]}
    async with Client(build(inner)) as client:
        await call(client, "ck3_contract", request)
        await call(client, "ck3_file", write("ROOT_REPO:/a.py", "a = 5\n"))
        await call(client, "ck3_commit", {"command": "add", "paths": ["ROOT_REPO:/a.py"]})
        committed = await call(client, "ck3_commit", {"command": "commit", "message": "Five"})

    assert committed["code"] == "WA-RES-I-018"
    assert porcelain.open_repo(str(repo)).head() == head


async def test_a_stash_whose_file_cannot_be_saved_is_refused_before_a_human_is_asked(settings: Settings):
    repo = settings.roots[R.ROOT_REPO]
    async with Client(build(settings)) as client:
        await call(client, "ck3_contract", OPEN)
        await call(client, "ck3_file", write("ROOT_REPO:/src/a.py", "a = 2\n"))
        await call(client, "ck3_contract", {"command": "cancel"})
        # a file with two links is never read: neither known to be the contract's work nor able to be saved
        (repo / "twin.py").hardlink_to(repo / "src" / "a.py")
        refused = await call(client, "ck3_contract", {"command": "stash_carry_over"})

    assert refused["code"] == "CT-GATE-I-006"
    assert "ROOT_REPO:/src/a.py" in refused["data"]["problem"]
