"""Lists of governance facts fit the operator's budget (SPEC §16): a refusal counts its list in full, shows
what fits, and gives the rest by cursor; the decision is taken on the whole list."""

from typing import Any

import pytest
from attrs import evolve
from fastmcp import Client

from app.bootstrap import build
from app.config import Settings
from domain.vocabulary import RootCategory

pytestmark = pytest.mark.anyio
BUDGET = 4 * 1024
IMPORTS = 400
"""Unused imports in one file: one lint finding each (F401)."""
STAGED = 200
"""Files staged at once: their addresses alone take several budgets."""


async def _reply(client: Client, tool: str, args: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    result = await client.call_tool(tool, args, raise_on_error=False)
    return len(result.content[0].text.encode("utf-8")), dict(result.structured_content)


async def test_lint_findings_past_the_budget_come_a_page_at_a_time_and_keep_the_contract_open(
    git_settings: Settings,
):
    settings = evolve(git_settings, budget_kib=4)
    content = "".join(f"import module_{n:04}\n" for n in range(IMPORTS))
    opening = {"command": "open", "root_category": "ROOT_REPO", "intent": "Imports", "operations": ["WRITE"]}
    opening |= {"work_declaration": "Add imports", "targets": [{"path": "src/b.py", "edit_kind": "add"}]}
    findings: list[dict[str, Any]] = []
    sizes = []
    async with Client(build(settings)) as client:
        await _reply(client, "ck3_contract", opening)
        await _reply(client, "ck3_file", {"command": "write", "path": "src/b.py", "content": content})
        cursor = None
        while True:
            size, env = await _reply(
                client, "ck3_contract", {"command": "close"} | ({"cursor": cursor} if cursor else {})
            )
            assert env["code"] == "CT-GATE-I-010", env
            sizes.append(size)
            findings += env["data"]["findings"]
            cursor = env["data"]["next_cursor"]
            if cursor is None:
                break

    assert max(sizes) <= BUDGET
    assert len(sizes) > 1
    assert env["data"]["count"] == IMPORTS
    assert env["data"]["over"] == [
        {"rule": "F401", "path": "ROOT_REPO:/src/b.py", "found": IMPORTS, "excused": 0}
    ]
    assert len({f["line"] for f in findings}) == len(findings) == IMPORTS


async def test_the_ready_call_for_staging_many_files_fits_the_budget_and_opens_the_contract_they_need(
    git_settings: Settings,
):
    settings = evolve(git_settings, budget_kib=4)
    repo = settings.roots[RootCategory.ROOT_REPO]
    paths = [f"src/module_with_a_long_name_{n:04}.py" for n in range(STAGED)]
    for path in paths:
        (repo / path).write_text("x = 1\n", encoding="utf-8")
    async with Client(build(settings)) as client:
        refused_size, refused = await _reply(client, "ck3_commit", {"command": "add", "paths": paths})
        opening = refused["data"]["request"]["arguments"] | {"intent": "Stage", "work_declaration": "Stage"}
        _, opened = await _reply(client, "ck3_contract", opening)
        staged_size, staged = await _reply(client, "ck3_commit", {"command": "add", "paths": paths})

    assert refused["code"] == "EN-WRITE-D-002"
    assert refused_size <= BUDGET
    assert refused["data"]["count"] == STAGED
    assert 0 < refused["data"]["declared"] == len(opening["targets"]) < STAGED
    assert (opened["code"], staged["code"]) == ("CT-GATE-S-001", "WA-WRITE-S-003")
    assert staged_size <= BUDGET
    assert staged["data"]["count"] == STAGED


async def test_a_close_of_many_declared_changes_counts_them_all_and_shows_what_fits(git_settings: Settings):
    settings = evolve(git_settings, budget_kib=4)
    repo = settings.roots[RootCategory.ROOT_REPO]
    paths = [f"notes/a_note_with_a_long_name_{n:04}.txt" for n in range(STAGED)]
    targets = [{"path": path, "edit_kind": "add"} for path in paths]
    opening = {"command": "open", "root_category": "ROOT_REPO", "intent": "Modules", "operations": ["WRITE"]}
    opening |= {"work_declaration": "Add the modules", "targets": targets}
    async with Client(build(settings)) as client:
        _, opened = await _reply(client, "ck3_contract", opening)
        for path in paths:  # made outside the server: the contract's scope sees them all the same
            (repo / path).parent.mkdir(exist_ok=True)
            (repo / path).write_text("a note\n", encoding="utf-8")
        size, closed = await _reply(client, "ck3_contract", {"command": "close"})

    assert (opened["code"], closed["code"]) == ("CT-GATE-S-001", "CT-GATE-S-002")
    assert size <= BUDGET
    assert closed["data"]["count"] == STAGED
    assert 0 < len(closed["data"]["changes"]) < STAGED


async def test_carry_over_of_many_files_is_counted_and_fits_the_budget_at_every_open(git_settings: Settings):
    settings = evolve(git_settings, budget_kib=4)
    repo = settings.roots[RootCategory.ROOT_REPO]
    (repo / "notes").mkdir()
    for n in range(STAGED):  # made through no contract: carried over into every open until declared
        (repo / f"notes/a_note_with_a_long_name_{n:04}.txt").write_text("a note\n", encoding="utf-8")
    opening = {"command": "open", "root_category": "ROOT_REPO", "intent": "Tidy", "operations": ["WRITE"]}
    opening |= {"work_declaration": "Tidy a.py", "targets": [{"path": "src/a.py", "edit_kind": "modify"}]}
    answered = []
    async with Client(build(settings)) as client:
        for _ in range(3):
            answered.append(await _reply(client, "ck3_contract", opening))
            await _reply(client, "ck3_contract", {"command": "cancel"})

    assert [env["code"] for _, env in answered] == ["CT-GATE-S-001", "CT-GATE-S-001", "CT-GATE-I-008"]
    assert max(size for size, _ in answered) <= BUDGET
    assert [env["data"]["carry_over"]["count"] for _, env in answered] == [STAGED] * 3
    assert answered[2][1]["data"]["count"] == STAGED
