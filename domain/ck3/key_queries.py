"""Answers by key from the content index, scoped to the active playset (PlaysetLens): where a key is
defined and which definition the game uses (by the file-level merged view, then the merge rules), keys
defined by more than one source, the files that mention a key, localisation keys a language lacks.

Only files that count take part: a file another source replaces at the same path, or a replace_path
hides, defines nothing the game reads (it is listed, marked as not read).
"""

from collections.abc import Iterable
from typing import Final

from attrs import frozen

from domain.ck3 import merge_rules
from domain.ck3.definitions import LOCALISATION
from domain.ck3.merged import SAME_PATH, Rule, Source, hider
from domain.replies import budget
from ports.content_index import ContentIndex, Defined

PAGE: Final = 50
MAX_PAGE: Final = budget.MOST_ROWS
PAGE_BYTES: Final = 16 * 1024
_SEVERAL: Final = 2


@frozen
class Located:
    """One definition with its source's place in load order and whether the game reads its file."""

    found: Defined
    order: int
    label: str
    read: bool
    why_not: str | None


class Playset:
    """The playset's sources as the index names them, and which of their files the game reads."""

    def __init__(self, index: ContentIndex, found: list[Source]) -> None:
        self.index = index
        self.found = found
        self.order = {source.folder: i for i, source in enumerate(found)}
        self.folders = [source.folder for source in found]
        self._listing: dict[tuple[int, str], set[str]] = {}

    def locate(self, defined: Defined) -> Located:
        """Where `defined` stands: its source, and whether its file counts (same path, replace_path)."""
        order = self.order[defined.source]
        parts = tuple(defined.path.split("/"))
        label = self.found[order].label
        by = hider(self.found, order, parts[:-1])
        if by is not None:
            return Located(
                defined, order, label, read=False, why_not=f"hidden by the replace_path of {by.label}"
            )
        parent, name = "/".join(parts[:-1]), parts[-1].casefold()
        for later in range(order + 1, len(self.found)):
            if name in self._names(later, parent):
                return Located(
                    defined, order, label, read=False, why_not=f"replaced by {self.found[later].label}'s file"
                )
        return Located(defined, order, label, read=True, why_not=None)

    def _names(self, order: int, parent: str) -> set[str]:
        """The case-folded names of the files directly in `parent` of one source, as indexed."""
        cached = self._listing.get((order, parent))
        if cached is None:
            below = self.index.files(self.found[order].folder, parent)
            cached = {
                path.rsplit("/", 1)[-1].casefold()
                for path in below
                if path.count("/") == parent.count("/") + 1
            }
            self._listing[(order, parent)] = cached
        return cached


def decide(playset: Playset, found: Iterable[Defined]) -> tuple[list[dict[str, object]], set[Rule]]:
    """For each kind (and language) of the definitions in `found`: every definition, the one the game
    uses, and the rules that decided it."""
    groups: dict[tuple[str, str], list[Located]] = {}
    for defined in found:
        groups.setdefault((defined.kind, defined.language), []).append(playset.locate(defined))
    answers: list[dict[str, object]] = []
    used: set[Rule] = set()
    for (kind, language), located in sorted(groups.items()):
        answer, rules = _decide_group(kind, language, located)
        answers.append(answer)
        used |= rules
    return answers, used


def _decide_group(kind: str, language: str, located: list[Located]) -> tuple[dict[str, object], set[Rule]]:
    candidates = {
        id(item): merge_rules.Candidate(
            item.label,
            item.order,
            tuple(p.casefold() for p in item.found.path.split("/")),
            item.found.line,
            item.found.replace,
        )
        for item in located
        if item.read
    }
    best, rules = merge_rules.winner(kind, list(candidates.values()))
    used = set(rules) | ({SAME_PATH} if any(not item.read for item in located) else set())
    ordered = sorted(located, key=lambda item: (item.found.path.casefold(), item.order, item.found.line))
    rows = [
        {
            "source": item.label,
            "path": item.found.path,
            "line": item.found.line,
            "wins": best is not None and candidates.get(id(item)) is best,
            **({"replace": True} if item.found.replace else {}),
            **({"not_read": item.why_not} if item.why_not else {}),
        }
        for item in ordered
    ]
    winner = next((row for row in rows if row["wins"]), None)
    answer: dict[str, object] = {
        "kind": kind,
        **({"language": language} if kind == LOCALISATION else {}),
        "definitions": rows,
        "winner": {"source": winner["source"], "path": winner["path"], "line": winner["line"]}
        if winner
        else None,
        "rule": rules[0].name if rules else None,
        "confirmed": all(rule.confirmed for rule in rules),
        "merged": merge_rules.rule_for(kind) is merge_rules.MERGED,
    }
    return answer, used


def conflicts(playset: Playset, kind: str | None) -> list[dict[str, object]]:
    """Every (kind, language, key) that more than one source defines in files the game reads, with the
    winner and the rule."""
    grouped: dict[tuple[str, str, str], list[Defined]] = {}
    for defined in playset.index.definitions(playset.folders, kind):
        grouped.setdefault((defined.kind, defined.language, defined.key), []).append(defined)
    rows: list[dict[str, object]] = []
    for (found_kind, language, key), found in sorted(grouped.items()):
        if len({d.source for d in found}) < _SEVERAL:
            continue
        answers, _ = decide(playset, found)
        answer = answers[0]
        sources = sorted({d.source for d in found}, key=playset.order.__getitem__)
        rows.append(
            {
                "kind": found_kind,
                "key": key,
                **({"language": language} if language else {}),
                "sources": [playset.found[playset.order[s]].label for s in sources],
                "winner": answer["winner"],
                "rule": answer["rule"],
                "confirmed": answer["confirmed"],
            }
        )
    return rows


def missing(playset: Playset, language: str, reference: str) -> list[str]:
    """Localisation keys the playset has in `reference` but not in `language`."""
    have: dict[str, set[str]] = {language: set(), reference: set()}
    for defined in playset.index.definitions(playset.folders, LOCALISATION):
        if defined.language in have:
            have[defined.language].add(defined.key)
    return sorted(have[reference] - have[language])


def page(
    rows: list[object], cursor: str | None, limit: int | None, space: int = PAGE_BYTES
) -> tuple[list[object], str | None]:
    """The rows from the offset `cursor` names (digits; None: the start), at most `limit` (None: PAGE)
    and `space` bytes of the reply's JSON (at least one row); and the cursor of the next page."""
    start = int(cursor) if cursor else 0
    end = start + min(limit or PAGE, budget.rows_fitting(rows[start:], space))
    return rows[start:end], str(end) if end < len(rows) else None
