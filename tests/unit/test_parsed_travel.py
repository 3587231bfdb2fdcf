"""A parsed content travels from a parsing worker to the builder packed (each column of texts one text,
each column of lines the bytes of an array), and arrives as it was."""

import pickle

from hypothesis import given, settings
from hypothesis import strategies as st

from app import parse_workers
from app.parse_workers import packed, unpacked
from domain.vocabulary import Mode
from domain.world.view import WorldView
from ports.content_index import Parsed

TEXTS = st.text(alphabet=st.sampled_from(list("ab_.:\x1f é")), max_size=6)


@st.composite
def contents(draw):
    rows = draw(st.lists(st.tuples(TEXTS, TEXTS, st.integers(0, 2**40), TEXTS), max_size=8))
    if draw(st.booleans()):  # one kind and one language throughout, as a localisation file has
        rows = [("localisation", key, line, "english") for _, key, line, _ in rows]
    words = draw(st.lists(st.tuples(TEXTS, st.integers(1, 10**6)), max_size=8))
    findings = tuple(draw(st.lists(st.tuples(TEXTS, st.integers(1, 9), TEXTS), max_size=2)))
    return Parsed.of(draw(TEXTS), draw(st.booleans()), rows, words, findings)


@settings(max_examples=300, deadline=None)
@given(contents())
def test_a_parsed_content_arrives_as_it_was_sent_whatever_its_texts_hold(parsed):
    assert unpacked(pickle.loads(pickle.dumps(packed(parsed)))) == parsed  # noqa: S301 - its own bytes


def test_a_column_of_many_texts_travels_as_one_text_and_a_repeated_one_as_the_text_and_its_count():
    keys = tuple(f"key_{n}" for n in range(1000))
    parsed = Parsed.of(
        "localisation", False, [("localisation", k, n, "french") for n, k in enumerate(keys)], (), ()
    )

    sent = packed(parsed)

    assert (sent[2], sent[3], sent[5]) == (("localisation", 1000), "\x1f".join(keys), ("french", 1000))
    assert unpacked(sent) == parsed


def test_keys_and_lines_a_worker_sent_already_travel_as_their_digest_and_arrive_whole(monkeypatch):
    keys = tuple(f"key_{n}" for n in range(50))
    rows = {lang: [("localisation", k, 2 + n, lang) for n, k in enumerate(keys)] for lang in ("fr", "de")}
    french, german = (Parsed.of("localisation", False, rows[lang], (), ()) for lang in ("fr", "de"))
    monkeypatch.setattr(parse_workers, "_sent", set())
    view = WorldView(Mode.CK3RAVEN_DEV, frozenset(), ())

    first, again = parse_workers._once(packed(french)), parse_workers._once(packed(german))
    with parse_workers.Workers(1, {}, view) as workers:  # no batch handed on: no process started
        arrived = [workers._opened(*first), workers._opened(*again)]

    assert first[0] is not None
    assert again[0] is not None
    assert (first[0][3] is not None, again[0][3], again[0][4], again[1]) == (True, None, b"", first[1])
    assert arrived == [french, german]


def test_past_the_keys_a_worker_remembers_a_new_keyset_travels_whole_every_time(monkeypatch):
    monkeypatch.setattr(parse_workers, "_sent", set())
    monkeypatch.setattr(parse_workers, "_remembered", 0)
    monkeypatch.setattr(parse_workers, "REMEMBERED", 60)

    def content(name: str) -> parse_workers.Packed:
        rows = [("localisation", f"{name}_{n}", 2 + n, "french") for n in range(50)]
        return packed(Parsed.of("localisation", False, rows, (), ()))

    first, other, other_again, first_again = (
        parse_workers._once(content(name)) for name in ("a", "b", "b", "a")
    )

    assert first[1] != b""
    assert (other[1], other_again[1]) == (b"", b"")
    assert other_again[0] is not None
    assert other_again[0][3] is not None
    assert first_again[0] is not None
    assert (first_again[0][3], first_again[1]) == (None, first[1])
