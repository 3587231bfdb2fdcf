"""docs/reply-codes.md is generated from the registry and must not go stale."""

from pathlib import Path

from app.law_tables import render_codes

DOC = Path(__file__).resolve().parents[2] / "docs" / "reply-codes.md"


def test_the_reply_code_table_in_docs_matches_the_registry():
    assert DOC.read_text(encoding="utf-8").rstrip("\n") == render_codes("markdown")
