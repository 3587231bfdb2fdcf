"""Compliance at close (law Phase 1.5) on a real git repository: new symbols need NSTs, lint findings need
live LXEs approved by a human, and the lint ruleset must be the one recorded when the contract opened."""

import json
from pathlib import Path
from typing import Any

import pytest
from dulwich import porcelain
from fastmcp import Client

from app.bootstrap import build, build_core, state_folder
from app.config import Settings
from domain.vocabulary import RootCategory
from tests.e2e.stdio import envelope, stdio_client, write_config
from tests.fakes import FakeClock

pytestmark = pytest.mark.anyio
TRAITS = "mod/common/traits/00_traits.txt"


@pytest.fixture
def repo(git_settings: Settings) -> Path:
    """The repository with a CK3 trait file committed beside `src/a.py`."""
    repo = git_settings.roots[RootCategory.ROOT_REPO]
    (repo / "mod" / "common" / "traits").mkdir(parents=True)
    (repo / TRAITS).write_text("brave = {\n\tcost = 1\n}\n", encoding="utf-8")
    porcelain.add(str(repo), paths=[str(repo / TRAITS)])
    porcelain.commit(str(repo), message=b"traits", author=b"T <t@x>", committer=b"T <t@x>")
    return repo


OPEN = {
    "command": "open",
    "root_category": "ROOT_REPO",
    "intent": "A greeting and a trait",
    "work_declaration": "Add greet() and the craven trait",
    "operations": ["WRITE"],
    "targets": [
        {"path": "ROOT_REPO:/src/a.py", "edit_kind": "modify"},
        {"path": f"ROOT_REPO:/{TRAITS}", "edit_kind": "modify"},
    ],
}
WORK = [
    {"command": "write", "path": "src/a.py", "content": "a = 1\n\n\ndef greet():\n    return a\n"},
    {"command": "write", "path": TRAITS, "content": "brave = {\n\tcost = 1\n}\ncraven = {\n\tcost = 2\n}\n"},
]
NST = {
    "command": "nst",
    "symbols": [{"name": "greet", "path": "ROOT_REPO:/src/a.py"}, {"name": "craven"}],
    "reason": "asked for by the user",
}


async def call(client: Client, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    return dict((await client.call_tool(tool, args, raise_on_error=False)).structured_content)


async def work(client: Client, extra: list[dict[str, Any]] = ()) -> None:  # type: ignore[assignment]
    await call(client, "ck3_contract", OPEN)
    for args in [*WORK, *extra]:
        await call(client, "ck3_file", args)


async def test_new_symbols_without_nsts_keep_the_contract_open_naming_each(
    git_settings: Settings, repo: Path
):
    async with Client(build(git_settings)) as client:
        await work(client)
        refused = await call(client, "ck3_contract", {"command": "close"})

    assert refused["code"] == "CT-GATE-I-009"
    assert {(s["name"], s["address"]) for s in refused["data"]["uncovered"]} == {
        ("greet", "ROOT_REPO:/src/a.py"),
        ("craven", f"ROOT_REPO:/{TRAITS}"),
    }
    assert (refused["data"]["request"]["tool"], refused["data"]["request"]["arguments"]["command"]) == (
        "ck3_token",
        "nst",
    )


async def test_with_nsts_for_every_new_symbol_the_contract_closes_and_its_evidence_says_so(
    git_settings: Settings, repo: Path
):
    async with Client(build(git_settings)) as client:
        await work(client)
        await call(client, "ck3_token", NST)
        closed = await call(client, "ck3_contract", {"command": "close"})
        status = await call(client, "ck3_contract", {"command": "status"})

    assert closed["code"] == "CT-GATE-S-002"
    compliance = status["data"]["last_closed"]["compliance"]
    assert compliance["outcome"] == "complies"
    assert {n["name"] for n in compliance["nsts"]} == {"greet", "craven"}


async def test_the_ready_nst_request_of_a_refusal_closes_the_contract_when_sent(
    git_settings: Settings, repo: Path
):
    async with Client(build(git_settings)) as client:
        await work(client)
        refused = await call(client, "ck3_contract", {"command": "close"})
        request = {**refused["data"]["request"]["arguments"], "reason": "the user asked for both"}
        declared = await call(client, "ck3_token", request)
        closed = await call(client, "ck3_contract", {"command": "close"})

    assert (declared["code"], closed["code"]) == ("CT-GATE-S-010", "CT-GATE-S-002")


LINTED = {"command": "write", "path": "src/b.py", "content": "import os\n"}
"""A file with a lint finding (F401, an unused import) and no new symbol."""


async def test_a_lint_finding_without_an_lxe_keeps_the_contract_open(git_settings: Settings, repo: Path):
    async with Client(build(git_settings)) as client:
        await call(client, "ck3_contract", {**OPEN, "targets": [*OPEN["targets"], _added("src/b.py")]})
        await call(client, "ck3_file", LINTED)
        refused = await call(client, "ck3_contract", {"command": "close"})

    assert refused["code"] == "CT-GATE-I-010"
    assert refused["data"]["over"] == [
        {"rule": "F401", "path": "ROOT_REPO:/src/b.py", "found": 1, "excused": 0}
    ]


LXE = {
    "command": "lxe",
    "rules": ["F401"],
    "paths": ["src/b.py"],
    "max_violations": 1,
    "reason": "kept for later",
}


async def test_an_lxe_a_human_approved_excuses_the_finding(git_settings: Settings, repo: Path):
    core = build_core(git_settings)
    async with Client(build(git_settings, core=core)) as client:
        asked, granted = await linted_then_excused(client, core)
        closed = await call(client, "ck3_contract", {"command": "close"})

    assert asked["code"] == "CT-GATE-I-005"
    assert granted["code"] == "CT-GATE-S-011"
    assert (repo / "policy" / "tokens" / f"{granted['data']['lxe_id']}.json").is_file()
    assert closed["code"] == "CT-GATE-S-002"


async def test_an_lxe_no_longer_counts_eight_hours_after_its_approval(git_settings: Settings, repo: Path):
    clock = FakeClock()
    core = build_core(git_settings, clock=clock)
    async with Client(build(git_settings, core=core)) as client:
        await call(
            client,
            "ck3_contract",
            {**OPEN, "ttl_minutes": 300, "targets": [*OPEN["targets"], _added("src/b.py")]},
        )
        opened = await call(client, "ck3_contract", {"command": "status"})
        await call(client, "ck3_file", LINTED)
        asked = await call(client, "ck3_token", LXE)
        core.decide_approval(asked["data"]["approval_id"], approve=True)
        await call(client, "ck3_token", LXE)
        clock.advance(hours=5, minutes=1)  # the contract expires; its renewal inherits the LXE
        await call(
            client,
            "ck3_contract",
            {"command": "renew", "contract_id": opened["data"]["active"]["contract_id"], "ttl_minutes": 240},
        )
        clock.advance(hours=3)
        refused = await call(client, "ck3_contract", {"command": "close"})

    assert refused["code"] == "CT-GATE-I-010"


async def test_an_lxe_file_edited_by_hand_is_undeclared_work_not_a_token(git_settings: Settings, repo: Path):
    core = build_core(git_settings)
    async with Client(build(git_settings, core=core)) as client:
        _, granted = await linted_then_excused(client, core)
        token = repo / "policy" / "tokens" / f"{granted['data']['lxe_id']}.json"
        edited = json.loads(token.read_text(encoding="utf-8"))
        token.write_text(json.dumps({**edited, "max_violations": 99}), encoding="utf-8")
        refused = await call(client, "ck3_contract", {"command": "close"})

    assert refused["code"] == "CT-GATE-I-007"
    assert [c["address"] for c in refused["data"]["undeclared"]] == [
        f"ROOT_REPO:/policy/tokens/{granted['data']['lxe_id']}.json"
    ]


async def test_a_ruleset_changed_during_the_contract_makes_close_invalid(git_settings: Settings, repo: Path):
    async with Client(build(git_settings)) as client:
        await work(client)
        await call(client, "ck3_token", NST)
        ruleset = state_folder(git_settings) / "lint-ruleset.json"
        ruleset.parent.mkdir(parents=True, exist_ok=True)
        ruleset.write_text(json.dumps({"select": ["E9"]}), encoding="utf-8")
        refused = await call(client, "ck3_contract", {"command": "close"})

    assert refused["code"] == "CT-GATE-I-011"


async def test_an_nst_needs_the_open_contract(git_settings: Settings):
    async with Client(build(git_settings)) as client:
        refused = await call(client, "ck3_token", NST)

    assert refused["code"] == "CT-GATE-I-006"


async def test_over_stdio_a_python_function_and_a_ck3_trait_need_nsts_then_close(
    tmp_path: Path, git_settings: Settings, repo: Path
):
    roots = {root.value: path for root, path in git_settings.roots.items()}
    config = write_config(tmp_path, roots=roots)
    async with stdio_client(config, "auto") as client:
        await client.call_tool("ck3_contract", OPEN)
        for args in WORK:
            await client.call_tool("ck3_file", args)
        refused = envelope(await client.call_tool("ck3_contract", {"command": "close"}))
        await client.call_tool("ck3_token", NST)
        closed = envelope(await client.call_tool("ck3_contract", {"command": "close"}))

    assert {s["name"] for s in refused["data"]["uncovered"]} == {"greet", "craven"}
    assert closed["code"] == "CT-GATE-S-002"


async def linted_then_excused(client: Client, core: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """Open a contract adding src/b.py, write it with a lint finding, propose the LXE that excuses it and
    have a human approve it: the asking reply and the granting one."""
    await call(client, "ck3_contract", {**OPEN, "targets": [*OPEN["targets"], _added("src/b.py")]})
    await call(client, "ck3_file", LINTED)
    asked = await call(client, "ck3_token", LXE)
    core.decide_approval(asked["data"]["approval_id"], approve=True)
    return asked, await call(client, "ck3_token", LXE)


def _added(path: str) -> dict[str, str]:
    return {"path": f"ROOT_REPO:/{path}", "edit_kind": "add"}


ZEALOUS = "zealous = {\n\tname = trait_brave\n\tdesc = trait_brave\n}\n"
"""A new trait whose name and description name localisation the sample game has."""


async def test_on_the_sample_world_a_new_trait_in_the_local_mod_needs_an_nst(tmp_path: Path):
    from domain.vocabulary import Mode
    from tests.worlds import sample_world_on_disk

    settings = sample_world_on_disk(tmp_path, Mode.CK3LENS)
    trait = "mod:Local Fix:/common/traits/zz_new_traits.txt"
    contract = {
        "command": "open",
        "root_category": "ROOT_USER_DOCS",
        "intent": "A new trait",
        "work_declaration": "Add the zealous trait to the local fix",
        "operations": ["WRITE"],
        "targets": [{"path": trait, "edit_kind": "add"}],
    }
    async with Client(build(settings)) as client:
        await call(client, "ck3_contract", contract)
        await call(client, "ck3_file", {"command": "write", "path": trait, "content": ZEALOUS})
        refused = await call(client, "ck3_contract", {"command": "close"})
        await call(
            client, "ck3_token", {"command": "nst", "symbols": [{"name": "zealous"}], "reason": "asked"}
        )
        closed = await call(client, "ck3_contract", {"command": "close"})

    assert refused["data"]["uncovered"] == [{"name": "zealous", "address": trait}]
    assert closed["code"] == "CT-GATE-S-002"


async def test_a_noqa_comment_does_not_silence_a_lint_rule(git_settings: Settings, repo: Path):
    async with Client(build(git_settings)) as client:
        await call(client, "ck3_contract", {**OPEN, "targets": [*OPEN["targets"], _added("src/b.py")]})
        await call(
            client, "ck3_file", {"command": "write", "path": "src/b.py", "content": "import os  # noqa\n"}
        )
        refused = await call(client, "ck3_contract", {"command": "close"})

    assert [row["rule"] for row in refused["data"]["over"]] == ["F401"]


async def test_a_finding_the_file_had_at_its_baseline_needs_no_lxe(git_settings: Settings, repo: Path):
    (repo / "src" / "old.py").write_text("import os\n", encoding="utf-8")
    porcelain.add(str(repo), paths=[str(repo / "src" / "old.py")])
    porcelain.commit(str(repo), message=b"old", author=b"T <t@x>", committer=b"T <t@x>")
    modified = {"path": "ROOT_REPO:/src/old.py", "edit_kind": "modify"}
    async with Client(build(git_settings)) as client:
        await call(client, "ck3_contract", {**OPEN, "targets": [modified]})
        await call(
            client, "ck3_file", {"command": "write", "path": "src/old.py", "content": "import os\n# kept\n"}
        )
        closed = await call(client, "ck3_contract", {"command": "close"})

    assert closed["code"] == "CT-GATE-S-002"


async def test_the_servers_own_lxe_file_is_not_carried_over_into_the_next_contract(
    git_settings: Settings, repo: Path
):
    core = build_core(git_settings)
    async with Client(build(git_settings, core=core)) as client:
        await linted_then_excused(client, core)
        await call(client, "ck3_contract", {"command": "close"})
        reopened = await call(client, "ck3_contract", {**OPEN, "targets": [_added("src/c.py")]})

    carried = reopened["data"]["carry_over"] or {}
    assert "policy/tokens" not in json.dumps(carried)


def test_close_runs_ruff_by_its_absolute_path_never_as_a_module_of_the_working_folder(tmp_path: Path):
    from adapters.ruff_linter import RuffLinter

    linter = RuffLinter(tmp_path / "lint-ruleset.json")

    assert linter.ruleset()["tool"] == "ruff"
    assert linter._find().is_absolute()
    assert linter._find().name.startswith("ruff")
