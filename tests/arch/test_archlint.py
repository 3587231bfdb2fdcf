"""Each arch-lint rule fires on its fixture, stays quiet on clean code, and finds nothing in the product."""

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).with_name("fixtures")
_spec = importlib.util.spec_from_file_location("archlint", ROOT / ".ci" / "archlint.py")
assert _spec is not None
assert _spec.loader is not None
archlint = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(archlint)

RULES = [
    "banned-term",
    "oracle-helper",
    "decision-leak",
    "builder-method",
    "deny-outside-en",
    "invalid-from-en",
    "message-branch",
    "unregistered-code",
    "command-dispatch",
    "getattr-proxy",
    "location-method",
]


@pytest.mark.parametrize("rule", RULES)
def test_each_rule_fires_on_its_fixture(rule: str):
    name = f"{rule.replace('-', '_')}.py"
    fixture = FIXTURES / name if (FIXTURES / name).exists() else FIXTURES / "domain" / name
    findings = archlint.check_file(fixture)

    assert rule in {finding.rule for finding in findings}


def test_clean_code_has_no_findings():
    assert archlint.check_file(FIXTURES / "clean.py") == []


def test_the_product_code_has_no_findings():
    findings = archlint.check([ROOT / name for name in ("domain", "ports", "adapters", "app")])

    assert [str(finding) for finding in findings] == []
