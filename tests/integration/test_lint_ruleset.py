"""The locked linter ruleset (SPEC §14): ruff with a fixed rule list for Python, and ck3raven's own CK3
checks (balanced braces, encoding, the BOM on localisation .yml, descriptor fields), each finding what it
names; all of it goes into the hash recorded at open."""

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import ruff.__main__

from adapters.ruff_linter import RuffLinter
from domain.compliance import ck3_checks, reference_checks, ruleset

BOM = b"\xef\xbb\xbf"


def test_the_locked_ruleset_is_ruff_with_a_fixed_rule_list_and_the_ck3_checks(tmp_path: Path):
    rules = ruleset.current(RuffLinter(tmp_path / "lint-ruleset.json"))
    python, ck3 = rules["python"], rules["ck3"]

    assert isinstance(python, dict)
    assert isinstance(ck3, dict)
    assert (python["tool"], python["select"]) == ("ruff", ["E9", "F"])
    assert python["version"]
    assert python["sha256"]
    assert {"CK3-BRACES", "CK3-UTF8", "CK3-BOM", "CK3-DESC"} <= set(ck3["rules"])


def test_every_part_of_the_ruleset_is_in_its_hash(tmp_path: Path):
    rules = ruleset.current(RuffLinter(tmp_path / "lint-ruleset.json"))
    python, ck3 = rules["python"], rules["ck3"]
    assert isinstance(python, dict)
    assert isinstance(ck3, dict)
    changed = [
        {**rules, "python": {**python, "select": ["E9"]}},
        {**rules, "python": {**python, "version": "ruff 0.0.0"}},
        {**rules, "ck3": {**ck3, "rules": ck3["rules"][1:]}},
    ]

    assert len({ruleset.digest(r) for r in [rules, *changed]}) == 1 + len(changed)


@pytest.mark.parametrize(
    ("path", "data", "rule"),
    [
        ("common/traits/x.txt", BOM + b"brave = {\n  index = 1\n", "CK3-BRACES"),
        ("common/traits/x.txt", BOM + b'brave = { name = "\xff\xfe" }\n', "CK3-UTF8"),
        ("localization/english/x_l_english.yml", b'l_english:\n key:0 "Text"\n', "CK3-BOM"),
        ("descriptor.mod", b'version = "1.0"\n', "CK3-DESC"),
    ],
)
def test_each_ck3_check_finds_what_it_names(path: str, data: bytes, rule: str):
    found = ck3_checks.checks(f"ROOT_REPO:/{path}", tuple(path.split("/")), data)

    assert rule in {finding.rule for finding in found}


def test_clean_ck3_files_have_no_findings():
    script = ck3_checks.checks(
        "ROOT_REPO:/common/traits/x.txt", ("common", "traits", "x.txt"), BOM + b"a = {}\n"
    )
    descriptor = b'version = "1.0"\nname = "Mod"\nsupported_version = "1.12.*"\n'
    described = ck3_checks.checks("ROOT_REPO:/descriptor.mod", ("descriptor.mod",), descriptor)

    assert (script, described) == ([], [])


def test_the_ck3_part_of_the_ruleset_is_every_ck3_rule_the_checks_version_and_the_reference_table(
    tmp_path: Path,
):
    rules = ruleset.current(RuffLinter(tmp_path / "lint-ruleset.json"))

    assert rules["ck3"] == {
        "rules": list(ck3_checks.RULES),
        "version": ck3_checks.VERSION,
        "references": reference_checks.table_digest(),
    }
    assert {"CK3-REF", "CK3-LOCMISS"} <= set(ck3_checks.RULES)


def test_a_reference_table_changed_since_the_last_digest_changes_the_digest(monkeypatch: pytest.MonkeyPatch):
    from domain.ck3 import references

    before = reference_checks.table_digest()
    monkeypatch.setattr(references, "TABLE", references.TABLE[:-1])

    assert reference_checks.table_digest() != before


def test_the_same_ruleset_listed_in_another_order_has_the_same_hash(tmp_path: Path):
    rules = ruleset.current(RuffLinter(tmp_path / "lint-ruleset.json"))
    python = rules["python"]
    assert isinstance(python, dict)
    reordered = {"ck3": rules["ck3"], "python": dict(reversed(list(python.items())))}

    assert ruleset.digest(reordered) == ruleset.digest(rules)


@contextmanager
def _own_stdin_holding(data: bytes) -> Iterator[None]:
    """This process's stdin (file descriptor 0, what a child inherits) replaced by a pipe holding `data`:
    over stdio, the server's stdin is the MCP stream."""
    read, write = os.pipe()
    os.write(write, data)
    os.close(write)
    saved = os.dup(0)
    os.dup2(read, 0)
    os.close(read)
    try:
        yield
    finally:
        os.dup2(saved, 0)
        os.close(saved)


def test_ruff_given_no_source_text_lints_an_empty_source_never_the_servers_stdin(tmp_path: Path):
    linter = RuffLinter(tmp_path / "lint-ruleset.json")

    with _own_stdin_holding(b"import os\n"):  # an unused import: F401, were ruff to read it
        found = linter.lint([("added.py", None)])  # type: ignore[list-item]  # no text: none to give

    assert found == []


def test_ruff_is_asked_its_version_without_the_servers_stdin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    echo = tmp_path / "ruff"  # answers with whatever its stdin holds
    echo.write_text("#!/bin/sh\nexec cat\n", encoding="utf-8")
    echo.chmod(0o700)
    monkeypatch.setattr(ruff.__main__, "find_ruff_bin", lambda: str(echo))
    linter = RuffLinter(tmp_path / "lint-ruleset.json")

    with _own_stdin_holding(b"the MCP stream"):
        version = linter.ruleset()["version"]

    assert version == ""
