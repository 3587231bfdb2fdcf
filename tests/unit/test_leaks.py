"""The leak gate finds host paths anywhere in an envelope, by location, and passes canonical addresses."""

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from domain.leaks import LeakGate

GATE = LeakGate(())


@pytest.mark.parametrize(
    "text",
    [
        "/etc/passwd",
        "see /home/alice/mods",
        "/Users/alice/Documents",
        "/mnt/c/games",
        "path=/srv/x",
        '"/opt/ck3"',
        "(/var/lib/x)",
        "C:\\Users\\alice",
        "c:/games/ck3",
        "D:\\",
        "\\\\server\\share\\x",
        "\\\\?\\C:\\x",
        "\\\\.\\pipe\\x",
        "//server/share",
        "~/.ssh/id_rsa",
        "file:///etc/passwd",
        "FILE:C:/x",
        "see File:notes.txt",
    ],
)
def test_a_host_path_in_a_value_is_found(text: str):
    assert GATE.findings({"data": {"note": text}}) == ["/data/note"]


@pytest.mark.parametrize(
    "text",
    [
        "ROOT_REPO:/src/server.py",
        "ROOT_GAME:/",
        "mod:Better Traits:/common/traits/x.txt",
        "mod:A:/x",
        "ROOT_REPO:/home/users/mnt",
        "common/traits/00_traits.txt",
        "and/or",
        "1/2",
        "a / b",
        "ROOT_X:/rel/path or mod:<Name>:/rel/path",
        "profile: default",
        "myfile:x",
    ],
)
def test_canonical_addresses_and_relative_text_pass(text: str):
    assert GATE.findings({"address": text, "entries": [text]}) == []


def test_a_host_path_in_a_key_is_found():
    assert GATE.findings({"data": {"/home/alice": 1}}) == ["/data/~1home~1alice"]


def test_host_paths_deep_in_lists_are_found_by_pointer():
    envelope = {
        "data": {"entries": [{"address": "ROOT_REPO:/a"}, {"address": "ROOT_REPO:/b", "n": "/tmp/x"}]}
    }

    assert GATE.findings(envelope) == ["/data/entries/1/n"]


def test_a_configured_root_that_no_pattern_matches_is_still_found():
    envelope = {"data": {"note": "backup@/data/ck3/game/x"}}

    assert GATE.findings(envelope) == []
    assert LeakGate(("/data/ck3/game",)).findings(envelope) == ["/data/note"]


@pytest.mark.parametrize("text", ["path:/Users/x", "a+/etc/shadow", "backup@/srv/x"])
def test_a_system_prefix_after_a_colon_plus_or_at_is_found(text: str):
    assert GATE.findings({"note": text}) == ["/note"]


@pytest.mark.parametrize(
    "address",
    [
        "ROOT_GAME:/gfx (old)/x.txt",
        "ROOT_REPO:/k (1)/x.txt",
        "ROOT_REPO:/\U0001f600/x.txt",
        "ROOT_REPO:/etc/x",
    ],
)
def test_an_address_with_punctuation_emoji_or_a_system_name_passes(address: str):
    envelope = {
        "data": {"address": address, "entries": [{"address": address}]},
        "message": f"wrote {address}",
    }

    assert GATE.findings(envelope["data"]) == []
    assert GATE.leaks_in_json(as_json(envelope)) is False


def test_the_home_and_temp_directories_are_found_outside_addresses():
    gate = LeakGate((), ("/home/alice", "/var/tmp"))

    assert gate.findings({"a": "x@/home/alice/y", "b": "ROOT_REPO:/home/alice/y"}) == ["/a"]


def test_non_string_values_are_ignored():
    assert GATE.findings({"n": 3, "b": True, "none": None, "f": 1.5}) == []


def as_json(value: object) -> str:
    import json

    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


@pytest.mark.parametrize(
    "text",
    [
        "/etc/passwd",
        "C:\\Users\\alice",
        "\\\\server\\share",
        "\\\\?\\C:\\x",
        "~/.ssh",
        "file:///x",
        "x@/srv/w",
    ],
)
def test_the_json_scan_finds_what_the_structural_scan_finds(text: str):
    gate = LeakGate(("/srv/w",))
    value = {"data": {"nested": [{"k": text}]}}

    assert gate.leaks_in_json(as_json(value)) is bool(gate.findings(value)) is True


@pytest.mark.parametrize("text", ["a\\b", "tab\there", 'say "hi"', "ROOT_REPO:/a/b", "mod:A:/x", "1/2"])
def test_the_json_scan_passes_escapes_that_are_not_paths(text: str):
    assert LeakGate(()).leaks_in_json(as_json({"data": text})) is False


def test_the_json_scan_finds_a_host_path_in_a_key():
    assert LeakGate(()).leaks_in_json(as_json({"data": {"/home/alice": 1}})) is True


_SEGMENT = st.text(
    alphabet=st.sampled_from([*"abcXYZ019 ()[]{}!#$%&'+,;=@^_`~-", "é", "\U0001f600", "中"]),
    min_size=1,
    max_size=12,
)


@given(root=st.sampled_from(["ROOT_GAME", "ROOT_REPO", "ROOT_STEAM"]), parts=st.lists(_SEGMENT, max_size=5))
def test_no_address_the_grammar_accepts_is_ever_a_hit(root: str, parts: list[str]):
    from domain.addresses import canonical, parsed_or_none

    parsed = parsed_or_none(f"{root}:/" + "/".join(parts), "ROOT_REPO")
    assume(parsed is not None)
    address = canonical(root, parsed.parts)

    assert GATE.findings({"address": address}) == []
    assert GATE.leaks_in_json(as_json({"data": {"address": address, "entries": [address]}})) is False


TOLD = "/home/op/venv/bin/ck3raven approve {id} --config /home/op/cfg/ck3.toml"


def test_the_approve_command_the_operator_chose_to_show_is_not_a_leak():
    gate = LeakGate(("/srv/roots",), ("/home/op",), (TOLD,))
    hint = "Ask the user to run `/home/op/venv/bin/ck3raven approve hat-1a2b --config /home/op/cfg/ck3.toml`."

    assert gate.findings({"hint": hint}) == []


@pytest.mark.parametrize(
    "text",
    [
        "/home/op/venv/bin/ck3raven approve hat-1 --config /home/op/cfg/ck3.toml.d/secrets",
        "/home/op/venv/bin/ck3raven approve ../../../../etc/shadow --config /home/op/cfg/ck3.toml",
        "/home/op/venv/bin/ck3raven approve hat-1 --config /home/op/cfg/ck3.toml /etc/passwd",
    ],
)
def test_text_around_or_inside_the_told_command_is_still_scanned(text: str):
    gate = LeakGate(("/srv/roots",), ("/home/op",), (TOLD,))

    assert gate.findings({"hint": text}) == ["/hint"]
