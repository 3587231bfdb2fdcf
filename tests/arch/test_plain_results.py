"""Results travel as results, refusals as `Refused` (HOUSE_STYLE rule 6): the domain asks a value whether it
is a Reply in no more places than it did when this was last lowered, so the count only goes down."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MOST = 0
"""isinstance(…, Reply) checks left in domain/: none. Every use case returns its result or raises Refused,
the address grammar too (`parse`, or `parsed_or_none` for a caller that only asks whether a text is one)."""


def _reply_checks(path: Path) -> int:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return sum(
        1
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "isinstance"
        and len(node.args) == 2
        and "Reply" in ast.unparse(node.args[1]).split(" | ")
    )


def test_the_domain_asks_whether_a_value_is_a_reply_no_more_often_than_before():
    counted = {
        path.relative_to(ROOT).as_posix(): _reply_checks(path) for path in (ROOT / "domain").rglob("*.py")
    }

    assert sum(counted.values()) <= MOST, {path: n for path, n in counted.items() if n}
