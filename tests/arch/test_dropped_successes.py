"""No success reply is built to be dropped (HOUSE_STYLE rule 6): the World Adapter's `resolve` and
enforcement's `enforce` build a success reply (WA-RES-S-001, EN-WRITE-S-001) that no tool call answers, so
the domain calls neither; it takes the plain forms, `ref` (or `ref_or_none`) and `permit` (or
`permit_each`), which return a ref or a permit and raise `Refused`."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
REPLY_FORMS = frozenset({"resolve", "enforce"})
"""Functions that answer a success reply where the plain form returns a value (kept for those that show
the reply: the tests and the bench)."""


def _calls_of_reply_forms(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        if name in REPLY_FORMS:
            found.append(f"{path.relative_to(ROOT).as_posix()}:{node.lineno} {ast.unparse(func)}")
    return found


def test_no_domain_code_builds_a_success_reply_of_resolution_or_enforcement_only_to_drop_it():
    found = [call for path in sorted((ROOT / "domain").rglob("*.py")) for call in _calls_of_reply_forms(path)]

    assert found == []
