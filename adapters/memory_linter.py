# ruff: noqa: ARG002 - the port's signature: no rule applies, whatever the sources
"""The Linter port for an embedding host that lints nothing itself: an empty ruleset, and no findings.

Close still runs compliance (symbols, CK3 checks, tokens); only the Python lint step has no rules. A host
that wants ruff's rules passes the ruff adapter instead.
"""

from ports.linter import Finding, Linter


class MemoryLinter(Linter):
    """A ruleset of no rules: `lint` finds nothing, and the ruleset says so (its hash is stable)."""

    def ruleset(self) -> dict[str, object]:
        return {"tool": "none", "select": []}

    def lint(self, sources: list[tuple[str, bytes]]) -> list[Finding]:
        return []
