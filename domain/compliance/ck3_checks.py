"""ck3raven's own lint checks for CK3 files, part of the locked ruleset close runs on changed files.

CK3-UTF8   the file is not UTF-8 text
CK3-BRACES a script file's braces do not balance (or a string is not closed)
CK3-BOM    a localisation file lacks the UTF-8 byte-order mark the game needs
CK3-DESC   a descriptor (`descriptor.mod`, or a registry `<name>.mod`) is unreadable or lacks a required field
"""

from typing import Final

from domain.ck3.descriptors import missing, parse
from domain.compliance.symbols import Unparsable, kind_of, script_symbols
from ports.linter import Finding

RULES: Final = ("CK3-UTF8", "CK3-BRACES", "CK3-BOM", "CK3-DESC")
VERSION: Final = "1"
_BOM: Final = b"\xef\xbb\xbf"


def checks(address: str, parts: tuple[str, ...], data: bytes) -> list[Finding]:
    """The findings of the CK3 rules in one file (only the kinds of file they concern)."""
    name = parts[-1] if parts else ""
    kind = kind_of(parts)
    is_descriptor = name == "descriptor.mod" or (name.endswith(".mod") and parts[:1] == ("mod",))
    if kind not in {"ck3-script", "ck3-events", "ck3-localisation"} and not is_descriptor:
        return []
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return [Finding("CK3-UTF8", address, 1, "the file is not UTF-8 text")]
    found: list[Finding] = []
    if kind == "ck3-localisation" and not data.startswith(_BOM):
        found.append(Finding("CK3-BOM", address, 1, "localisation needs a UTF-8 byte-order mark"))
    if kind in {"ck3-script", "ck3-events"}:
        try:
            script_symbols(text)
        except Unparsable as exc:
            found.append(Finding("CK3-BRACES", address, 1, str(exc)))
    if is_descriptor:
        descriptor = parse(text)
        found += [Finding("CK3-DESC", address, line, problem) for line, problem in descriptor.problems]
        registry = name != "descriptor.mod"
        found += [
            Finding("CK3-DESC", address, 1, f"{key} is required")
            for key in missing(descriptor, registry=registry)
        ]
    return found
