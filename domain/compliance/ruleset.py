"""The locked lint ruleset: exactly what close runs, hashed. The hash is recorded when a contract opens
(and carried to its renewals) and must be the same at close: a ruleset changed mid-contract (the operator's
ruleset file edited, the linter upgraded) makes close Invalid, since findings would no longer be judged by
the rules the work began under."""

import hashlib
import json

from domain.compliance import ck3_checks, reference_checks
from ports.linter import Linter


def current(linter: Linter) -> dict[str, object]:
    """The whole ruleset: the Python linter's (tool, version, rules) and ck3raven's own CK3 checks."""
    return {
        "python": linter.ruleset(),
        "ck3": {
            "rules": list(ck3_checks.RULES),
            "version": ck3_checks.VERSION,
            "references": reference_checks.table_digest(),
        },
    }


def digest(ruleset: dict[str, object]) -> str:
    return hashlib.sha256(json.dumps(ruleset, sort_keys=True, separators=(",", ":")).encode()).hexdigest()
