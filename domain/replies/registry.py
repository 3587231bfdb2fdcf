"""The one registry of reply codes. Every Reply's code is a key here; codes are never renamed or reused.

`docs/reply-codes.md` is generated from this table (`ck3raven codes --format markdown`) and a golden test
pins it, so a change to a code is a visible API change.
"""

from domain.replies.codes import CodeSpec, index
from domain.replies.contract_codes import CONTRACT_CODES
from domain.replies.governance_codes import GOVERNANCE_CODES, PACING_CODES
from domain.replies.index_codes import INDEX_CODES, PARSE_CODES
from domain.replies.log_codes import LOG_CODES
from domain.replies.session_codes import SESSION_CODES
from domain.replies.world_codes import WORLD_CODES

REGISTRY: dict[str, CodeSpec] = index(
    SESSION_CODES
    + WORLD_CODES
    + PARSE_CODES
    + INDEX_CODES
    + GOVERNANCE_CODES
    + PACING_CODES
    + CONTRACT_CODES
    + LOG_CODES
)
"""Every registered code, keyed by its text."""
