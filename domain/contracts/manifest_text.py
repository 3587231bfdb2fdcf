"""A manifest's paths in sorted order with each row's canonical JSON text (`"path":[...]`, byte for byte
what `json.dumps` makes of it), kept for the process from the last manifest of each place: a scope is
mostly as the last open left it, so the order and the text of every row that did not move are taken from
there, found by passes the interpreter makes without a step of ours per row, and only the rows that moved,
came or went are gone over. What is kept only spares work: every answer is checked against the manifest
given (its paths, and each row's equality), so a kept order that no longer fits is simply not used.
"""

import json
from bisect import bisect_left
from itertools import compress
from operator import ne
from typing import Final

Row = tuple[str, int, int, int, int, str | None, str | None]
"""A manifest row (domain.contracts.baseline.Row)."""

ROWS_KEPT: Final = 120_000
"""How many rows a process keeps in all (a documents folder's several times over)."""
PLACES_KEPT: Final = 16
"""How many places' last manifests a process keeps at most."""
_COMPACT: Final = (",", ":")

Ordered = tuple[dict[str, Row], list[str], list[str], dict[str, int]]
"""A manifest as kept: its rows, its paths sorted, each path's row text in that order, each path's place."""
_KEPT: dict[int | str | None, Ordered] = {}
"""The last manifest of each place (a server's store, say), newest last. Opens run in threads at once:
`_KEPT` is only ever changed or read whole by one step each (get, pop, set, a copy of its items)."""


def ordered(manifest: dict[str, Row], place: int | str | None = None) -> tuple[list[str], list[str]]:
    """The paths of `manifest` sorted, and each one's row text in that order; `place`: whose manifests
    these are (the last one of the same place is what is reused; a key, never an object kept alive)."""
    kept = _KEPT.pop(place, None)
    found = _from(kept, manifest) if kept is not None else None
    if found is None:
        paths = sorted(manifest)
        found = (dict(manifest), paths, [_text(path, manifest[path]) for path in paths], _places(paths))
    # the kept ones taken in one step (another thread's answer lands before or after it, never during)
    # and let go oldest first
    others = list(_KEPT.items())
    count, total = len(others), sum(len(other[1]) for _, other in others)
    for key, other in others:
        if count < PLACES_KEPT and total + len(manifest) <= ROWS_KEPT:
            break
        _KEPT.pop(key, None)
        count, total = count - 1, total - len(other[1])
    _KEPT[place] = found
    return found[1], found[2]


def _from(kept: Ordered, manifest: dict[str, Row]) -> Ordered | None:
    """`kept` brought up to `manifest`: rows that moved encoded again, paths that came or went put in or
    taken out; None when too much moved for that to pay."""
    before, paths, texts, places = kept
    keys = manifest.keys()
    moved = list(compress(keys, map(ne, map(before.get, keys), manifest.values())))  # came, or changed
    if 8 * len(moved) > len(manifest) + 8:
        return None
    came = [path for path in moved if path not in before]
    gone = [] if len(before) + len(came) == len(manifest) else list(before.keys() - keys)
    if 8 * (len(moved) + len(gone)) > len(manifest) + 8:
        return None
    if not moved and not gone:
        return (dict(manifest), paths, texts, places)
    paths, texts = list(paths), list(texts)
    for path in gone:
        at = bisect_left(paths, path)
        del paths[at], texts[at]
    for path in came:
        at = bisect_left(paths, path)
        paths.insert(at, path)
        texts.insert(at, "")
    if gone or came:
        places = _places(paths)
    for path in moved:
        texts[places[path]] = _text(path, manifest[path])
    return (dict(manifest), paths, texts, places)


def _places(paths: list[str]) -> dict[str, int]:
    return dict(zip(paths, range(len(paths)), strict=True))


def _text(path: str, row: Row) -> str:
    return json.dumps({path: row}, separators=_COMPACT)[1:-1]
