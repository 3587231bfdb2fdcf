"""Enforcement knows the law's three operations only (law §7, §14): READ, WRITE and DELETE; no vestigial
semantic operation (RENAME, EXECUTE, DB_WRITE, GIT_WRITE) is an operation or a name in the policy code."""

import ast
from pathlib import Path

from domain.vocabulary import Operation

POLICY = Path(__file__).resolve().parents[2] / "domain" / "policy"
VESTIGIAL = {"RENAME", "EXECUTE", "DB_WRITE", "GIT_WRITE"}


def names_in(source: str) -> set[str]:
    """Every identifier, attribute and string constant of `source`, upper-cased."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Name):
            found.add(node.id.upper())
        elif isinstance(node, ast.Attribute):
            found.add(node.attr.upper())
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            found.add(node.value.upper())
    return found


def test_the_operations_are_read_write_and_delete_only():
    assert {operation.value for operation in Operation} == {"READ", "WRITE", "DELETE"}


def test_no_vestigial_operation_is_named_in_the_policy_code():
    used = set().union(*(names_in(path.read_text(encoding="utf-8")) for path in POLICY.rglob("*.py")))

    assert used & VESTIGIAL == set()


def test_a_vestigial_operation_in_policy_code_would_be_seen():
    assert names_in("if operation is Operation.RENAME:\n    pass\n") & VESTIGIAL == {"RENAME"}
    assert names_in("KINDS = ('git_write',)\n") & VESTIGIAL == {"GIT_WRITE"}
