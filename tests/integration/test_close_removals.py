"""Removed keys other files still mention keep a contract open (SPEC §14) in a real playset: the refusal
lists the removed keys with their mentions, half a reply at a time, with the `ck3_token removal` call that
declares the page shown; once declared, the contract closes."""

import json
from pathlib import Path
from typing import Any

from app.config import Settings
from domain.replies import budget
from domain.vocabulary import Mode, RootCategory
from tests.integration.repo_work import Work

BOM = "\ufeff"
KEYS = [f"trait_{n:02}" for n in range(30)]
EXTRA = "ROOT_USER_DOCS:/mod/LocalFix/common/traits/zz_local_extra.txt"


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def playset(base: Path, *, budget_kib: int = 32) -> Work:
    """The game, whose events mention every key of KEYS, and a local mod whose one file defines them."""
    game, docs, data = base / "game", base / "documents", base / "data"
    write(game / "common/traits/00_traits.txt", f"{BOM}brave = {{\n}}\n")
    mentions = "".join(
        f"birth.{n} = {{\n\ttrigger = {{ has_trait = {key} }}\n}}\n" for n, key in enumerate(KEYS)
    )
    write(game / "events/birth_events.txt", f"{BOM}namespace = birth\n{mentions}")
    write(docs / "mod/LocalFix/descriptor.mod", 'name="Local Fix"\nsupported_version="1.*"\n')
    write(
        docs / "mod/LocalFix/common/traits/zz_local_extra.txt", BOM + "".join(f"{k} = {{\n}}\n" for k in KEYS)
    )
    entry = {"name": "Local Fix", "folder": "ROOT_USER_DOCS:/mod/LocalFix", "enabled": True, "load_order": 1}
    write(data / "playsets" / "local.json", json.dumps({"name": "Local", "mods": [entry]}))
    roots = {
        RootCategory.ROOT_GAME: game,
        RootCategory.ROOT_USER_DOCS: docs,
        RootCategory.ROOT_CK3RAVEN_DATA: data,
    }
    settings = Settings(
        "t",
        roots,
        RootCategory.ROOT_GAME,
        Mode.CK3LENS,
        "Local",
        state_dir=base / "state",
        budget_kib=budget_kib,
    )
    return Work(base, docs, settings=settings)


def removed(key: str, line: int) -> dict[str, Any]:
    return {
        "key": key,
        "kind": "traits",
        "address": "mod:Local Fix:/common/traits/zz_local_extra.txt",
        "mentions": [{"source": "vanilla", "path": "events/birth_events.txt", "line": line}],
        "count": 1,
    }


def emptied(work: Work) -> tuple[Any, str]:
    session = work.session()
    opened = work.open(
        session, ("mod/LocalFix/common/traits/zz_local_extra.txt", "modify"), root="ROOT_USER_DOCS"
    )
    assert opened.code == "CT-GATE-S-001", dict(opened.data)
    work.call(session, "ck3_file", "write", path=EXTRA, content=f"{BOM}\n")
    return session, str(opened.data["contract_id"])


def test_removing_mentioned_keys_is_refused_with_each_mention_and_the_call_that_declares_them(tmp_path: Path):
    work = playset(tmp_path)
    session, contract_id = emptied(work)

    refused = work.close(session)

    rows = [removed(key, 3 + 3 * n) for n, key in enumerate(KEYS)]
    assert refused.code == "CT-GATE-I-012"
    assert json.loads(json.dumps(refused.data)) == {
        "contract_id": contract_id,
        "removed": sorted(rows, key=lambda r: r["key"]),
        "count": 30,
        "request": {
            "tool": "ck3_token",
            "arguments": {
                "command": "removal",
                "contract_id": contract_id,
                "symbols": [
                    {"name": r["key"], "kind": "traits", "path": r["address"]}
                    for r in sorted(rows, key=lambda r: r["key"])
                ],
                "reason": "<why these keys go, though other files mention them>",
            },
        },
        "next_cursor": None,
    }
    arguments = {
        k: v
        for k, v in json.loads(json.dumps(refused.data["request"]["arguments"])).items()
        if k != "command"
    }
    declared = work.call(session, "ck3_token", "removal", **{**arguments, "reason": "the mod drops them"})
    assert declared.code == "CT-GATE-S-013"
    assert work.close(session).code == "CT-GATE-S-002"


def test_removed_keys_are_shown_half_a_reply_at_a_time(tmp_path: Path):
    work = playset(tmp_path, budget_kib=4)
    session, _ = emptied(work)

    first = work.close(session)
    second = work.close(session, cursor=first.data["next_cursor"])

    rows = sorted((removed(key, 3 + 3 * n) for n, key in enumerate(KEYS)), key=lambda r: r["key"])
    half = budget.room(work.core.services.budget) // 2
    shown = budget.rows_fitting(rows, half)
    assert 0 < shown < budget.rows_fitting(rows, half * 2) < 30
    assert (json.loads(json.dumps(first.data["removed"])), first.data["next_cursor"]) == (
        rows[:shown],
        str(shown),
    )
    assert [s["name"] for s in first.data["request"]["arguments"]["symbols"]] == [
        r["key"] for r in rows[:shown]
    ]
    assert json.loads(json.dumps(second.data["removed"]))[0] == rows[shown]
