"""Reply codes of the MCP layer: the transport, the safety wrapper and the session's settings."""

from domain.replies.codes import CodeSpec

SESSION_CODES: tuple[CodeSpec, ...] = (
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
    CodeSpec("MCP-CFG-S-002", "The session mode is {mode}.", {"mode", "initialised", "source", "sealed"}),
    CodeSpec(
        "MCP-CFG-I-001",
        "No mode is initialised in this session; ask the user to initialise one before using {tool}.",
        {"tool", "hint"},
    ),
    CodeSpec("MCP-CFG-S-003", "The session home is now {home}.", {"home", "address"}),
    CodeSpec("MCP-CFG-S-004", "The active playset is now {name}.", {"name", "mods"}),
    CodeSpec(
        "MCP-CFG-I-004",
        "A human declined mode {mode} ({approval_id}); it stays as it is.",
        {"mode", "approval_id"},
    ),
    CodeSpec("MCP-CFG-I-003", "This server has no human approval channel; {hint}.", {"hint"}),
    CodeSpec(
        "MCP-CFG-I-005",
        "This request carries no credential a session can be kept for, so {command} would not outlive it;"
        " {hint}.",
        {"command", "hint", "required"},
    ),
    CodeSpec("MCP-CFG-S-005", "The session mode is now {mode}.", {"mode", "approval_id"}),
    CodeSpec(
        "MCP-CFG-I-002",
        "Mode {mode} needs a human approval ({approval_id}); see data.hint.",
        {"mode", "approval_id", "hint"},
    ),
)
