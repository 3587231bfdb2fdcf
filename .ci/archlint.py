"""ck3raven's own architecture lint (SPEC §12): what import contracts cannot see.

Rules, each with a fixture under tests/arch/fixtures that makes it fire:
  banned-term        seed 003 §6 oracle names and parallel mod lists, as identifiers in executable code
  oracle-helper      a function named can_* or is_*allowed/writable/editable/permitted/denied
  decision-leak      REQUIRE_TOKEN / REQUIRE_CONTRACT / ALLOW / DENY as values
  builder-method     a ReplyBuilder method other than success/invalid/denied/error (info, warn, fail...)
  deny-outside-en    .denied(...) or an EN-*-D code outside the enforcement module
  invalid-from-en    an EN-*-I code anywhere
  message-branch     a comparison on a reply's message
  unregistered-code  a string literal shaped like a reply code that the registry does not hold
  command-dispatch   in domain/, branching on a `command` string (compared, or used as a key)
  getattr-proxy      a `__getattr__` that forwards to another object and erases its type
  location-method    a WorldAdapter method taking a hand-built `Location` (only refs open targets)

Usage: python .ci/archlint.py PATH... (exit 1 on any finding).
"""

import ast
import re
import sys
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from domain.replies.registry import REGISTRY

BANNED_TERMS = frozenset(
    {
        "can_write",
        "can_edit",
        "can_delete",
        "is_writable",
        "is_editable",
        "is_allowed",
        "is_path_allowed",
        "is_path_writable",
        "writable_mod",
        "editable_mod",
        "mod_write",
        "mod_read",
        "mod_delete",
        "editable_mods",
        "writable_mods",
        "local_mods",
        "live_mods",
        "mod_whitelist",
        "whitelist",
        "blacklist",
        "mod_roots",
    }
)
DECISION_LEAKS = frozenset({"REQUIRE_TOKEN", "REQUIRE_CONTRACT", "ALLOW", "DENY"})
BUILDER_METHODS = frozenset({"success", "invalid", "denied", "error"})
ORACLE = re.compile(r"^(can_\w+|is_\w*(allow|writ|edit|permit|deni|deny)\w*)$")
CODE = re.compile(r"^(WA|EN|CT|MCP)-[A-Z]+-[SIDE]-\d{3}$")
ENFORCEMENT_MODULE = "enforcement.py"
REGISTRY_MODULE = "registry.py"  # where codes are declared, not used
REGISTRY_PARTS = "_codes.py"  # domain/replies/<area>_codes.py: the registry's codes, one area a file


class Finding:
    def __init__(self, path: Path, node: ast.AST, rule: str, detail: str) -> None:
        self.path, self.line, self.rule, self.detail = path, getattr(node, "lineno", 0), rule, detail

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: [{self.rule}] {self.detail}"


def _docstrings(tree: ast.AST) -> set[int]:
    ids = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr):
            if isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str):
                ids.add(id(body[0].value))
    return ids


def _identifiers(node: ast.AST) -> Iterator[str]:
    if isinstance(node, ast.Name):
        yield node.id
    elif isinstance(node, ast.Attribute):
        yield node.attr
    elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        yield node.name
    elif isinstance(node, ast.arg) or (isinstance(node, ast.keyword) and node.arg):
        yield node.arg
    elif isinstance(node, ast.alias):
        yield (node.asname or node.name).split(".")[-1]


def _builder_names(tree: ast.AST) -> set[str]:
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and _is_builder_call(node.value):
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    return names


def _is_builder_call(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "ReplyBuilder"


def _check_identifiers(path: Path, node: ast.AST) -> Iterator[Finding]:
    for name in _identifiers(node):
        if name in BANNED_TERMS:
            yield Finding(path, node, "banned-term", name)
        if name in DECISION_LEAKS:
            yield Finding(path, node, "decision-leak", name)
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and ORACLE.match(node.name):
        if node.name not in BANNED_TERMS:
            yield Finding(path, node, "oracle-helper", node.name)


def _check_builder(path: Path, node: ast.AST, builders: set[str]) -> Iterator[Finding]:
    if isinstance(node, ast.ClassDef) and node.name.endswith("Builder"):
        for item in node.body:
            if isinstance(item, ast.FunctionDef) and not item.name.startswith("_"):
                if item.name not in BUILDER_METHODS:
                    yield Finding(path, item, "builder-method", f"{node.name}.{item.name}")
    if isinstance(node, ast.Attribute) and node.attr not in BUILDER_METHODS and not node.attr.startswith("_"):
        receiver = node.value
        if _is_builder_call(receiver) or (isinstance(receiver, ast.Name) and receiver.id in builders):
            yield Finding(path, node, "builder-method", node.attr)
    if isinstance(node, ast.Attribute) and node.attr == "denied" and path.name != ENFORCEMENT_MODULE:
        yield Finding(path, node, "deny-outside-en", "denied(...) outside enforcement")


def _declares_codes(path: Path) -> bool:
    return path.name == REGISTRY_MODULE or (
        path.parent.name == "replies" and path.name.endswith(REGISTRY_PARTS)
    )


def _check_constant(path: Path, node: ast.Constant) -> Iterator[Finding]:
    value = node.value
    if not isinstance(value, str):
        return
    if value in DECISION_LEAKS:
        yield Finding(path, node, "decision-leak", value)
    if CODE.match(value):
        layer, _, kind, _ = value.split("-")
        if layer == "EN" and kind == "I":
            yield Finding(path, node, "invalid-from-en", value)
        if kind == "D" and not _declares_codes(path) and path.name != ENFORCEMENT_MODULE:
            yield Finding(path, node, "deny-outside-en", value)
        if value not in REGISTRY:
            yield Finding(path, node, "unregistered-code", value)


def _is_message(node: ast.AST) -> bool:
    if isinstance(node, ast.Call):
        node = node.func
    return isinstance(node, ast.Attribute) and node.attr == "message"


def _check_structure(path: Path, node: ast.AST) -> Iterator[Finding]:
    if isinstance(node, ast.FunctionDef) and node.name == "__getattr__":
        yield Finding(path, node, "getattr-proxy", "__getattr__")
    if isinstance(node, ast.ClassDef) and node.name == "WorldAdapter":
        for item in node.body:
            public = isinstance(item, ast.FunctionDef) and not item.name.startswith("_")
            if public and any(_names_location(arg) for arg in item.args.args):
                yield Finding(path, item, "location-method", f"WorldAdapter.{item.name}")
    if "domain" in path.parts and _dispatches_on_command(node):
        yield Finding(path, node, "command-dispatch", "branching on a command string")


def _names_location(arg: ast.arg) -> bool:
    return arg.annotation is not None and "Location" in ast.unparse(arg.annotation)


def _is_command(node: ast.AST) -> bool:
    return (isinstance(node, ast.Name) and node.id == "command") or (
        isinstance(node, ast.Attribute) and node.attr == "command"
    )


def _dispatches_on_command(node: ast.AST) -> bool:
    if isinstance(node, ast.Compare):
        return any(_is_command(side) for side in [node.left, *node.comparators])
    return isinstance(node, ast.Subscript) and _is_command(node.slice)


def check_file(path: Path) -> list[Finding]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    docstrings = _docstrings(tree)
    builders = _builder_names(tree)
    findings: list[Finding] = []
    for node in ast.walk(tree):
        findings += _check_identifiers(path, node)
        findings += _check_builder(path, node, builders)
        if isinstance(node, ast.Constant) and id(node) not in docstrings:
            findings += _check_constant(path, node)
        findings += _check_structure(path, node)
        if isinstance(node, ast.Compare) and any(_is_message(n) for n in [node.left, *node.comparators]):
            findings.append(Finding(path, node, "message-branch", "comparison on a reply message"))
    return findings


def check(paths: list[Path]) -> list[Finding]:
    files = [f for p in paths for f in ([p] if p.is_file() else sorted(p.rglob("*.py")))]
    return [finding for file in files for finding in check_file(file)]


def main(argv: list[str]) -> int:
    findings = check([Path(arg) for arg in argv] or [Path()])
    for finding in findings:
        print(finding)
    print(f"archlint: {len(findings)} finding(s)")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
