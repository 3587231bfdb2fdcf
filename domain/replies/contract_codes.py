"""Reply codes of the contract gates: open, status, close, revert and renewal."""

from domain.replies.codes import CodeSpec
from domain.replies.shapes import CONTRACT, COUNT, RECORD, TEXT, TEXTS, items, maybe, record

_REVERTED = record({"address": TEXT, "kind": TEXT, "action": TEXT})
_COMMITTED = record({"address": TEXT, "commit": maybe(TEXT), "parent": maybe(TEXT)})

_SCOPE = {
    "contract_id",
    "root_category",
    "operations",
    "targets",
    "target_count",
    "expires_at",
    "baseline_sha",
    "baseline",
    "repositories",
    "renewed_from",
    "status",
}
CONTRACT_CODES: tuple[CodeSpec, ...] = (
    # --- CT: the contract gates ---------------------------------------------------------------------------
    CodeSpec(
        "CT-GATE-S-001",
        "Contract {contract_id} is open on {root_category} until {expires_at}.",
        {*_SCOPE, "carry_over"},
    ),
    CodeSpec(
        "CT-GATE-S-002",
        "Contract {contract_id} is closed; the work matches its declaration ({count:change|changes}; "
        "data.changes: those that fit a reply, the evidence data.artifact: all).",
        {"contract_id", "changes", "count", "artifact"},
    ),
    CodeSpec("CT-GATE-S-003", "Contract {contract_id} is cancelled.", {"contract_id"}),
    CodeSpec(
        "CT-GATE-S-004",
        "The open contract, if any, is in data.active; the last one closed, in data.last_closed.",
        {"active", "last_closed"},
        shapes={"active": maybe(CONTRACT)},
    ),
    CodeSpec(
        "CT-GATE-S-005",
        "{count:contract|contracts}; those marked inert belong to earlier sessions or were edited.",
        {"contracts", "count"},
    ),
    CodeSpec(
        "CT-GATE-S-006",
        "Contract {contract_id} renews {renewed_from} until {expires_at}.",
        {*_SCOPE, "carry_over"},
    ),
    CodeSpec(
        "CT-GATE-S-007", "Stashed {files}: saved, then put back as they are at HEAD.", {"stash_id", "files"}
    ),
    CodeSpec(
        "CT-GATE-S-008",
        "Reverting contract {contract_id} would change {count:file|files} (data.files); nothing was changed. "
        "Files changed again since the contract's work (data.changed_since) are left alone, and its "
        "commits (data.commits) stay in history.",
        {"contract_id", "files", "count", "changed_since", "commits"},
        shapes={"files": items(_REVERTED), "changed_since": TEXTS, "commits": items(_COMMITTED)},
    ),
    CodeSpec(
        "CT-GATE-S-009",
        "Reverted {count:file|files} of contract {contract_id}; their content before is saved as {saved_as}. "
        "Files changed again since (data.changed_since) were left alone; commits stay in history.",
        {"contract_id", "files", "count", "saved_as", "changed_since", "commits"},
        shapes={"files": items(_REVERTED), "changed_since": TEXTS, "commits": items(_COMMITTED)},
    ),
    CodeSpec(
        "CT-GATE-I-001", "The contract request is not valid; data.errors lists each problem.", {"errors"}
    ),
    CodeSpec(
        "CT-GATE-I-002",
        "Contract {contract_id} is already open: close, cancel or renew it first.",
        {"contract_id"},
    ),
    CodeSpec(
        "CT-GATE-I-003",
        "Some targets do not resolve inside the contract's root; see data.targets.",
        {"targets"},
        shapes={"targets": items(record({"index": COUNT, "problem": TEXT}, {"canonical": TEXT}))},
    ),
    CodeSpec(
        "CT-GATE-I-004",
        "Scope infeasible: this mode permits none of data.targets' declared operations.",
        {"targets"},
        shapes={"targets": items(record({"address": TEXT, "operation": TEXT}))},
    ),
    CodeSpec(
        "CT-GATE-I-005",
        "This needs a human approval ({approval_id}, {state}); see data.hint.",
        {"approval_id", "state", "targets", "hint"},
        shapes={"targets": TEXTS},
    ),
    CodeSpec(
        "CT-GATE-I-013",
        "Contract {contract_id} expired at {expires_at}; its work stays where it is. Renew it to go on "
        "(data.request is the ck3_contract call: the new contract keeps its baseline).",
        {"contract_id", "expires_at", "request"},
    ),
    CodeSpec(
        "CT-GATE-I-006",
        "That is not a contract this can apply to: {problem}.",
        {"contract_id", "problem"},
        shapes={"contract_id": maybe(TEXT)},
    ),
    CodeSpec(
        "CT-GATE-I-007",
        "{count:undeclared change|undeclared changes} under contract {contract_id} (data.undeclared: each "
        "with its kind and source), and {unnamed:change|changes} to files whose names no address can spell "
        "(rename or remove them); declare the rest in a new contract, or undo them.",
        {"contract_id", "undeclared", "count", "unnamed"},
        optional={"next_cursor"},
    ),
    CodeSpec(
        "CT-GATE-I-008",
        "{count:carry-over file has|carry-over files have} outlived three opens: declare them or stash "
        "them; see data.required (those that fit a reply).",
        {"required", "count", "carry_over"},
        shapes={"required": TEXTS},
    ),
    CodeSpec(
        "CT-GATE-I-009",
        "{count:new symbol|new symbols} of contract {contract_id} without an NST (data.uncovered: a page "
        "of them; the rest with close's cursor); if intended, declare them: data.request is the ck3_token "
        "call for the page shown.",
        {"contract_id", "uncovered", "count", "request"},
        optional={"next_cursor"},
    ),
    CodeSpec(
        "CT-GATE-I-012",
        "{count:removed key is|removed keys are} still mentioned by other files of the playset, and no "
        "file the game reads defines {count:~it|them} any more (data.removed: a page, with the mentions); "
        "if intended, declare them: data.request is the ck3_token call for the page shown.",
        {"contract_id", "removed", "count", "request"},
        optional={"next_cursor"},
        shapes={"removed": items(RECORD)},
    ),
    CodeSpec(
        "CT-GATE-I-014",
        "Close decides only on a content index complete for the work, and the playset's is not yet "
        "({state}{pending:?: # files not indexed}); contract {contract_id} stays open: call close again in "
        "a moment (data.request), the index goes on building meanwhile.",
        {"contract_id", "state", "pending", "request"},
        shapes={"pending": COUNT},
    ),
    CodeSpec(
        "CT-GATE-S-013",
        "Contract {contract_id} declares {count:removal|removals} (data.removals: those that fit a reply).",
        {"contract_id", "removals", "count"},
        shapes={"removals": items(RECORD)},
    ),
    CodeSpec(
        "CT-GATE-I-010",
        "Lint findings in the changed files exceed what live LXEs excuse (data.over: {over_count:rule and "
        "file|rules and files}; data.findings: a page of {count:finding|findings}, the rest with close's "
        "cursor). Mend them (data.fixes: the write that mends a file, where one does; a finding's message "
        "says what is wrong and, for an undefined key, the nearest defined ones), or excuse them if intended "
        "(data.request, also data.lxe: the ck3_token call).",
        {"contract_id", "over", "over_count", "findings", "count", "fixes", "lxe", "request"},
        shapes={"over_count": COUNT, "fixes": items(RECORD), "lxe": RECORD, "request": RECORD},
        optional={"next_cursor"},
    ),
    CodeSpec(
        "CT-GATE-I-011",
        "The lint ruleset changed since contract {contract_id} opened; the work cannot be judged by the "
        "rules it began under.",
        {"contract_id", "recorded", "current"},
        shapes={"recorded": maybe(TEXT)},  # none when the ruleset the contract opened under was not kept
    ),
    CodeSpec(
        "CT-GATE-S-010",
        "NST recorded for contract {contract_id}: {count:symbol|symbols} (data.nsts: those that fit a "
        "reply).",
        {"contract_id", "nsts", "count"},
    ),
    CodeSpec(
        "CT-GATE-S-011",
        "LXE {lxe_id} for contract {contract_id} is approved and written to {path} (until {expires_at}).",
        {"lxe_id", "contract_id", "path", "expires_at"},
    ),
    CodeSpec(
        "CT-GATE-S-012",
        "The tokens of contract {contract_id}: {count:NST symbol|NST symbols} and {lxe_count:LXE|LXEs} "
        "(data.nsts and data.lxes: those that fit a reply){unshown:?; stored NSTs skipped, as they no longer "
        "pass the screen of names (ck3raven doctor names them): #}.",
        {"contract_id", "nsts", "lxes", "count", "lxe_count", "unshown"},
        shapes={"lxe_count": COUNT},
    ),
    CodeSpec("CT-GATE-E-001", "The history of {root} cannot be read; report the trace id.", {"root"}),
    CodeSpec(
        "CT-GATE-E-002",
        "The evidence of closing {contract_id} could not be stored, so it stays open; report the trace id.",
        {"contract_id"},
    ),
    CodeSpec(
        "CT-GATE-E-004",
        "Restoring stopped partway; the files restored so far were put back, except data.left_changed. "
        "Every file's content before is saved as {saved_as}; report the trace id.",
        {"contract_id", "saved_as", "left_changed"},
        shapes={"contract_id": maybe(TEXT)},
    ),
    CodeSpec(
        "CT-GATE-E-003",
        "The lint ruleset cannot run, so contract {contract_id} stays open; report the trace id.",
        {"contract_id"},
    ),
)
