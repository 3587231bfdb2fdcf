"""Which definition of a key the game uses, by the merge rules: read order is by game-relative path across
the game and every mod, not by load order; the rule of each kind decides among them."""

from domain.ck3 import merge_rules as mr


def at(source: str, order: int, path: str, line: int = 1, *, replace: bool = False) -> mr.Candidate:
    return mr.Candidate(source, order, tuple(path.split("/")), line, replace)


def test_a_game_file_whose_name_sorts_after_a_mods_file_wins_over_the_mod():
    found = [
        at("vanilla", 0, "common/traits/zz_traits.txt"),
        at("Mod A", 1, "common/traits/00_traits_mod.txt"),
    ]

    best, rules = mr.winner("traits", found)

    assert (best, rules) == (found[0], (mr.LAST_READ,))


def test_the_later_source_wins_only_at_the_same_path_and_then_the_later_line():
    found = [at("Mod B", 2, "common/traits/a.txt", 3), at("Mod A", 1, "common/traits/a.txt", 9)]

    assert mr.winner("traits", found)[0] == found[0]


def test_a_replace_folder_entry_beats_every_other_localisation_entry():
    found = [
        at("vanilla", 0, "localization/english/zz_l_english.yml"),
        at("Mod A", 1, "localization/replace/english/a_l_english.yml", replace=True),
        at("Mod B", 2, "localization/english/zzz_l_english.yml"),
    ]

    best, rules = mr.winner("localisation", found)

    assert (best, [rule.confirmed for rule in rules]) == (found[1], [True])


def test_unreplaced_localisation_takes_the_last_read_and_says_the_rule_is_unconfirmed():
    found = [
        at("vanilla", 0, "localization/english/a_l_english.yml"),
        at("Mod", 1, "localization/english/b_l_english.yml"),
    ]

    best, rules = mr.winner("localisation", found)

    assert (best, [rule.confirmed for rule in rules]) == (found[1], [False])


def test_on_actions_merge_and_gui_types_keep_the_first():
    found = [at("vanilla", 0, "x/a.txt"), at("Mod", 1, "x/b.txt")]

    assert (mr.winner("on_action", found)[0], mr.winner("gui_type", found)[0]) == (None, found[0])


def test_every_rule_cites_a_source_and_an_unconfirmed_one_names_who_disagrees():
    assert all(rule.sources for rule in mr.RULES)
    assert all(any(s.startswith("disagreeing") for s in r.sources) for r in mr.RULES if not r.confirmed)
