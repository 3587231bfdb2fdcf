"""The reference table and the checks of what the game would reject, read through the one parser and judged
against a small playset held in memory."""

from collections.abc import Iterator
from typing import ClassVar

import pytest

from domain.ck3 import reference_reading, references
from domain.compliance.reference_checks import Changed, changed_lines, check

EVENTS = ("events", "zz_events.txt")


class Playset:
    """A playset of a few keys: traits brave and craven (group `education_martial` named in a trait file),
    event chinese.0001, scripted effect add_brave_effect, and the localisation of brave."""

    defined: ClassVar[dict[str, set[str]]] = {
        "brave": {"traits"},
        "craven": {"traits"},
        "chinese.0001": {"event"},
        "add_brave_effect": {"scripted_effects"},
        "tour_decision": {"decisions/dlc"},
    }
    mentions: ClassVar[dict[str, set[str]]] = {
        "education_martial": {"common/traits/00_traits.txt"},
        "is_adult": {"events/a.txt", "events/b.txt"},
    }
    localisation: ClassVar[set[tuple[str, str]]] = {
        ("trait_brave", "english"),
        ("trait_brave_desc", "english"),
    }

    def kinds_of(self, key: str) -> set[str]:
        return self.defined.get(key, set())

    def keys_of(self, kind: str) -> Iterator[str]:
        return (key for key, kinds in self.defined.items() if kind in kinds)

    def mentioned_elsewhere(self, word: str, located: tuple[str, str]) -> bool:
        return bool(self.mentions.get(word, set()) - {located[1]})

    def named_in(self, word: str, folder: str, located: tuple[str, str]) -> bool:
        return any(p.startswith(folder + "/") and p != located[1] for p in self.mentions.get(word, ()))

    def localised(self, key: str, language: str) -> bool:
        return (key, language) in self.localisation


def findings(text: str, path: tuple[str, ...] = EVENTS, before: str | None = None, added=frozenset()) -> list:
    changed = Changed("mod:M:/" + "/".join(path), ("mod", "/".join(path)), path, text, before)
    return [(f.rule, f.line, f.message) for f in check(changed, Playset(), set(added), "english").findings]


def event(body: str) -> str:
    return f"namespace = zz\nzz.1 = {{\n\timmediate = {{\n{body}\n\t}}\n}}\n"


def test_the_table_reads_at_least_forty_fields_each_citing_its_source():
    assert references.fields_covered() >= 40
    assert all(row.source for row in references.TABLE)
    assert all(needs.source for needs in references.LOCALISATION_NEEDS)


def test_an_undefined_trait_is_named_with_its_field_line_and_the_nearest_traits():
    found = findings(event("\t\tadd_trait = bravee\n\t\thas_trait = brave_typo\n\t\tremove_trait = brave"))

    assert [(rule, line) for rule, line, _ in found] == [("CK3-REF", 4), ("CK3-REF", 5)]
    assert "add_trait = bravee" in found[0][2]
    assert "did you mean brave, craven?" in found[0][2]
    assert "did you mean brave?" in found[1][2]


def test_a_trait_group_named_in_the_trait_files_and_a_scope_word_are_no_undefined_trait():
    assert (
        findings(event("\t\thas_trait = education_martial\n\t\thas_trait = prev\n\t\thas_trait = scope:x"))
        == []
    )


def test_an_event_id_written_with_other_leading_zeros_is_the_same_event():
    assert findings(event("\t\ttrigger_event = chinese.001\n\t\ttrigger_event = { id = chinese.1 }")) == []
    assert [line for _, line, _ in findings(event("\t\ttrigger_event = { id = chinese.2 days = 3 }"))] == [4]


def test_a_name_called_with_yes_is_undefined_only_when_nothing_defines_it_and_no_other_file_mentions_it():
    found = findings(event("\t\tadd_brave_effect = yes\n\t\tis_adult = yes\n\t\tzz_nowhere = yes"))

    assert [(line, message.split()[0]) for _, line, message in found] == [(6, "zz_nowhere")]


def test_a_database_objects_own_yes_field_is_no_call():
    assert (
        findings(
            "zealous = {\n\tshown_in_ruler_designer = yes\n\tzz_field = yes\n}\n",
            ("common", "traits", "t.txt"),
        )
        == []
    )


def test_an_unknown_key_in_a_scripted_trigger_taking_parameters_is_an_advisory_not_a_finding():
    path = ("common", "scripted_triggers", "zz_triggers.txt")
    text = (
        "zz_plain_trigger = {\n\thas_trait = brave_typo\n}\n"
        "zz_macro_trigger = {\n\tis_spouse_of = $EMPLOYER$\n\thas_trait = brave_typo\n}\n"
    )
    changed = Changed("mod:M:/x", ("mod", "x"), path, text, None)

    checked = check(changed, Playset(), set(), "english")

    assert [(f.rule, f.line) for f in checked.findings] == [("CK3-REF", 2)]
    assert [(a.rule, a.line) for a in checked.advisories] == [("CK3-REF", 6)]
    assert "advisory" in checked.advisories[0].message


def test_only_the_lines_a_change_added_or_changed_are_checked():
    before = event("\t\tadd_trait = old_typo")
    now = before.replace("\t\tadd_trait = old_typo", "\t\tadd_trait = old_typo\n\t\tadd_trait = new_typo")

    assert changed_lines(before, now) == {5}
    assert [message.split()[2] for _, _, message in findings(now, before=before)] == ["new_typo:"]


@pytest.mark.parametrize(
    ("before", "now", "lines"),
    [
        ("x\nx\n", "x\nx\nx\n", {3}),
        ("a\nb\nc\n", "z\na\nb\nc\n", {1}),
        ("a\nb\nc\n", "a\nb\nc\nd", {4}),
        ("a\nb\nc\n", "a\nB\nc\n", {2}),
        ("a\nb\nc\n", "a\nb\nc\n", set()),
        ("a\nb\nc\n", "a\nc\n", set()),
        ("", "a\nb\n", {1, 2}),
    ],
)
def test_the_changed_lines_are_those_added_or_replaced_between_the_lines_both_texts_share(before, now, lines):
    assert changed_lines(before, now) == lines


def test_lines_past_where_the_file_stops_parsing_are_not_checked_and_the_note_says_so():
    text = "zz.1 = {\n\tadd_trait = typo_one\n}\n}\nzz.2 = {\n\tadd_trait = typo_two\n}\n"
    changed = Changed("mod:M:/events/x.txt", ("mod", "events/x.txt"), EVENTS, text, None)
    checked = check(changed, Playset(), set(), "english")

    assert [f.line for f in checked.findings] == [2]
    assert checked.note == "lines from 4 on do not parse: no reference there was checked"


def test_a_change_reads_only_the_top_level_blocks_holding_its_lines_each_at_its_line_in_the_file():
    text = "namespace = zz\n" + "".join(
        f'zz.{n} = {{ # a brace in a comment: {{\n\timmediate = {{ add_trait = typo_{n} }}\n}} desc = "}}"\n'
        for n in range(4)
    )

    whole = reference_reading.read(EVENTS, text)
    read = reference_reading.read(EVENTS, text, {6, 12})

    assert [(r.key, r.line) for r in whole.references] == [(f"typo_{n}", 3 + 3 * n) for n in range(4)]
    assert [(r.key, r.line) for r in read.references] == [("typo_1", 6), ("typo_3", 12)]
    assert [(b.key, b.line) for b in read.blocks] == [("zz.1", 5), ("zz.3", 11)]


def test_a_block_the_parser_cannot_read_does_not_keep_a_change_in_another_block_from_being_checked():
    deep = "zz.0 = {\n" + "a = {\n" * 300 + "}\n" * 300 + "}\n"
    before = deep + event("\t\tadd_trait = brave")
    now = deep + event("\t\tadd_trait = brave\n\t\tadd_trait = new_typo")

    assert [message.split()[2] for _, _, message in findings(now, before=before)] == ["new_typo:"]


def test_a_changed_file_whose_braces_do_not_balance_is_read_whole_and_the_note_says_where_it_stops():
    before = "zz.1 = {\n\tadd_trait = typo_one\n}\n}\nzz.2 = {\n\tadd_trait = brave\n}\n"
    now = before.replace("add_trait = brave", "add_trait = typo_two")
    changed = Changed("mod:M:/events/x.txt", ("mod", "events/x.txt"), EVENTS, now, before)
    checked = check(changed, Playset(), set(), "english")

    assert checked.findings == []
    assert checked.note == "lines from 4 on do not parse: no reference there was checked"


def test_a_new_trait_needs_its_name_and_description_unless_its_fields_name_them():
    path = ("common", "traits", "zz.txt")
    text = (
        "zealous = {\n\tcategory = personality\n}\nnamed = {\n\tname = trait_brave\n\tdesc = trait_brave\n}\n"
    )

    found = findings(text, path, added={("traits", "zealous"), ("traits", "named")})

    assert [(rule, line, message.split()[-3]) for rule, line, message in found] == [
        ("CK3-LOCMISS", 1, "trait_zealous"),
        ("CK3-LOCMISS", 1, "trait_zealous_desc"),
    ]


def test_an_override_of_a_key_the_playset_defined_needs_no_localisation():
    assert findings("brave = {\n\tprowess = 3\n}\nbrave_two = {\n}\n", ("common", "traits", "zz.txt")) == []


def test_a_new_event_needs_the_keys_its_title_desc_and_option_names_name():
    text = (
        "zz.1 = {\n\ttitle = zz.1.t\n\tdesc = zz.1.d\n"
        "\toption = { name = zz.1.a }\n\toption = { name = zz.1.b }\n}\n"
    )

    found = findings(text, added={("event", "zz.1")})

    assert [message.split()[-3] for _, _, message in found] == ["zz.1.t", "zz.1.d", "zz.1.a", "zz.1.b"]


def test_a_decision_in_a_sub_folder_needs_its_four_keys_and_a_debug_interaction_none():
    decision = findings(
        "tour = {\n}\n", ("common", "decisions", "dlc", "d.txt"), added={("decisions/dlc", "tour")}
    )
    debug = "t = {\n\tcategory = interaction_debug_main\n}\n"
    interaction = findings(
        debug, ("common", "character_interactions", "i.txt"), added={("character_interactions", "t")}
    )

    assert [m.split()[-3] for _, _, m in decision] == ["tour", "tour_desc", "tour_tooltip", "tour_confirm"]
    assert interaction == []


def test_on_action_lists_name_events_and_on_actions():
    text = (
        "on_x = {\n\tevents = { chinese.0001 zz.404 }\n"
        "\trandom_events = { 100 = zz.405 50 = 0 }\n\ton_actions = { on_nowhere }\n}\n"
    )
    path = ("common", "on_action", "zz.txt")

    keys = [m.split(" = ")[1].split(":")[0] for _, _, m in findings(text, path)]

    assert keys == ["zz.404", "zz.405", "on_nowhere"]


def test_a_value_that_names_no_key_is_not_read_as_one():
    assert not any(reference_reading.is_key(v) for v in ("yes", "scope:x", "$T$", "@v", "12", "root", None))
    assert reference_reading.is_key("zzprobe.99")
