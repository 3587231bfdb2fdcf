"""What the CK3 parsers report about a file they could not read whole: a code, the line, and a short
detail. A finding is never an exception; a file with findings still yields what parsed.

The codes are of the `WA-PARSE` family (seed 001's PARSE area), registered with what each means
(domain.replies.registry); `WA-PARSE-I-001` is the playset file's, the parsers use the others.
"""

from typing import Final

from attrs import frozen

from domain.replies.registry import REGISTRY

NOT_CLOSED_BY_ANYTHING: Final = "WA-PARSE-I-002"
NEVER_CLOSED: Final = "WA-PARSE-I-003"
OPEN_STRING: Final = "WA-PARSE-I-004"
NO_VALUE: Final = "WA-PARSE-I-005"
LIMIT: Final = "WA-PARSE-I-006"
NOT_TEXT: Final = "WA-PARSE-I-007"
HEADER: Final = "WA-PARSE-I-008"
NOT_AN_ENTRY: Final = "WA-PARSE-I-009"
DUPLICATE: Final = "WA-PARSE-I-010"
BRACE_SUSPECT: Final = "WA-PARSE-I-011"

CODES: Final = (
    NOT_CLOSED_BY_ANYTHING,
    NEVER_CLOSED,
    OPEN_STRING,
    NO_VALUE,
    LIMIT,
    NOT_TEXT,
    HEADER,
    NOT_AN_ENTRY,
    DUPLICATE,
    BRACE_SUSPECT,
)
"""The codes the parsers use; what each means is its row of the reply-code registry."""
MAX_FINDINGS: Final = 50
"""Findings kept per file; past it, one more finding says how many were left out."""


@frozen
class ParseFinding:
    """One problem the parser met: its code (in CODES), the 1-based line, and a short detail."""

    code: str
    line: int
    detail: str

    def data(self) -> dict[str, object]:
        """The finding as a reply carries it."""
        return {"code": self.code, "line": self.line, "detail": self.detail}

    @property
    def meaning(self) -> str:
        """What the code means, from the registry, without its line and detail."""
        return REGISTRY[self.code].template.split(" (line")[0]


class Findings:
    """The findings of one file, bounded by MAX_FINDINGS."""

    def __init__(self) -> None:
        self.kept: list[ParseFinding] = []
        self.dropped = 0

    def add(self, code: str, line: int, detail: str) -> None:
        """Keep a finding, or count it once the bound is reached."""
        if len(self.kept) < MAX_FINDINGS:
            self.kept.append(ParseFinding(code, line, detail))
        else:
            self.dropped += 1

    def done(self) -> tuple[ParseFinding, ...]:
        """The findings, with one more saying how many were left out."""
        if self.dropped:
            last = self.kept[-1].line
            return (*self.kept, ParseFinding(LIMIT, last, f"{self.dropped} more findings not listed"))
        return tuple(self.kept)
