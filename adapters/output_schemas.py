"""Each tool's output schema (SPEC §6, §16): the envelope, with its `code` held to the families of codes the
tool can answer with.

Which codes a tool answers with is declared here by code family: every tool may answer with the failures of
a call as such (arguments, pacing, addressing, reading, the stores), and each tool adds the families of its
own commands. The shape of each code's `data` lives in the registry (`ck3raven codes`,
docs/reply-codes.md), not in `tools/list`, which clients pay for in every conversation: a reply's data is
held to its code's shape by the ReplyBuilder that makes it. A test holds every registered code to at least
one tool, and `tools/list` to at most 30,000 bytes.
"""

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, Final

from adapters.wire import ENVELOPE_SCHEMA
from domain.replies.registry import REGISTRY

ANY_CALL: Final = (
    "MCP-SYS-",
    "MCP-VAL-",
    "MCP-CFG-I-",
    "EN-EXEC-",
    "WA-RES-I-",
    "WA-READ-I-",
    "WA-IO-E-",
    "WA-WRITE-I-007",  # a file that appeared where one was to be created: any file failure may say so
    "CT-GATE-E-",
    "CT-GATE-I-005",  # a human approval is needed (the dispatcher asks for any tool that needs one)
)
"""Code families every tool may answer with: the call itself failing, or what it touches."""

_MUTATION: Final = ("EN-WRITE-D-", "WA-WRITE-")

TOOL_CODES: Final[Mapping[str, tuple[str, ...]]] = MappingProxyType(
    {
        "ck3_dir": ("MCP-CFG-S-001", "WA-READ-S-001", "WA-READ-S-002"),
        "ck3_read": ("WA-READ-S-003",),
        "ck3_search": ("WA-READ-S-007", "WA-READ-S-008", "WA-LOG-S-00"),
        "ck3_git": ("WA-READ-S-004", "WA-READ-S-005", "WA-READ-S-006"),
        "ck3_mode": ("MCP-CFG-S-",),
        "ck3_playset": (
            "MCP-CFG-S-004",
            "WA-CFG-",
            "WA-PARSE-",
            "WA-READ-S-009",
            "WA-READ-S-010",
            "WA-READ-S-011",
            "MCP-DB-",
            "WA-READ-S-012",
            "WA-READ-S-013",
            "WA-READ-S-014",
            "WA-READ-S-015",
        ),
        "ck3_file": (*_MUTATION, "WA-LOG-S-005"),
        "ck3_commit": _MUTATION,
        "ck3_contract": ("CT-GATE-", *_MUTATION),
        "ck3_token": ("CT-GATE-", *_MUTATION),
    }
)
"""Each tool's own code families, beyond ANY_CALL (a family is a code or the start of codes)."""

NEVER_SENT: Final[Mapping[str, str]] = MappingProxyType(
    {
        "WA-RES-S-001": "a resolution that succeeds hands its caller a reference, not a reply",
        "EN-WRITE-S-001": "enforcement's permit: the handler carries out the change and replies with that",
    }
)
"""Codes no tool answers with (the core's own decisions, acted on before a reply), and why."""


def codes_of(tool: str) -> tuple[str, ...]:
    """Every registered code `tool` may answer with, in registry order."""
    families = (*ANY_CALL, *TOOL_CODES[tool])
    return tuple(code for code in REGISTRY if code.startswith(families))


def output_schema(tool: str) -> dict[str, Any]:
    """The output schema of `tool`: the envelope, its `code` held to the code families the tool answers
    with (SPEC §16: `tools/list` stays small; each code's data shape is in the registry, `ck3raven codes`
    and docs/reply-codes.md, and every reply's data is held to it when the reply is built)."""
    families = (*ANY_CALL, *TOOL_CODES[tool])
    code = {"type": "string", "pattern": "^(?:" + "|".join(families) + ")"}
    data = {"type": "object", "description": "Its shape depends on code: see docs/reply-codes.md."}
    return {**ENVELOPE_SCHEMA, "properties": {**ENVELOPE_SCHEMA["properties"], "code": code, "data": data}}
