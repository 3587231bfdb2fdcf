"""ck3raven's own lint checks for CK3 files, part of the locked ruleset close runs on changed files.

CK3-UTF8     the file is not UTF-8 text
CK3-BRACES   a script file's braces do not balance (or a string is not closed)
CK3-BOM      a file lacks the UTF-8 byte-order mark its kind needs (the one table of domain.ck3.encodings:
             script under common/, events/, history/, and localisation)
CK3-DESC     a descriptor (`descriptor.mod`, or a registry `<name>.mod`) is unreadable or lacks a field
CK3-FOLDER   a file in a folder the game never reads, misspelt for one it does (`localisation/`, the game
             reads `localization/`; `common/on_actions/`, it reads `common/on_action/`)
CK3-LOCNAME  a localisation file whose name does not end in `_l_<language>.yml` for a language the game
             knows, or that lies in another language's folder
CK3-LOCHEAD  a localisation file whose first entry is not the `l_<language>:` header of its language
CK3-LOCQUOTE a localisation value with an inner `"` not escaped as `\"`
CK3-REF      a changed line names a key the playset does not define (domain.compliance.reference_checks)
CK3-LOCMISS  a key new to the playset lacks the localisation its kind needs (the same module)

The game skips what these find without a word. Sources: the game's own files (`game/localization/<lang>/
*_l_<lang>.yml`, each opening with a byte-order mark and `l_<lang>:`; `game/common/on_action/`), and
ck3-tiger's localisation loader, which reports "could not determine language from filename", "wrong
language header" and "Expected UTF-8 BOM encoding". An unescaped inner quote: ck3-tiger reads a value to
the last `"` of its line, so it stays silent; the rule is kept because a value cut short at the inner quote
is what modders report seeing, and an escaped quote is read alike either way.
"""

import re
from typing import Final

from domain.ck3 import encodings
from domain.ck3.descriptors import missing, parse
from domain.compliance.symbols import Unparsable, kind_of, script_symbols
from ports.linter import Finding

RULES: Final = (
    "CK3-UTF8",
    "CK3-BRACES",
    "CK3-BOM",
    "CK3-DESC",
    "CK3-FOLDER",
    "CK3-LOCNAME",
    "CK3-LOCHEAD",
    "CK3-LOCQUOTE",
    "CK3-REF",
    "CK3-LOCMISS",
)
VERSION: Final = "5"
_BOM: Final = b"\xef\xbb\xbf"
LANGUAGES: Final = (
    "english",
    "french",
    "german",
    "spanish",
    "russian",
    "korean",
    "simp_chinese",
    "braz_por",
    "japanese",
    "polish",
    "turkish",
)
"""The languages the game reads localisation for."""
MISSPELT: Final = {("localisation",): "localization", ("common", "on_actions"): "common/on_action"}
"""Folders the game never reads, and the one each was meant to be."""
_GAME_TOPS: Final = frozenset(folder for kind in encodings.TABLE for folder in kind.folders if folder)
_ENTRY: Final = re.compile(r'^[ \t]*([^\s:#"]+):\d*[ \t]*(.*)$')


def checks(address: str, parts: tuple[str, ...], data: bytes) -> list[Finding]:
    """The findings of the CK3 rules in one file (only the kinds of file they concern)."""
    name = parts[-1] if parts else ""
    kind = kind_of(parts)
    is_descriptor = name == "descriptor.mod" or (name.endswith(".mod") and parts[:1] == ("mod",))
    if kind not in {"ck3-script", "ck3-events", "ck3-localisation"} and not is_descriptor:
        return []
    found = _misspelt(address, parts) + _unmarked(address, parts, data)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return [*found, Finding("CK3-UTF8", address, 1, "the file is not UTF-8 text")]
    if kind == "ck3-localisation":
        found += localisation_checks(address, parts, text)
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


def _misspelt(address: str, parts: tuple[str, ...]) -> list[Finding]:
    """CK3-FOLDER for a file below a folder the game never reads (wherever a mod's tree starts)."""
    folders = tuple(part.casefold() for part in parts[:-1])
    for wrong, right in MISSPELT.items():
        if any(folders[i : i + len(wrong)] == wrong for i in range(len(folders))):
            message = f"the game never reads {'/'.join(wrong)}/: its folder is {right}/"
            return [Finding("CK3-FOLDER", address, 1, message)]
    return []


def _unmarked(address: str, parts: tuple[str, ...], data: bytes) -> list[Finding]:
    """CK3-BOM for a file whose kind (from the game's top folder on, wherever a mod's tree starts) needs
    the byte-order mark it lacks."""
    folded = tuple(part.casefold() for part in parts)
    start = next((i for i, part in enumerate(folded[:-1]) if part in _GAME_TOPS), None)
    expected = encodings.expectation(folded[start:]) if start is not None else None
    if expected is None or expected.bom != encodings.REQUIRED or data.startswith(_BOM):
        return []
    return [Finding("CK3-BOM", address, 1, f"a {expected.kind} file needs the UTF-8 byte-order mark")]


def localisation_checks(address: str, parts: tuple[str, ...], text: str) -> list[Finding]:
    """The file's name and folder, its header, and quotes inside values."""
    found: list[Finding] = []
    name = parts[-1].casefold()
    language = next((lang for lang in LANGUAGES if name.endswith(f"_l_{lang}.yml")), None)
    folders = [part.casefold() for part in parts[:-1]]
    if language is None:
        message = f"the name must end in _l_<language>.yml, for one of {', '.join(LANGUAGES)}"
        return [*found, Finding("CK3-LOCNAME", address, 1, message)]
    elsewhere = [lang for lang in LANGUAGES if lang in folders and lang != language]
    if elsewhere:
        message = f"a file for {language} in the {elsewhere[0]} folder"
        found.append(Finding("CK3-LOCNAME", address, 1, message))
    return found + _entries(address, text.removeprefix("\ufeff"), language)


def _entries(address: str, text: str, language: str) -> list[Finding]:
    """CK3-LOCHEAD when the first entry is not the language's header; CK3-LOCQUOTE per value with an
    unescaped inner quote."""
    found: list[Finding] = []
    header = None
    for number, line in enumerate(text.splitlines(), start=1):
        entry = _ENTRY.match(line)  # a comment line never matches: no key starts with `#`
        if entry is None:
            continue
        if header is None:
            header = entry.group(1)
            if header != f"l_{language}" or entry.group(2).strip().split("#")[0]:
                message = f"the first entry must be the header l_{language}:"
                found.append(Finding("CK3-LOCHEAD", address, number, message))
            continue
        value = entry.group(2)
        inner = value[value.find('"') + 1 : value.rfind('"')]  # holds no quote with fewer than two
        if re.search(r'(?<!\\)"', inner):
            found.append(Finding("CK3-LOCQUOTE", address, number, 'an inner " must be written \\"'))
    return found
