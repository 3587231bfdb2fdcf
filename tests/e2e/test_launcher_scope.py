"""In ck3lens the launcher registry is in a contract's scope only when a target names it (SPEC §7): a
change the launcher makes to it under a contract that does not name it is no work; a contract that names
it (with the human approval it needs) closes with the registry's change listed as its own."""

from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client

from app.bootstrap import build, build_core
from tests.worlds import sample_world_on_disk

pytestmark = pytest.mark.anyio
REGISTRY = "ROOT_USER_DOCS:/launcher-v2.sqlite"
MOD_FILE = "mod:Local Fix:/common/traits/zzz_local_fix.txt"


async def call(client: Client, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    return dict((await client.call_tool(tool, args, raise_on_error=False)).structured_content)


def contract(*targets: str) -> dict[str, Any]:
    return {
        "command": "open",
        "root_category": "ROOT_USER_DOCS",
        "intent": "Work on my mod",
        "work_declaration": "The named files",
        "operations": ["WRITE"],
        "targets": [{"path": target, "edit_kind": "modify"} for target in targets],
    }


async def test_the_launcher_registry_is_in_a_contracts_scope_only_when_a_target_names_it(tmp_path: Path):
    settings = sample_world_on_disk(tmp_path)
    registry = (
        settings.roots[next(r for r in settings.roots if r.value == "ROOT_USER_DOCS")] / "launcher-v2.sqlite"
    )
    fix = registry.parent / "mod" / "LocalFix" / "common" / "traits" / "zzz_local_fix.txt"
    edited = fix.read_text(encoding="utf-8-sig") + "# tuned\n"
    core = build_core(settings)
    async with Client(build(settings, core=core)) as client:
        unnamed = await call(client, "ck3_contract", contract(MOD_FILE))
        await call(client, "ck3_file", {"command": "write", "path": MOD_FILE, "content": edited})
        registry.write_bytes(b"the launcher's own change")
        unnamed_closed = await call(client, "ck3_contract", {"command": "close"})
        asked = await call(client, "ck3_contract", contract(REGISTRY))
        core.decide_approval(asked["data"]["approval_id"], approve=True)
        named = await call(client, "ck3_contract", contract(REGISTRY))
        await call(client, "ck3_file", {"command": "write", "path": REGISTRY, "content": "registry"})
        named_closed = await call(client, "ck3_contract", {"command": "close"})

    assert (unnamed["code"], unnamed_closed["code"]) == ("CT-GATE-S-001", "CT-GATE-S-002")
    assert REGISTRY not in {c["address"] for c in unnamed_closed["data"]["changes"]}
    assert (asked["code"], named["code"], named_closed["code"]) == (
        "CT-GATE-I-005",
        "CT-GATE-S-001",
        "CT-GATE-S-002",
    )
    assert [(c["address"], c["kind"]) for c in named_closed["data"]["changes"]] == [(REGISTRY, "modify")]
