"""Reply codes of the game's own logs (SPEC §17)."""

from domain.replies.codes import CodeSpec
from domain.replies.shapes import COUNT, RECORD, TEXT, TEXTS, items, record

_LOG_ABOUT = {"address", "written_at", "line_count", "findings"}
_LOG_SHAPES = {
    "written_at": TEXT,
    "line_count": COUNT,
    "findings": items(record({"finding": TEXT, "lines": COUNT, "says": TEXT})),
}
LOG_CODES: tuple[CodeSpec, ...] = (
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
