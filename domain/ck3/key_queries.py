"""Answers by key from the content index, scoped to the active playset (PlaysetLens): where a key is
defined and which definition the game uses (by the file-level merged view, then the merge rules), the
playset's conflicts, the files that mention a key, localisation keys a language lacks.

Only files that count take part: a file another source replaces at the same path, or a replace_path
hides, defines nothing the game reads (`define` lists it, marked as not read: its definitions are
shadowed). A conflict (SPEC §15) is a file conflict (two or more mods ship one path: every earlier mod's
file is lost) or a key conflict (files the game reads, at different paths, from two or more sources,
define one key); shadowed definitions are never counted. The index groups and counts them; only the rows
of the page asked for are spelled out here.
"""

from collections.abc import Callable, Iterable, Sequence
from typing import Final, TypeVar

from attrs import frozen

from domain.ck3 import content_index, merge_rules
from domain.ck3.definitions import LOCALISATION
from domain.ck3.merged import SAME_PATH, Rule, Source, hider
from domain.replies import budget
from ports.content_index import ContentIndex, Defined

PAGE: Final = 50
MAX_PAGE: Final = budget.MOST_ROWS
PAGE_BYTES: Final = 16 * 1024
_SEVERAL: Final = 2
CURSOR_DIGITS: Final = 9
T = TypeVar("T")


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
        self.shared: tuple[dict[tuple[str, str], str], dict[str, list[tuple[int, str]]]] | None = None
        """The files the game does not read, and the paths several sources ship (`_listing`)."""

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


@frozen
class Conflict:
    """One conflict of a page before it is spelled out: a file conflict (`path`: the game-relative path
    two or more mods ship, `providers`: (source index, path) of each, in load order) or a key conflict
    (`kind`, `language`, `key`)."""

    path: str = ""
    providers: tuple[tuple[int, str], ...] = ()
    kind: str = ""
    language: str = ""
    key: str = ""


def unread(playset: Playset) -> dict[tuple[str, str], str]:
    """(source folder, path) of every indexed file of the playset the game does not read, and why: a later
    source's file at the same path replaces it, or a later mod's replace_path hides its folder."""
    return _listing(playset)[0]


def _listing(playset: Playset) -> tuple[dict[tuple[str, str], str], dict[str, list[tuple[int, str]]]]:
    """What `unread` says, and the providers (source index, path) of each case-folded path two or more
    sources ship; computed once per playset (one list of the index's files, no definition read)."""
    if playset.shared is None:
        playset.shared = ({}, {})
        if len(playset.found) >= _SEVERAL:  # the game alone: nothing replaces or hides a file
            providers: dict[str, list[tuple[int, str]]] = {}
            replaced = {folder for source in playset.found for folder in source.replaces}
            for source, path in playset.index.shared_paths(playset.folders, replaced):
                providers.setdefault(path.casefold(), []).append((playset.order[source], path))
            hiders: dict[tuple[int, str], Source | None] = {}
            for folded, given in providers.items():
                _mark_unread(playset, sorted(given), hiders, playset.shared[0])
                if len(given) >= _SEVERAL:
                    playset.shared[1][folded] = sorted(given)
    return playset.shared


def _mark_unread(
    playset: Playset,
    given: list[tuple[int, str]],
    hiders: dict[tuple[int, str], Source | None],
    not_read: dict[tuple[str, str], str],
) -> None:
    """Mark the files of one path (`given`: the sources' files, in load order) that the game does not
    read: hidden by a later mod's replace_path, or replaced by the next source's file."""
    found = playset.found
    for place, (order, path) in enumerate(given):
        parent = path.rpartition("/")[0]
        if (order, parent) not in hiders:
            hiders[(order, parent)] = hider(found, order, tuple(parent.split("/")))
        by = hiders[(order, parent)]
        if by is not None:
            not_read[(found[order].folder, path)] = f"hidden by the replace_path of {by.label}"
        elif place + 1 < len(given):
            later = found[given[place + 1][0]].label
            not_read[(found[order].folder, path)] = f"replaced by {later}'s file"


def file_conflicts(playset: Playset, kind: str | None) -> list[Conflict]:
    """Every game-relative path (below the folders of `kind`, when given) that two or more mods ship in
    files no replace_path hides, by path: every earlier mod's file is lost."""
    not_read, shared = _listing(playset)
    scope = content_index.scope_of(kind)
    rows = []
    for folded, given in sorted(shared.items()):
        if not any(folded == top or folded.startswith(top + "/") for top in scope):
            continue
        mods = tuple(
            (order, path)
            for order, path in given
            if order > 0 and not not_read.get((playset.found[order].folder, path), "").startswith("hidden")
        )
        if len(mods) >= _SEVERAL:
            rows.append(Conflict(path=mods[-1][1], providers=mods))
    return rows


def conflicts(playset: Playset, kind: str | None) -> list[Conflict]:
    """The playset's conflicts (SPEC §15): file conflicts by path, then key conflicts (keys of `kind`,
    when given, that files the game reads, at different paths, from two or more sources define) by kind,
    language and key. A definition in a file the game does not read is shadowed, never counted here."""
    files = file_conflicts(playset, kind)
    keys = playset.index.key_conflicts(playset.folders, unread(playset), kind)
    return files + [Conflict(kind=k, language=language, key=key) for k, language, key in keys]


def spelled(playset: Playset, conflict: Conflict) -> dict[str, object]:
    """A conflict as a reply shows it: which kind it is, who wins, what is lost, and by which rule."""
    if conflict.providers:
        labels = [playset.found[order].label for order, _ in conflict.providers]
        return {
            "conflict": "file",
            "path": conflict.path,
            "sources": labels,
            "winner": {"source": labels[-1], "path": conflict.providers[-1][1]},
            "lost": [
                {"source": label, "path": path}
                for label, (_, path) in zip(labels[:-1], conflict.providers[:-1], strict=True)
            ],
            "rule": SAME_PATH.name,
            "confirmed": SAME_PATH.confirmed,
        }
    found = [
        d
        for d in playset.index.defined(playset.folders, conflict.key, conflict.kind)
        if d.language == conflict.language
    ]
    answers, _ = decide(playset, found)
    answer = answers[0] if answers else {"definitions": [], "winner": None, "rule": None, "confirmed": True}
    read = [row for row in _rows(answer) if "not_read" not in row]
    sources = sorted({str(row["source"]) for row in read}, key=_label_order(playset))
    return {
        "conflict": "key",
        "kind": conflict.kind,
        "key": conflict.key,
        **({"language": conflict.language} if conflict.language else {}),
        "sources": sources,
        "winner": answer["winner"],
        "lost": [
            {"source": row["source"], "path": row["path"], "line": row["line"]}
            for row in read
            if not row["wins"] and answer["winner"] is not None
        ],
        "rule": answer["rule"],
        "confirmed": answer["confirmed"],
    }


def _rows(answer: dict[str, object]) -> list[dict[str, object]]:
    rows = answer["definitions"]
    return rows if isinstance(rows, list) else []


def _label_order(playset: Playset) -> Callable[[str], int]:
    places = {source.label: order for order, source in enumerate(playset.found)}
    return lambda label: places.get(label, len(places))


def missing(playset: Playset, language: str, reference: str) -> list[str]:
    """Localisation keys the files the game reads define in `reference` but not in `language`."""
    return playset.index.missing_keys(playset.folders, unread(playset), language, reference)


def offset(cursor: str | None) -> int | None:
    """The row a `cursor` names: None when it is not one this module gave (digits, at most CURSOR_DIGITS
    of them; Python refuses to read integers of thousands of digits, so a forged one is refused here)."""
    if cursor is None:
        return 0
    if not (cursor.isascii() and cursor.isdigit()) or len(cursor) > CURSOR_DIGITS:
        return None
    return int(cursor)


def page(
    rows: Sequence[object], cursor: str | None, limit: int | None, space: int = PAGE_BYTES
) -> tuple[list[object], str | None]:
    """The rows from the offset `cursor` names (None: the start), at most `limit` (None: PAGE) and `space`
    bytes of the reply's JSON (at least one row); and the cursor of the next page."""
    return page_of(rows, cursor, limit, space, lambda row: row)


def page_of(
    items: Sequence[T],
    cursor: str | None,
    limit: int | None,
    space: int,
    spell: Callable[[T], object],
) -> tuple[list[object], str | None]:
    """`page`, where only the items of the page are spelled out as rows (`spell`)."""
    start = offset(cursor) or 0
    rows = [spell(item) for item in items[start : start + (limit or PAGE)]]
    end = start + (budget.rows_fitting(rows, space) if rows else 0)
    return rows[: end - start], str(end) if end < len(items) else None
