"""Each tool's output schema, derived from the reply registry (SPEC §6): the envelope, and for every code the
tool can answer with, the shape of that code's `data`.

Which codes a tool answers with is declared here by code family: every tool may answer with the failures of
a call as such (arguments, pacing, addressing, reading, the stores), and each tool adds the families of its
own commands. A client that validates structured content against the schema therefore checks the data of
every reply field by field; the stdio tests' official client does so on every call, and a test holds every
registered code to at least one tool.

Codes whose data has the same shape share one branch, so the schemas stay small.
"""

from collections.abc import Iterable, Mapping
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

_MUTATION: Final = ("EN-WRITE-", "WA-WRITE-")

TOOL_CODES: Final[Mapping[str, tuple[str, ...]]] = MappingProxyType(
    {
        "ck3_dir": ("MCP-CFG-S-001", "WA-READ-S-001", "WA-READ-S-002"),
        "ck3_read": ("WA-READ-S-003",),
        "ck3_search": ("WA-READ-S-007", "WA-READ-S-008"),
        "ck3_git": ("WA-READ-S-004", "WA-READ-S-005", "WA-READ-S-006"),
        "ck3_mode": ("MCP-CFG-S-",),
        "ck3_playset": (
            "MCP-CFG-S-004",
            "WA-CFG-",
            "WA-PARSE-",
            "WA-READ-S-009",
            "WA-READ-S-010",
            "WA-READ-S-011",
        ),
        "ck3_file": _MUTATION,
        "ck3_commit": _MUTATION,
        "ck3_contract": ("CT-GATE-", *_MUTATION),
        "ck3_token": ("CT-GATE-", *_MUTATION),
    }
)
"""Each tool's own code families, beyond ANY_CALL (a family is a code or the start of codes)."""

NEVER_SENT: Final = frozenset({"WA-RES-S-001"})
"""Codes no tool answers with: a resolution that succeeds hands its caller a reference, not a reply."""


def codes_of(tool: str) -> tuple[str, ...]:
    """Every registered code `tool` may answer with, in registry order."""
    families = (*ANY_CALL, *TOOL_CODES[tool])
    return tuple(code for code in REGISTRY if code.startswith(families))


def output_schema(tool: str) -> dict[str, Any]:
    """The output schema of `tool`: the envelope, its `data` shaped by the reply's code."""
    return envelope_schema(codes_of(tool))


def envelope_schema(codes: Iterable[str]) -> dict[str, Any]:
    """The envelope narrowed to `codes`: one branch per shape of data, naming the codes that have it."""
    by_shape: dict[str, tuple[list[str], dict[str, object]]] = {}
    for code in codes:
        data = REGISTRY[code].data_schema()
        by_shape.setdefault(repr(data), ([], data))[0].append(code)
    branches = [
        {"properties": {"code": _one_of(named), "data": data}, "required": ["code", "data"]}
        for named, data in by_shape.values()
    ]
    return {**ENVELOPE_SCHEMA, "anyOf": branches}


def _one_of(codes: list[str]) -> dict[str, object]:
    return {"const": codes[0]} if len(codes) == 1 else {"enum": codes}
