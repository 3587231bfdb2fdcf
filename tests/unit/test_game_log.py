"""The game's logs parsed from the forms the game writes (cited in domain.ck3.game_log), streamed a chunk
at a time; the host paths they carry placed among the roots or shown as `<outside>`."""

import pytest

from domain.ck3 import game_log, log_paths, log_questions, log_summary
from domain.leaks import LeakGate
from domain.vocabulary import RootCategory

R = RootCategory
LOG = (
    b"[18:55:24][jomini_script_system.cpp:169]: Script system error!\n"
    b"  Error: has_trait trigger [ Unknown trait 'lucky_charm' ]\n"
    b"  Script location: file: events/more_events.txt line: 12 (more.1:trigger)\n"
    b"[18:55:25][E][lexer.cpp:299]: File 'common/traits/zzz_local_fix.txt' should be in utf8-bom encoding\n"
    b"[18:55:26][pdx_localize.cpp:194]: Duplicate localization key. Key 'brave' is defined in both "
    b"'localization/english/a_l_english.yml' and 'localization/english/b_l_english.yml'.\n"
    b"[18:55:27][characterhistory.cpp:921]: Failed to read culture reference infinite_dragon from database"
    b"  file: history/characters/62000_dragon.txt line: 404\n"
    b"[18:55:28][parser.cpp:932]: Error: unexpected token in"
    b' file: "common/traits/00_traits.txt" near line: 88\n'
    b"[18:55:29][W][gui.cpp:1]: Bad widget near file: gui/x.gui line: 3\n"
    b"a line that matches no form\n"
    b"[18:55:30][texturehandler.cpp:181]: Couldn't find texture file: gfx/x.dds\n"
)


def _parsed(
    data: bytes, size: int = 7, name: str = "error.log"
) -> tuple[list[game_log.Emission], game_log.LogParser]:
    parser = game_log.LogParser.for_log(name)
    found = [e for start in range(0, len(data), size) for e in parser.feed(data[start : start + size])]
    return [*found, *parser.finish()], parser


def test_every_documented_form_is_parsed_with_the_files_and_lines_it_names():
    emissions, _ = _parsed(LOG)

    named = [[(n.path, n.line, n.form) for n in e.named()] for e in emissions]

    assert named == [
        [("events/more_events.txt", 12, "file")],
        [("common/traits/zzz_local_fix.txt", None, "encoding")],
        [
            ("localization/english/a_l_english.yml", None, "defined-in-both"),
            ("localization/english/b_l_english.yml", None, "defined-in-both"),
        ],
        [("history/characters/62000_dragon.txt", 404, "file")],
        [("common/traits/00_traits.txt", 88, "near")],
        [("gui/x.gui", 3, "near")],
        [],
        [("gfx/x.dds", None, "missing-file")],
    ]


def test_a_header_gives_time_level_and_engine_source_and_its_indented_lines_continue_it():
    first, second, *_ = _parsed(LOG)[0]

    assert (first.time, first.level, first.source, first.first_line, first.last_line) == (
        "18:55:24",
        "error",
        "jomini_script_system.cpp:169",
        1,
        3,
    )
    assert first.continued[0].strip().startswith("Error: has_trait")
    assert (second.level, second.source) == ("error", "lexer.cpp:299")


def test_a_level_letter_wins_over_the_logs_own_level():
    emissions, _ = _parsed(LOG, name="game.log")

    assert [e.level for e in emissions[4:6]] == ["info", "warning"]


def test_a_line_that_matches_no_form_is_kept_as_a_raw_emission():
    emissions, _ = _parsed(LOG)

    raw = [e for e in emissions if e.raw]

    assert [(e.message, e.first_line) for e in raw] == [("a line that matches no form", 9)]


def test_chunks_cut_anywhere_give_the_same_emissions():
    whole, _ = _parsed(LOG, size=len(LOG))

    assert _parsed(LOG, size=1)[0] == whole


def test_the_root_causes_are_the_undefined_key_the_missing_file_and_the_key_defined_twice():
    emissions, _ = _parsed(LOG)

    causes = [e.cause() for e in emissions]

    assert causes[0] == ("trait", "lucky_charm")
    assert causes[2] == ("defined-twice", "brave")
    assert causes[3] == ("culture", "infinite_dragon")
    assert causes[7] == ("file", "gfx/x.dds")


def test_emissions_that_differ_only_in_names_and_numbers_share_a_template():
    one = b"[1:00:00][a.cpp:1]: Unknown trait 'x' at 12\n[1:00:01][a.cpp:1]: Unknown trait 'yy' at 400\n"
    tally = log_questions.Tally()

    for emission in _parsed(one)[0]:
        tally.add(emission)

    assert [(g.count, g.first_line, g.last_line) for g in tally.ranked()] == [(2, 1, 2)]


@pytest.mark.parametrize(
    ("data", "finding"),
    [
        (b"[1:00:00][a.cpp:1]: caf\xe9\n", "not-utf8"),
        (b"[1:00:00][a.cpp:1]: x\x00\x00y\n", "binary"),
        (b"[1:00:00][a.cpp:1]: cut off here", "truncated"),
        (b"x" * (game_log.MAX_LINE + 10) + b"\n", "cut"),
    ],
)
def test_a_log_that_is_not_clean_text_answers_what_parsed_and_says_what_it_found(data: bytes, finding: str):
    emissions, parser = _parsed(data, size=4096)

    assert len(emissions) == 1
    assert [f["finding"] for f in parser.findings.listed()] == [finding]


HOST_FORMS = [
    (
        r"C:\Users\Ada Lovelace\Documents\Paradox Interactive\Crusader Kings III\mod\LocalFix\common\t.txt",
        (R.ROOT_USER_DOCS, ("mod", "LocalFix", "common", "t.txt")),
    ),
    (
        "Z:/home/ada/.steam/steam/steamapps/workshop/content/1158310/2217000001/common/t.txt",
        (R.ROOT_STEAM, ("2217000001", "common", "t.txt")),
    ),
    (
        "/home/ada/.local/share/Paradox Interactive/Crusader Kings III/logs/error.log",
        (R.ROOT_USER_DOCS, ("logs", "error.log")),
    ),
    (
        "/mnt/c/Program Files (x86)/Steam/steamapps/common/Crusader Kings III/game/events/a.txt",
        (R.ROOT_GAME, ("events", "a.txt")),
    ),
    ("D:/Games/elsewhere/file.txt", None),
]


@pytest.mark.parametrize(("host", "place"), HOST_FORMS)
def test_each_host_path_form_is_placed_in_its_root_or_nowhere(host: str, place: object):
    assert log_paths.is_host_path(host)
    assert log_paths.placed(host) == place


@pytest.mark.parametrize(("host", "place"), HOST_FORMS)
def test_the_leak_gate_finds_each_host_path_form_and_nothing_once_it_is_replaced(host: str, place: object):
    line = f"  Script location: file: {host} line: 3 (x:y)"

    shown = log_paths.replaced(line, lambda root, parts: f"{root.value}:/{'/'.join(parts)}")

    assert LeakGate(()).findings([line]) == ["/0"]
    assert LeakGate(()).findings([shown]) == []
    assert shown.endswith(" line: 3 (x:y)")
    assert shown.startswith("  Script location: file ")
    assert (log_paths.OUTSIDE in shown) == (place is None)


def test_a_log_fed_a_chunk_at_a_time_holds_at_most_one_line_whatever_its_length():
    parser = game_log.LogParser()
    held = []

    for _ in range(40):
        list(parser.feed(b"x" * (1 << 16)))
        held.append(len(parser._carry))

    assert max(held) <= game_log.MAX_LINE
    assert parser.findings.cut > 0


@pytest.mark.parametrize(
    "data",
    [
        LOG,
        LOG * 50,
        b"  indented before any header\n" + LOG + b"\n\n   \n" + LOG,
        b"".join(
            b"[1:00:%02d][a.cpp:%d]: Script system error!\n  Error: Unknown trait 'x%d' at %d\n"
            % (n % 60, n % 3, n % 7, n)
            for n in range(3000)
        ),
        b"".join(b"[1:00:00][%s:1]: value %d\n" % (b"ab"[n % 2 :][:1], n) for n in range(500)) + LOG,
        b"\n".join(
            b"[1:00:00][a.cpp:%d]: \n\n  x %d\n[1:00:01][b.cpp:1]: y%d" % (n % 2, n, n % 3) for n in range(90)
        )
        + b"\n",
    ],
)
def test_the_summary_counted_a_chunk_at_a_time_equals_the_one_the_emissions_give(data: bytes):
    slow = log_questions.Tally()
    for emission in _parsed(data, size=1000)[0]:
        slow.add(emission)
    fast = log_questions.Tally()

    lines = log_summary.summarise((data[n : n + 1000] for n in range(0, len(data), 1000)), "error", fast)

    assert lines == data.count(b"\n")
    assert (fast.emissions, fast.levels, fast.sources) == (slow.emissions, slow.levels, slow.sources)
    assert [g.row() for g in fast.ranked()] == [g.row() for g in slow.ranked()]


@pytest.mark.parametrize(
    "data", [b"[1:00:00][a.cpp:1]: caf\xe9\n", b"[1:00:00][a.cpp:1]: cut", b"a\x00b\n", b"a\r\nb\r\n"]
)
def test_the_chunked_summary_leaves_text_that_is_not_clean_to_the_emissions(data: bytes):
    assert log_summary.summarise([data], "error", log_questions.Tally()) is None
