"""Port: the locked linter ruleset close runs on changed Python files (ruff, with a fixed rule list)."""

from typing import Protocol

from attrs import frozen


@frozen
class Finding:
    """One lint finding: the rule's code, the file (as the caller named it), the line, what is wrong."""

    rule: str
    path: str
    line: int
    message: str


class Linter(Protocol):
    """Port: `ruleset` says exactly what `lint` runs (tool, version, rules), read afresh on each call, so
    a change to it shows; `lint` answers the findings in Python sources, each named by the caller. Raises
    ports.errors.Unavailable when the linter cannot run."""

    def ruleset(self) -> dict[str, object]: ...

    def lint(self, sources: list[tuple[str, bytes]]) -> list[Finding]: ...
