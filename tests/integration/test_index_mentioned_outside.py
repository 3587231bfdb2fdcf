"""The content index answers whether a word is mentioned by a file other than a given one, stopping at the
first (close's reference checks ask it of every name called with `= yes`)."""

from pathlib import Path

from adapters.sqlite_index import SqliteIndex
from ports.content_index import IndexedFile, Parsed

GAME, MOD = "ROOT_GAME:/", "ROOT_USER_DOCS:/mod/M"


def parsed(*words: str) -> Parsed:
    return Parsed.of("events", False, (), [(word, 1) for word in words], ())


def test_a_word_counts_as_mentioned_outside_a_file_only_when_another_file_of_the_sources_mentions_it(
    tmp_path: Path,
):
    index = SqliteIndex(tmp_path / "index.db")
    index.update(GAME, [IndexedFile(GAME, "events/a.txt", 1, 0, "d1")], {"d1": parsed("is_adult")}, [])
    index.update(
        MOD, [IndexedFile(MOD, "events/new.txt", 1, 0, "d2")], {"d2": parsed("is_adult", "zz_new")}, []
    )

    asked = [
        index.mentioned_outside([GAME, MOD], "is_adult", MOD, "events/new.txt"),
        index.mentioned_outside([GAME, MOD], "zz_new", MOD, "events/new.txt"),
        index.mentioned_outside([MOD], "is_adult", MOD, "events/new.txt"),
        index.mentioned_outside([GAME, MOD], "zz_new", GAME, "events/a.txt"),
    ]
    index.close()

    assert asked == [True, False, False, True]
