"""What the game would reject in a change (SPEC §14): references to keys the playset does not define
(`CK3-REF`) and localisation a new key needs but nothing provides (`CK3-LOCMISS`), on the lines a change
added or changed only, judged against the playset as it stands after the change.

- CK3-REF: a field of the reference table (domain.ck3.references) names a key no file of the playset defines
  in the row's kinds; the finding names the field, the key and the nearest defined keys of that kind: those
  within edit distance 2, then those it extends by a `_` or `.` part (`brave` for `brave_typo`). A name
  called with `= yes` counts as a scripted effect or trigger only when nothing defines it and no other file
  of the playset mentions it (see `references.SCRIPTED_CALL`).
- CK3-LOCMISS: a key new to the playset, of a kind the game shows to players, lacks a localisation key its
  kind needs in the reference language. An override of a key the playset defined before needs nothing new.
Lines of a file the parser could not read on are not checked; the file's note says from which line. An
unknown reference inside a scripted effect or trigger that takes parameters (`$NAME$`) is an advisory, not
a finding: the game reads that body only with the arguments of each call put in (docs/ck3-references.md).
"""

import hashlib
import re
from collections.abc import Callable, Iterable
from difflib import SequenceMatcher
from typing import Final, Protocol

from attrs import evolve, field, frozen

from domain.ck3 import definitions, reference_reading, references
from ports.linter import Finding

RULES: Final = ("CK3-REF", "CK3-LOCMISS")
REF: Final = "CK3-REF"
LOCMISS: Final = "CK3-LOCMISS"
NEAREST: Final = 3
"""Nearest keys named per unknown reference."""
DISTANCE: Final = 2
EVENT_DIGITS: Final = 6
"""Widths an event number is looked for in when written otherwise (`x.1` … `x.000001`)."""
ADVISORY: Final = (
    " (advisory: inside a scripted effect or trigger that takes parameters, which the game reads only where"
    " it is called, with its arguments)"
)
_NEEDS: Final = references.needs_by_kind()
_WORD: Final = re.compile(r"[A-Za-z_][\w.]*")
_TRIGGERS: Final = frozenset(
    {row.field for row in references.TABLE} | {row.sub for row in references.TABLE}
) | {
    "yes",
    "no",
}
"""Words a changed line must hold for the file to be parsed for references."""


class Lookup(Protocol):
    """What the checks ask of the playset (after the change)."""

    def kinds_of(self, key: str) -> set[str]:
        """The kinds the playset defines `key` as."""
        ...

    def keys_of(self, kind: str) -> Iterable[str]:
        """Every key of `kind` the playset defines."""
        ...

    def mentioned_elsewhere(self, word: str, located: tuple[str, str]) -> bool:
        """Whether a file other than `located` (source, path) mentions `word`."""
        ...

    def named_in(self, word: str, folder: str, located: tuple[str, str]) -> bool:
        """Whether a file below the game-relative `folder`, other than `located`, mentions `word`."""
        ...

    def localised(self, key: str, language: str) -> bool:
        """Whether the playset defines localisation `key` in `language`."""
        ...


@frozen
class Changed:
    """One changed script file: its address (as findings name it), where the playset's index holds it
    (source, path), its game-relative path, its text now and at open (None: new)."""

    address: str
    located: tuple[str, str]
    path: tuple[str, ...]
    now: str
    before: str | None


@frozen
class Checked:
    """The findings in one file; when some lines could not be read, a note saying so; and the advisories:
    unknown references inside a scripted effect or trigger that takes parameters, which the game reads
    only with its arguments put in where it is called (listed in the evidence, never refusing a close)."""

    findings: list[Finding]
    note: str | None
    advisories: list[Finding] = field(factory=list)


def changed_lines(before: str | None, now: str) -> set[int] | None:
    """The lines of `now` (from 1) a change added or changed; None: every line (a new file). The lines both
    texts begin and end with are set aside first (found by halving, each step one comparison of lists in
    C), so a change in one place of a large file costs about a pass over it, not a comparison of every
    line with every other."""
    if before is None:
        return None
    old, new = before.splitlines(), now.splitlines()
    shortest = min(len(old), len(new))
    head = _common(lambda n: old[:n] == new[:n], shortest)
    tail = _common(lambda n: old[len(old) - n :] == new[len(new) - n :], shortest - head)
    middle_old, middle_new = old[head : len(old) - tail], new[head : len(new) - tail]
    lines: set[int] = set()
    for tag, _, _, first, last in SequenceMatcher(None, middle_old, middle_new).get_opcodes():
        if tag in {"replace", "insert"}:
            lines.update(range(head + first + 1, head + last + 1))
    return lines


def _common(same: Callable[[int], bool], most: int) -> int:
    """The largest n up to `most` for which `same(n)` holds (it holds for every smaller n too)."""
    low, high = 0, most
    while low < high:
        middle = (low + high + 1) // 2
        if same(middle):
            low = middle
        else:
            high = middle - 1
    return low


def check(changed: Changed, lookup: Lookup, added: set[tuple[str, str]], language: str) -> Checked:
    """The CK3-REF and CK3-LOCMISS findings of one changed file; `added` holds the (kind, key) the change
    makes new to the playset."""
    if definitions.file_kind(changed.path) not in {"script", "events"}:
        return Checked([], None)
    lines = changed_lines(changed.before, changed.now)
    if lines is not None and not added and not _may_refer(changed, lines):
        return Checked([], None)  # no changed line holds a word a reference could start with
    needs = bool(added) and _may_need(changed.path)  # else no localisation is checked: no block is read
    reading = reference_reading.read(changed.path, changed.now, lines, blocks=needs)
    nearest = _Nearest(lookup)
    unknown = [
        _unknown(changed.address, ref, nearest.of(ref.key, ref.kinds))
        for ref in reading.references
        if (lines is None or ref.line in lines) and not _known(ref, changed.located, lookup)
    ]
    findings, advisories = _advised(changed, unknown)
    findings += _missing_localisation(changed, reading, lookup, added, language)
    note = None
    if reading.unread_from is not None:
        note = f"lines from {reading.unread_from} on do not parse: no reference there was checked"
    return Checked(findings, note, advisories)


def _advised(changed: Changed, unknown: list[Finding]) -> tuple[list[Finding], list[Finding]]:
    """The unknown references as findings, and as advisories those inside a scripted effect or trigger
    that takes parameters (its blocks found only when there is an unknown reference to place)."""
    macros = reference_reading.parameterised(changed.path, changed.now) if unknown else []
    findings: list[Finding] = []
    advisories: list[Finding] = []
    for found in unknown:
        if any(first <= found.line <= last for first, last in macros):
            advisories.append(evolve(found, message=found.message + ADVISORY))
        else:
            findings.append(found)
    return findings, advisories


def _may_refer(changed: Changed, lines: set[int]) -> bool:
    """Whether a changed line could hold a reference: a field of the table, a call (`yes`, `no`), or
    anything in an on_action file (its lists name events and on_actions)."""
    if changed.path[:2] == ("common", "on_action"):
        return bool(lines)
    text = changed.now.splitlines()
    words = {word for number in lines if number <= len(text) for word in _WORD.findall(text[number - 1])}
    return not words.isdisjoint(_TRIGGERS)


def _known(ref: reference_reading.Reference, located: tuple[str, str], lookup: Lookup) -> bool:
    kinds = lookup.kinds_of(ref.key)
    if ref.call:  # a scripted effect or trigger, or an engine name other files use too
        return bool(kinds) or lookup.mentioned_elsewhere(ref.key, located)
    if any(kind == wanted or kind.startswith(wanted + "/") for kind in kinds for wanted in ref.kinds):
        return True  # a kind is its folder below common/, sub-folders included
    if ref.kinds == references.EVENT and _same_event(ref.key, lookup):
        return True
    return ref.kinds == references.TRAIT and lookup.named_in(ref.key, references.TRAIT_GROUPS, located)


def _same_event(key: str, lookup: Lookup) -> bool:
    """Whether the playset defines the event `key` names with its number written otherwise: the game reads
    an event id as a namespace and a number (`chinese_students.001` is `chinese_students.0001`), as the
    game's own files rely on."""
    namespace, _, number = key.rpartition(".")
    if not namespace or not number.isdigit():
        return False
    value = int(number)
    spelt = {f"{namespace}.{value:0{width}d}" for width in range(1, EVENT_DIGITS + 1)} - {key}
    return any(references.EVENT[0] in lookup.kinds_of(other) for other in spelt)


def _unknown(address: str, ref: reference_reading.Reference, near: list[str]) -> Finding:
    if ref.call:
        what = f"{ref.key} = yes calls no scripted effect or trigger the playset defines"
    else:
        what = f"{ref.field} = {ref.key}: the playset defines no {' or '.join(ref.kinds)} of that name"
    hint = f"; did you mean {', '.join(near)}?" if near else ""
    return Finding(REF, address, ref.line, what + hint)


class _Nearest:
    """The defined keys of some kinds closest to a key, each kind's keys read once."""

    def __init__(self, lookup: Lookup) -> None:
        self.lookup = lookup
        self.keys: dict[str, list[str]] = {}

    def of(self, key: str, kinds: tuple[str, ...]) -> list[str]:
        scored: set[tuple[int, str]] = set()
        for kind in kinds:
            if kind not in self.keys:
                self.keys[kind] = sorted(set(self.lookup.keys_of(kind)))
            for other in self.keys[kind]:
                if abs(len(other) - len(key)) <= DISTANCE and other != key:
                    distance = edit_distance(key, other, DISTANCE)
                    if distance <= DISTANCE:
                        scored.add((distance, other))
                elif _stem_of(other, key) or _stem_of(key, other):
                    scored.add((DISTANCE + 1, other))
        return [other for _, other in sorted(scored)[:NEAREST]]


def _stem_of(stem: str, word: str) -> bool:
    """Whether `word` is `stem` with a part added after `_` or `.` (`brave_typo` of `brave`)."""
    return len(word) > len(stem) and word.startswith(stem) and word[len(stem)] in "_."


def edit_distance(first: str, second: str, bound: int) -> int:
    """The Levenshtein distance of two words, or `bound + 1` once it is sure to pass `bound`."""
    previous = list(range(len(second) + 1))
    for i, char in enumerate(first, start=1):
        current = [i]
        for j, other in enumerate(second, start=1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (char != other)))
        if min(current) > bound:
            return bound + 1
        previous = current
    return previous[-1]


def _missing_localisation(
    changed: Changed,
    reading: reference_reading.Reading,
    lookup: Lookup,
    added: set[tuple[str, str]],
    language: str,
) -> list[Finding]:
    """CK3-LOCMISS for each localisation key a new key needs that the playset lacks in `language`."""
    if not added or not _may_need(changed.path):
        return []
    kinds = {(d.key, d.line): d.kind for d in definitions.defined(changed.path, changed.now)}
    found: list[Finding] = []
    for block in reading.blocks:
        kind = kinds.get((block.key, block.line))
        needs = _needs_of(kind or "")
        if kind is None or needs is None or (kind, block.key) not in added:
            continue
        for key in needed(needs, block):
            if not lookup.localised(key, language):
                message = f"{kind} {block.key} needs the localisation key {key} in {language}"
                found.append(Finding(LOCMISS, changed.address, block.line, message))
    return found


def _needs_of(kind: str) -> references.Needs | None:
    """The needs of a kind, a folder's sub-folders included (`decisions/dlc` is `decisions`)."""
    return next((n for k, n in _NEEDS.items() if kind == k or kind.startswith(k + "/")), None)


def _may_need(path: tuple[str, ...]) -> bool:
    """Whether a file at `path` can define a key of a kind that needs localisation."""
    if path[0] == "events":
        return references.EVENT[0] in _NEEDS
    folder = "/".join(path[1:-1])
    return any(folder == kind or folder.startswith(kind + "/") for kind in _NEEDS)


def needed(needs: references.Needs, block: reference_reading.Block) -> list[str]:
    """The localisation keys the definition `block` of the needs' kind names or implies."""
    top = {path[0]: value for path, value, _ in block.fields if len(path) == 1}
    held = {(".".join(path), value) for path, value, _ in block.fields}
    if any(condition in held for condition in needs.unless) or (
        needs.skip_prefix and block.key.startswith(needs.skip_prefix)
    ):
        return []
    keys = [pattern.format(key=block.key) for pattern, field in needs.patterns if field not in top]
    for wanted in needs.fields:
        path = tuple(wanted.split("."))
        keys += [
            str(value)
            for at, value, _ in block.fields
            if at == path and reference_reading.is_key(value) and str(value) not in keys
        ]
    return keys


def table_digest() -> str:
    """The digest of the reference table and the localisation needs: part of the locked ruleset, so a
    change to them mid-contract shows. Worked out again only for tables that are other objects (they
    are frozen: the same objects hold the same rows), not on every close."""
    tables = (references.TABLE, references.SCRIPTED_CALL, references.LOCALISATION_NEEDS, DISTANCE)
    kept = _DIGESTED.get("tables")
    if kept is None or any(a is not b for a, b in zip(kept[0], tables, strict=True)):
        kept = _DIGESTED["tables"] = (tables, hashlib.sha256(repr(tables).encode()).hexdigest())
    return kept[1]


_DIGESTED: dict[str, tuple[tuple[object, ...], str]] = {}
