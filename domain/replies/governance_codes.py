"""Reply codes of enforcement, the one place that denies, and of the session's pacing."""

from domain.replies.codes import CodeSpec
from domain.replies.shapes import COUNT

_MUTATION = {"address", "operation", "rule"}
GOVERNANCE_CODES: tuple[CodeSpec, ...] = (
    # --- EN: the one place that denies ------------------------------------------------------------------
    CodeSpec("EN-WRITE-S-001", "{operation} on {address} is permitted ({rule}).", _MUTATION),
    CodeSpec(
        "EN-WRITE-D-001",
        "{operation} on {address} is not permitted in this mode (data.request, when given, is the modder's "
        "way: override the file in a local mod of data.mods).",
        {*_MUTATION, "mode", "required"},
        optional={"mods", "request"},
    ),
    CodeSpec(
        "EN-WRITE-D-002",
        "{operation} on {address} needs an open contract on {root_category} ({rule}); data.request is the "
        "call that opens one (fill in intent and work_declaration; when data.count is there, it declares "
        "data.declared of the data.count targets, as many as a reply holds; close lists any undeclared "
        "change, a page at a time).",
        {*_MUTATION, "required", "root_category", "request"},
        optional={"count", "declared"},
        shapes={"declared": COUNT},
    ),
    CodeSpec(
        "EN-WRITE-D-003",
        "The open contract covers {contract_root}, not {root_category}, the root of {address}: close it, "
        "then open one on {root_category}.",
        {*_MUTATION, "required", "contract_root", "root_category"},
    ),
    CodeSpec(
        "EN-WRITE-D-004",
        "The open contract does not declare {operation}: close it, then open one on {root_category} that "
        "does.",
        {*_MUTATION, "required", "root_category"},
    ),
    CodeSpec(
        "EN-WRITE-D-005",
        "{operation} on {address} needs a human approval recorded on the contract.",
        {*_MUTATION, "required"},
    ),
)

PACING_CODES: tuple[CodeSpec, ...] = (
    CodeSpec(
        "EN-EXEC-D-001",
        "This session is over its limit of {per_minute} {kind} a minute; retry after data.retry_after_ms.",
        {"kind", "per_minute", "retry_after_ms", "required", "rule"},
    ),
    CodeSpec(
        "EN-EXEC-D-002",
        "This session already has {waiting} calls waiting for it; retry after data.retry_after_ms.",
        {"waiting", "retry_after_ms", "required", "rule"},
    ),
)
