"""Reply codes of the playset's content index and of what the CK3 parser finds in a file."""

from types import MappingProxyType

from domain.replies.codes import CodeSpec
from domain.replies.shapes import COUNT, RECORD, TEXT, TEXTS, items

_PAGED = {"count", "total", "truncated", "next_cursor", "hint", "pending"}
_INDEX_SHAPES = {"key": TEXT, "pending": COUNT, "language": TEXT, "reference": TEXT, "kinds": items(RECORD)}
INDEX_CODES: tuple[CodeSpec, ...] = (
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
PARSE_CODES: tuple[CodeSpec, ...] = tuple(
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
