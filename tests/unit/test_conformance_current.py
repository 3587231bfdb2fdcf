"""docs/conformance.md is rendered from docs/conformance-map.toml, whose rules are well formed, name only
tests that exist and, with the seeds at hand, cover each normative seed line: the page cannot go stale."""

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("conformance", ROOT / ".ci" / "conformance.py")
assert _spec is not None
assert _spec.loader is not None
conformance = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(conformance)


def test_the_conformance_map_is_valid_and_its_markdown_is_current():
    assert conformance.problems() == []
