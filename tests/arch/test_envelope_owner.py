"""Only the MCP wrapper constructs the wire envelope (seed 000 §8: tools and core logic operate on a Reply):
no product module but adapters/wire.py writes an envelope-shaped mapping, and only the wire module and the
reply middleware every tool call passes through call its builders."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PRODUCT = ("adapters", "app", "domain", "ports")
WIRE = "adapters/wire.py"
WRAPPER = {WIRE, "adapters/reply_middleware.py"}
SHAPE = {"reply_type", "code", "meta"}
"""Keys that together make a mapping an envelope (a Reply has no `meta`; only the envelope does)."""
BUILDERS = {"envelope", "envelope_of", "envelope_text"}


def envelopes_built(source: str, module: str) -> list[str]:
    """Where `module` (a path from the checkout) builds an envelope or calls the wire's builders."""
    found = []
    for node in ast.walk(ast.parse(source)):
        keys: set[object] = set()
        if isinstance(node, ast.Dict):
            keys = {key.value for key in node.keys if isinstance(key, ast.Constant)}
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "dict":
            keys = {keyword.arg for keyword in node.keywords}
        if keys >= SHAPE and module != WIRE:
            found.append(f"{module}:{node.lineno} builds an envelope")
        if isinstance(node, ast.ImportFrom) and node.module == "adapters.wire" and module not in WRAPPER:
            used = BUILDERS & {alias.name for alias in node.names}
            found += [f"{module}:{node.lineno} imports {name} from the wire" for name in sorted(used)]
        if isinstance(node, ast.Import) and module not in WRAPPER:
            found += [
                f"{module}:{node.lineno} imports the wire" for a in node.names if a.name == "adapters.wire"
            ]
    return found


def test_only_the_mcp_wrapper_constructs_the_envelope():
    found = []
    for folder in PRODUCT:
        for path in sorted((ROOT / folder).rglob("*.py")):
            module = path.relative_to(ROOT).as_posix()
            found += envelopes_built(path.read_text(encoding="utf-8"), module)

    assert found == []


def test_an_envelope_built_in_a_tool_or_the_domain_is_found():
    literal = 'def reply():\n    return {"status": "success", "reply_type": "S", "code": "X", "meta": {}}\n'
    called = "def reply():\n    return dict(reply_type='S', code='X', meta={}, error=None)\n"
    imported = "from adapters.wire import envelope_of\n"

    assert envelopes_built(literal, "domain/use_cases/core.py") == [
        "domain/use_cases/core.py:2 builds an envelope"
    ]
    assert envelopes_built(called, "adapters/mcp_tools.py") == ["adapters/mcp_tools.py:2 builds an envelope"]
    assert envelopes_built(imported, "adapters/mcp_tools.py") == [
        "adapters/mcp_tools.py:1 imports envelope_of from the wire"
    ]
    assert envelopes_built(literal, WIRE) == []
