"""The one registry of reply codes. Every Reply's code is a key here; codes are never renamed or reused.

`docs/reply-codes.md` is generated from this table (`ck3raven codes --format markdown`) and a golden test
pins it, so a change to a code is a visible API change.
"""

from domain.codes import CodeSpec, index

_SPECS: tuple[CodeSpec, ...] = (
    # --- MCP: transport, wrapper, session -------------------------------------------------------------
    CodeSpec(
        "MCP-SYS-E-001", "An unexpected failure stopped the call; report trace id {trace_id}.", {"trace_id"}
    ),
    CodeSpec("MCP-SYS-E-002", "The tool produced no reply; report trace id {trace_id}.", {"trace_id"}),
    CodeSpec(
        "MCP-SYS-E-003",
        "The reply was withheld because it would have exposed a host path; report trace id {trace_id}.",
        {"trace_id"},
    ),
    CodeSpec(
        "MCP-VAL-I-001",
        "The arguments do not match the tool's input schema; data.errors lists each problem.",
        {"errors"},
    ),
    CodeSpec(
        "MCP-VAL-I-002", "There is no tool by that name; tools/list shows the tools this server offers."
    ),
    CodeSpec("MCP-CFG-S-001", "The session home is {home}.", {"home", "address"}),
    CodeSpec("MCP-CFG-S-002", "The session mode is {mode}.", {"mode", "initialised"}),
    CodeSpec(
        "MCP-CFG-I-001",
        "No mode is initialised in this session; ask the user to initialise one before using {tool}.",
        {"tool", "hint"},
    ),
)

REGISTRY: dict[str, CodeSpec] = index(_SPECS)
"""Every registered code, keyed by its text."""
