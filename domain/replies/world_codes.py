"""Reply codes of reading the world: resolution, visibility, files, playsets and the state store."""

from types import MappingProxyType

from domain.replies.codes import CodeSpec
from domain.replies.shapes import COUNT, FLAG, RECORD, TEXT, TEXTS, items, maybe, record

_SECONDS = MappingProxyType({"type": "number", "minimum": 0})
_ADDRESS_RULE = {"rule", "expected"}
WORLD_CODES: tuple[CodeSpec, ...] = (
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
