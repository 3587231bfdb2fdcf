"""A process keeps the last manifest of a bounded number of places, and of rows in all; what it keeps only
spares work, so each answer is the manifest's own order and text."""

import json

from domain.contracts import manifest_text
from domain.contracts.manifest_text import PLACES_KEPT, ROWS_KEPT, ordered

ROW = ("file", 1, 2, 3, 4, None, None)


def test_a_process_keeps_the_last_manifest_of_so_many_places_at_most():
    for place in range(3 * PLACES_KEPT):
        paths, texts = ordered({f"b{place}": ROW, "a": ROW}, place)

        assert paths == ["a", f"b{place}"]
        assert texts == [json.dumps({path: ROW}, separators=(",", ":"))[1:-1] for path in paths]
    assert len(manifest_text._KEPT) <= PLACES_KEPT
    assert 3 * PLACES_KEPT - 1 in manifest_text._KEPT  # the newest kept


def test_a_process_keeps_so_many_rows_at_most_in_all():
    big = {f"p{n:06}": ROW for n in range(ROWS_KEPT // 3)}
    for place in ("one", "two", "three", "four"):
        ordered(big, place)

    assert sum(len(kept[1]) for kept in manifest_text._KEPT.values()) <= ROWS_KEPT
    assert "four" in manifest_text._KEPT
