"""The one registry of reply codes. Every Reply's code is a key here; codes are never renamed or reused.

`docs/reply-codes.md` is generated from this table (`ck3raven codes --format markdown`) and a golden test
pins it, so a change to a code is a visible API change.
"""

from types import MappingProxyType

from domain.replies.codes import CodeSpec, index
from domain.replies.shapes import CONTRACT, COUNT, FLAG, RECORD, TEXT, TEXTS, items, maybe, record

_REVERTED = record({"address": TEXT, "kind": TEXT, "action": TEXT})
_SECONDS = MappingProxyType({"type": "number", "minimum": 0})
_COMMITTED = record({"address": TEXT, "commit": maybe(TEXT), "parent": maybe(TEXT)})

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

_ADDRESS_RULE = {"rule", "expected"}
_WORLD: tuple[CodeSpec, ...] = (
    # --- WA: resolution, visibility, reading the world -------------------------------------------------
    CodeSpec("WA-RES-S-001", "Resolved {address}.", {"address", "kind"}, shapes={"kind": maybe(TEXT)}),
    CodeSpec(
        "WA-RES-I-001",
        "{address} is not addressable in this session: it does not exist or lies outside the visible world.",
        {"address"},
    ),
    CodeSpec("WA-RES-I-002", "A host path is not an address; use {expected}.", _ADDRESS_RULE),
    CodeSpec(
        "WA-RES-I-003",
        "'.' and '..' segments are not allowed (segment {segment}); use {expected}.",
        {*_ADDRESS_RULE, "segment"},
    ),
    CodeSpec(
        "WA-RES-I-004",
        "The address holds a character that is not allowed ({character}).",
        {*_ADDRESS_RULE, "character"},
        optional={"index", "segment"},  # where it is: a position in the text, or a segment's number
    ),
    CodeSpec(
        "WA-RES-I-005", "The address is not in Unicode NFC form; send it NFC-normalised.", _ADDRESS_RULE
    ),
    CodeSpec("WA-RES-I-006", "Segment {segment} ends in a dot or a space.", {*_ADDRESS_RULE, "segment"}),
    CodeSpec(
        "WA-RES-I-007",
        "Segment {segment} is a reserved device name (CON, NUL, COM1, ...).",
        {*_ADDRESS_RULE, "segment"},
    ),
    CodeSpec(
        "WA-RES-I-008",
        "The address or one of its segments is longer than {limit} bytes.",
        {*_ADDRESS_RULE, "limit"},
        optional={"segment"},
    ),
    CodeSpec(
        "WA-RES-I-009", "That root is not configured in this session; the roots are: {roots}.", {"roots"}
    ),
    CodeSpec(
        "WA-RES-I-010", "No mod of the active playset has that name or id; the mods are: {mods}.", {"mods"}
    ),
    CodeSpec(
        "WA-RES-I-011",
        "The address is malformed ({rule}); use {expected}.",
        _ADDRESS_RULE,
        optional={"segment"},
    ),
    CodeSpec(
        "WA-RES-I-012",
        "{address} is or passes through a symbolic link; links are never followed.",
        {"address"},
    ),
    CodeSpec(
        "WA-RES-I-013",
        "{address} is not a regular file (a device, FIFO, socket, or a file with several hard links).",
        {"address"},
    ),
    CodeSpec("WA-RES-I-014", "{address} is not a folder; list and tree take a folder.", {"address"}),
    CodeSpec(
        "WA-RES-I-015",
        "Segment {segment} looks like an 8.3 short name ('~' and a digit).",
        {*_ADDRESS_RULE, "segment"},
    ),
    CodeSpec("WA-RES-I-016", "cd takes a root category only, such as ROOT_GAME.", _ADDRESS_RULE),
    CodeSpec(
        "WA-RES-I-018",
        "{root} lies in no git repository (or one without commits): git's commands need one. Make the folder "
        "a repository with a first commit (git init, then git commit, outside ck3raven), or name a folder "
        "that is one.",
        {"root"},
    ),
    CodeSpec(
        "WA-RES-I-020",
        "{name} is a mod of the active playset but not a local mod: override copies into a local mod (one "
        "in the documents folder's mod/); the local mods are: {local_mods}.",
        {"name", "local_mods"},
        opaque={"name", "local_mods"},  # mods' names come from files the agent may write
        shapes={"name": TEXT, "local_mods": TEXTS},
    ),
    CodeSpec(
        "WA-RES-I-019",
        "{address} is not spelled as its folder lists it (this filesystem ignores case); use {canonical}.",
        {"address", "canonical"},
    ),
    CodeSpec(
        "WA-IO-E-001", "The filesystem failed while serving {address}; report the trace id.", {"address"}
    ),
    # --- the state store held locked by another process -------------------------------------------
    CodeSpec(
        "WA-IO-E-002",
        "The state database is busy: another process has held it locked for {locked_for_s} s (this call "
        "waited {waited_s} s); nothing changed at {address}. Try again once it is free.",
        {"address", "store", "waited_s", "locked_for_s"},
        shapes={"store": TEXT, "waited_s": _SECONDS, "locked_for_s": _SECONDS},
    ),
    CodeSpec(
        "WA-READ-S-001",
        "{address}: {count:entry|entries} of {total} that match; the next page's cursor: {next_cursor}.",
        {"address", "entries", "count", "total", "truncated", "next_cursor", "hint"},
    ),
    CodeSpec(
        "WA-READ-S-002",
        "{count:folder|folders} below {address}, down {depth:level|levels}.",
        {"address", "depth", "directories", "count", "truncated", "next_cursor", "hint"},
    ),
    CodeSpec(
        "WA-RES-I-017", "{address} is a folder or a root; {command} takes a file.", {"address", "command"}
    ),
    CodeSpec(
        "WA-READ-S-003",
        "{address}: lines {first_line} to {last_line} of {total_lines} ({size} bytes in all).",
        {
            "address",
            "content",
            "size",
            "sha256",
            "total_lines",
            "first_line",
            "last_line",
            "truncated",
            "next_offset",
        },
        opaque={"content"},
    ),
    CodeSpec(
        "WA-READ-S-007",
        "{count:name matches|names match} {glob} ({scanned:entry|entries} looked at).",
        {"glob", "matches", "count", "scanned", "truncated", "next_cursor", "hint"},
    ),
    CodeSpec(
        "WA-READ-S-008",
        "{count:line holds|lines hold} the pattern, in {files_matched} of {files_read:file|files} read.",
        {
            "pattern",
            "hits",
            "count",
            "files_read",
            "files_matched",
            "bytes_read",
            "skipped",
            "truncated",
            "cap",
            "syntax",
            "hint",
            "unreached",
            "next_cursor",
        },
        opaque={"hits", "pattern"},  # lines of files are people's text, like file content
    ),
    CodeSpec("WA-READ-I-001", "{address} is not UTF-8 text; ck3raven reads text only.", {"address"}),
    CodeSpec("WA-READ-I-002", "{address} is larger than {limit} bytes.", {"address", "limit"}),
    CodeSpec(
        "WA-WRITE-S-001",
        "Wrote {size} bytes to {address} (data.adjusted: what the game's file rules changed).",
        {"address", "created", "size", "sha256", "adjusted"},
    ),
    CodeSpec(
        "WA-WRITE-I-008",
        "{address} would not be a readable descriptor; data.problems says why. Nothing was changed.",
        {"address", "problems"},
    ),
    CodeSpec("WA-WRITE-S-002", "Deleted {address}.", {"address"}),
    CodeSpec("WA-WRITE-I-001", "The content is larger than {limit} bytes.", {"limit"}),
    CodeSpec(
        "WA-WRITE-I-002",
        "The old text of edit {edit} occurs {count:time|times} in {address}; each needs exactly one. Nothing "
        "was changed (data.nearest, when given: the lines most like it, and where they start).",
        {"address", "count", "edit"},
        optional={"nearest"},
        opaque={"nearest"},  # the file's own text
        shapes={"nearest": record({"line": COUNT, "text": TEXT})},
    ),
    CodeSpec(
        "WA-WRITE-S-005",
        "Edited {address}: every replacement applied ({size} bytes now).",
        {"address", "matched", "size", "sha256", "adjusted"},
    ),
    CodeSpec(
        "WA-WRITE-S-006",
        "Dry run: nothing was written; data.diff shows what the call would change in {address} (lines "
        "{diff_offset} on of {diff_lines}; data.next_diff_offset: where the rest starts).",
        {
            "address",
            "created",
            "diff",
            "diff_truncated",
            "diff_lines",
            "diff_offset",
            "next_diff_offset",
            "hint",
            "matched",
            "size",
            "sha256",
            "adjusted",
        },
        opaque={"diff"},
        shapes={"diff_lines": COUNT, "diff_offset": COUNT, "next_diff_offset": maybe(COUNT)},
    ),
    CodeSpec(
        "WA-WRITE-I-006",
        "{address} changed since it was read (its sha256 is not expected_sha256); read it again. Nothing "
        "was changed.",
        {"address", "expected_sha256", "sha256"},
    ),
    CodeSpec("WA-WRITE-I-007", "{address} already exists; create_only does not replace a file.", {"address"}),
    CodeSpec("WA-WRITE-I-004", "An edit needs a non-empty old text.", {"rule"}),
    CodeSpec(
        "WA-READ-S-004",
        "{count:change|changes} in the repository at {repository} since HEAD (data.changes: those that fit a "
        "reply; the rest with cursor=data.next_cursor).",
        {"root", "repository", "head", "changes", "count", "next_cursor"},
        shapes={"repository": TEXT},
    ),
    CodeSpec(
        "WA-READ-S-005",
        "The changes of {address} since HEAD (truncated: cut at a line to fit a reply; read the file whole "
        "with ck3_read).",
        {"address", "diff", "truncated"},
        opaque={"diff"},
    ),
    CodeSpec(
        "WA-READ-S-006",
        "The newest {count:commit|commits} of the repository holding {root}{truncated:?; older commits "
        "follow (ask for more with limit)}.",
        {"root", "commits", "count", "truncated"},
        opaque={"commits"},  # messages and authors are people's text, like file content
    ),
    CodeSpec(
        "WA-WRITE-S-003",
        "Staged {count:file|files} (data.staged: those that fit a reply).",
        {"staged", "count"},
    ),
    CodeSpec(
        "WA-WRITE-S-004",
        "Committed {sha}: {count:file|files} (data.paths: those that fit a reply).",
        {"sha", "message", "paths", "count"},
        opaque={"message"},
    ),  # the message is a person's text, checked before the commit as content is
    CodeSpec("WA-WRITE-I-005", "Nothing to do: {problem}.", {"problem"}),
    CodeSpec(
        "WA-CFG-S-001",
        "{count:playset|playsets} ({unshown} more whose names cannot be shown); the active one is {active}.",
        {"active", "playsets", "count", "unshown"},
        opaque={"playsets"},  # names from files the agent may write, invalid ones included
    ),
    CodeSpec(
        "WA-CFG-S-002",
        "Playset {name} has {count:mod|mods}.",
        {"name", "active", "mods", "count"},
        optional={"index"},
        opaque={"mods"},  # names and descriptors come from files the agent may write
        shapes={"active": FLAG, "mods": items(RECORD), "index": maybe(RECORD)},
    ),
    CodeSpec(
        "WA-READ-S-009",
        "The game loads {path} from {winner} (data.sources: every source in load order).",
        {"path", "sources", "winner", "note", "replace_path", "rules"},
    ),
    CodeSpec(
        "WA-READ-S-010",
        "{total:file|files} in {path} across vanilla and the playset's mods, {count} in this page; "
        "data.files names each winner.",
        {
            "path",
            "files",
            "count",
            "total",
            "truncated",
            "next_cursor",
            "hint",
            "note",
            "replace_path",
            "rules",
        },
        shapes={
            "files": items(
                record({"name": TEXT, "winner": maybe(TEXT), "overridden": FLAG, "sources": TEXTS})
            )
        },
    ),
    CodeSpec(
        "WA-READ-S-011",
        "{total:path|paths} where {mods} override or hide another source's file; {count} in this page; "
        "the next page's cursor: {next_cursor}.",
        {"mods", "path", "files", "count", "total", "truncated", "next_cursor", "hint", "rules"},
        opaque={"mods"},  # mods' names come from files the agent may write
        shapes={
            "files": items(
                record(
                    {
                        "path": TEXT,
                        "sources": TEXTS,
                        "winner": maybe(TEXT),
                        "hidden": items(record({"source": TEXT, "by": TEXT})),
                    }
                )
            ),
        },
    ),
    CodeSpec(
        "WA-CFG-I-001",
        "No playset has that name; the playsets are: {playsets}.",
        {"playsets"},
        opaque={"playsets"},
    ),
    CodeSpec(
        "WA-PARSE-I-001",
        "The playset file {file} does not fit the playset format; see data.errors.",
        {"file", "errors"},
    ),
)

_PAGED = {"count", "total", "truncated", "next_cursor", "hint", "pending"}
_INDEX_SHAPES = {"key": TEXT, "pending": COUNT, "language": TEXT, "reference": TEXT, "kinds": items(RECORD)}
_INDEX: tuple[CodeSpec, ...] = (
    # --- the playset's content index (SPEC §15) ------------------------------------------------------
    CodeSpec(
        "MCP-DB-S-001",
        "The content index of playset {name} is built: {count:file|files} seen, {parsed} parsed.",
        {"name", "count", "parsed", "seconds", "at"},
        shapes={"parsed": COUNT, "seconds": MappingProxyType({"type": "number"}), "at": TEXT},
    ),
    CodeSpec(
        "MCP-DB-I-001",
        "The content index of playset {name} is not built yet: the server builds it in the background; "
        "a query meanwhile indexes what it needs and says how many files are not indexed yet.",
        {"name"},
    ),
    CodeSpec(
        "WA-READ-S-012",
        "{key} has {count:definition|definitions} in the playset; data.kinds says which one the game "
        "uses for each kind, by which rule.",
        {"key", "kinds", "count", "pending", "rules"},
        optional={"note"},
        shapes={k: _INDEX_SHAPES[k] for k in ("key", "kinds", "pending")},
    ),
    CodeSpec(
        "WA-READ-S-013",
        "{total:conflict|conflicts} in the playset: {file_conflicts} of paths two or more mods ship, "
        "{key_conflicts} of keys that files the game reads, from two or more sources, define; {count} in "
        "this page{pending:?; # files are not indexed yet, so more may follow}.",
        {"conflicts", *_PAGED, "rules", "file_conflicts", "key_conflicts"},
        shapes={
            "conflicts": items(RECORD),
            "pending": COUNT,
            "file_conflicts": COUNT,
            "key_conflicts": COUNT,
        },
    ),
    CodeSpec(
        "WA-READ-S-014",
        "{total:file mentions|files mention} {key} in the playset's script and GUI; {count} in this page.",
        {"key", "files", *_PAGED},
        shapes={"key": TEXT, "files": items(RECORD), "pending": COUNT},
    ),
    CodeSpec(
        "WA-READ-S-015",
        "{total:key|keys} of {reference} localisation {total:~has|have} no {language} entry; {count} in "
        "this page.",
        {"language", "reference", "keys", *_PAGED},
        shapes={k: _INDEX_SHAPES[k] for k in ("language", "reference", "pending")} | {"keys": TEXTS},
    ),
)

_PARSE_FINDING = {"first_line", "problem"}
_PARSE: tuple[CodeSpec, ...] = tuple(
    # --- WA-PARSE: what the CK3 parser finds in a file, as the content index and close report it --------
    CodeSpec(code, f"{meaning} (line {{first_line}}: {{problem}}).", _PARSE_FINDING)
    for code, meaning in (
        ("WA-PARSE-I-002", "A closing brace closes nothing; it is skipped"),
        ("WA-PARSE-I-003", "An opening brace is never closed; its block runs to the end of the file"),
        ("WA-PARSE-I-004", "A quoted string is not closed; it runs to the end of its line"),
        ("WA-PARSE-I-005", "A key and its operator have no value, or an operator has no key"),
        ("WA-PARSE-I-006", "The file passes a bound of the parser (size, tokens or nesting)"),
        ("WA-PARSE-I-007", "The file is not UTF-8 text (binary, UTF-16 or bytes that are not UTF-8)"),
        ("WA-PARSE-I-008", "A localisation file lacks its l_<language>: header"),
        ("WA-PARSE-I-009", 'A localisation line is not a key:0 "value" entry'),
        ("WA-PARSE-I-010", "A key is defined twice in one file; the later definition is read"),
        (
            "WA-PARSE-I-011",
            "A key starts a line at column 0 inside a block: a closing brace may be missing above",
        ),
    )
)

_MUTATION = {"address", "operation", "rule"}
_GOVERNANCE: tuple[CodeSpec, ...] = (
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

_PACING: tuple[CodeSpec, ...] = (
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
_CONTRACTS: tuple[CodeSpec, ...] = (
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

_LOG_ABOUT = {"address", "written_at", "line_count", "findings"}
_LOG_SHAPES = {
    "written_at": TEXT,
    "line_count": COUNT,
    "findings": items(record({"finding": TEXT, "lines": COUNT, "says": TEXT})),
}
_LOGS: tuple[CodeSpec, ...] = (
    # --- the game's own logs (SPEC §17) ---------------------------------------------------------------
    CodeSpec(
        "WA-LOG-S-001",
        "{address} holds {emissions} emissions; data.levels counts them by level, data.templates the most "
        "frequent messages; data.findings says what did not read as text.",
        {*_LOG_ABOUT, "emissions", "levels", "sources", "templates", "template_count"},
        shapes=_LOG_SHAPES
        | {
            "emissions": COUNT,
            "levels": RECORD,
            "sources": items(RECORD),
            "templates": items(RECORD),
            "template_count": COUNT,
        },
    ),
    CodeSpec(
        "WA-LOG-S-002",
        "{total:row|rows} of {address} match; {count} in this page.",
        {*_LOG_ABOUT, "count", "total", "truncated", "next_cursor", "hint"},
        optional={"groups", "emissions", "cascades", "logs"},
        shapes=_LOG_SHAPES | {k: items(RECORD) for k in ("groups", "emissions", "cascades", "logs")},
    ),
    CodeSpec(
        "WA-LOG-S-003",
        "One emission of {address}, whole, each file it names attributed.",
        {*_LOG_ABOUT, "emission"},
        shapes=_LOG_SHAPES | {"emission": RECORD},
    ),
    CodeSpec(
        "WA-LOG-S-004",
        "{count:line|lines} of {address} from line {first_line}, host paths replaced.",
        {*_LOG_ABOUT, "first_line", "lines", "count", "next_offset"},
        shapes=_LOG_SHAPES | {"lines": TEXTS},
    ),
    CodeSpec(
        "WA-LOG-S-005",
        "{count:log|logs} kept in {address}; ask them with ck3_search log path=<a kept log>.",
        {"address", "files", "count"},
        shapes={"files": items(RECORD)},
    ),
)

REGISTRY: dict[str, CodeSpec] = index(
    _SPECS + _WORLD + _PARSE + _INDEX + _GOVERNANCE + _PACING + _CONTRACTS + _LOGS
)
"""Every registered code, keyed by its text."""
