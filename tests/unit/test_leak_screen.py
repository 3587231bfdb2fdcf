"""The leak screen answers what the leak gate answers: it hands the gate every text the gate would flag."""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adapters.leak_screen import LeakScreen
from adapters.reply_middleware import ReplyMiddleware
from adapters.wire import envelope_text
from domain.leaks import LeakGate
from domain.replies.builder import ReplyBuilder

PLACES = ("/srv/roots", "/data/ck3 game", '/data/say "hi"', "D:\\Games\\CK3")
GATE = LeakGate(PLACES, ("/home/op", "/tmp/x\u00e9"))
SCREEN = LeakScreen(GATE)

# pieces the gate's patterns turn on, and characters on either side of their word boundaries
PIECES = [
    *("/", "\\", ":", "~", "//", "\\\\", ".", "-", "_", "?", "$", "1", "a", "C", "c", "Z", " ", "\n", "\t"),
    *("etc", "home", "Users", "Program Files", "Windows", "tmp", "lib64", "proc"),
    *("file", "FILE", "File", "fIle", "f\u0130le", "f\u0131le", "fi"),
    *('"', "'", "\u00e9", "\u00a0", "\u2028", "\x1c", "\x85", "\udcff", "\u4e2d", "\U0001f600"),
    *("ROOT_GAME:/", "mod:A:/", *PLACES, "/home/op", "/tmp/x\u00e9"),
]
texts = st.lists(st.sampled_from(PIECES), max_size=12).map("".join) | st.text(max_size=40)


def _envelope(value: str, key: str) -> str:
    return json.dumps(
        {"code": "X", "message": value, "data": {"note": value, key: [value]}}, ensure_ascii=False
    )


@settings(max_examples=3000, deadline=None)
@given(value=texts, key=texts)
def test_the_screen_flags_a_reply_exactly_when_the_gate_does(value: str, key: str):
    text = _envelope(value, key)

    assert SCREEN.leaks_in_json(text) == GATE.leaks_in_json(text)


@pytest.mark.parametrize(
    "value",
    [
        "/etc/passwd",
        "C:\\Users\\alice",
        "\\\\server\\share",
        "//server/share",
        "~/.ssh",
        "f\u0130le:x",
        "/srv/roots/x",
        "D:\\Games\\CK3",
        '/data/say "hi"',
        "x/tmp/x\u00e9",
        "\udcff/etc/x",
        "/etc\u2028",
    ],
)
def test_a_host_path_is_a_candidate_and_the_gate_withholds_it(value: str):
    text = _envelope(value, "k")

    assert SCREEN.candidate(text)
    assert SCREEN.leaks_in_json(text)


def test_a_tree_of_canonical_addresses_is_no_candidate():
    rows = [f"ROOT_GAME:/common/folder_{n}/sub" for n in range(200)] + ["mod:A Mod:/events"]

    assert not SCREEN.candidate(_envelope("200 folders", "directories") + json.dumps(rows))


MIDDLEWARE = ReplyMiddleware(GATE, frozenset())
TRACE = "0" * 32


@settings(max_examples=1500, deadline=None)
@given(message=texts, sha=texts, paths=st.lists(texts, max_size=3))
def test_a_reply_holding_a_persons_text_is_withheld_exactly_when_its_parts_would_be(
    message: str, sha: str, paths: list[str]
):
    """The person's text is checked for the server's places only, the rest of the envelope wholly; the
    screen over the whole envelope may clear both at once."""
    reply = ReplyBuilder().success(
        "WA-WRITE-S-004", {"sha": sha, "message": message, "paths": paths, "count": len(paths)}
    )
    text = envelope_text(reply, trace_id=TRACE, duration_ms=1.5, tool="ck3_commit")
    rest = envelope_text(reply, trace_id=TRACE, duration_ms=0, tool=None, data={**reply.data, "message": ""})

    expected = GATE.leaks_in_json(rest) or GATE.leaks_in_content(message)
    assert MIDDLEWARE._leaks(reply, text, TRACE) is expected


@pytest.mark.parametrize(
    ("message", "withheld"),
    [("see /etc/passwd and ~/.ssh", False), ("built in /srv/roots/x", True), ('at D:\\Games\\CK3"', True)],
)
def test_a_persons_text_may_name_any_path_but_the_servers_places(message: str, withheld: bool):
    reply = ReplyBuilder().success(
        "WA-WRITE-S-004", {"sha": "abc", "message": message, "paths": [], "count": 0}
    )
    text = envelope_text(reply, trace_id=TRACE, duration_ms=1.5, tool="ck3_commit")

    assert MIDDLEWARE._leaks(reply, text, TRACE) is withheld
