"""The reference table, as data: which script fields name a key of which kind, and which localisation keys a
new key of a kind the game shows to players needs (SPEC §14, "what the game would reject").

A kind is the content index's (domain.ck3.definitions): the folder below `common/` (`traits`,
`culture/traditions`), `event` and `namespace` for `events/`, `scripted_effect`/`scripted_trigger` for those
written in `events/`. A reference names a key when the playset defines it in any of the row's kinds.

Shapes of a row:
- `value`: `field = key` (a block instead is read by its `sub` rows, or not at all);
- `sub`: `field = { sub = key }`, the row's `field` being the block and `sub` the statement inside it;
- `list`: `field = { key key … }` (or `weight = key` pairs, as `random_events`), in the folder `within`.

Sources, cited per row: ck3-tiger (github.com/amtep/tiger), its tables of effects and triggers
(`src/ck3/tables/effects.rs`, `triggers.rs`: an effect or trigger whose argument is `Item(Item::X)` or
`ScopeOrItem(_, Item::X)`), its validators of blocks (`src/ck3/effect_validation.rs`), its on_action loader
(`src/ck3/data/on_actions.rs`), and the CK3 modding wiki (ck3.paradoxwikis.com: Effects, Triggers,
Event_modding, On_actions, Trait_modding, Decisions_modding). What was left out and why:
docs/ck3-references.md.
"""

from typing import Final

from attrs import frozen

VALUE: Final = "value"
SUB: Final = "sub"
LIST: Final = "list"
TIGER_EFFECTS: Final = "ck3-tiger src/ck3/tables/effects.rs"
TIGER_TRIGGERS: Final = "ck3-tiger src/ck3/tables/triggers.rs"
TIGER_BLOCKS: Final = "ck3-tiger src/ck3/effect_validation.rs"
WIKI_EFFECTS: Final = "ck3.paradoxwikis.com/Effects"
WIKI_TRIGGERS: Final = "ck3.paradoxwikis.com/Triggers"

TRAIT: Final = ("traits",)
EVENT: Final = ("event",)
ON_ACTION: Final = ("on_action",)
MODIFIER: Final = ("modifiers",)
OPINION: Final = ("opinion_modifiers",)
DECISION: Final = ("decisions",)
INTERACTION: Final = ("character_interactions",)
SCHEME: Final = ("schemes/scheme_types",)
SECRET: Final = ("secret_types",)
ACTIVITY: Final = ("activities/activity_types",)
TRADITION: Final = ("culture/traditions",)
PERK: Final = ("lifestyle_perks",)
NICKNAME: Final = ("nicknames",)
BUILDING: Final = ("buildings",)
INNOVATION: Final = ("culture/innovations",)
DYNASTY_PERK: Final = ("dynasty_perks",)
FOCUS: Final = ("focuses",)
LIFESTYLE: Final = ("lifestyles",)
GOVERNMENT: Final = ("governments",)
COURT_POSITION: Final = ("court_positions/types",)
CASUS_BELLI: Final = ("casus_belli_types",)
SCRIPTED_EFFECT: Final = ("scripted_effects", "scripted_effect")
SCRIPTED_TRIGGER: Final = ("scripted_triggers", "scripted_trigger")


@frozen
class Row:
    """One field that names a key: how (`shape`), in which block (`sub`: the statement inside `field`),
    the kinds that may define it, the folder it is read in (`within`, game-relative; "" anywhere in script),
    and the source that says so."""

    field: str
    shape: str
    kinds: tuple[str, ...]
    source: str
    sub: str = ""
    within: str = ""


def _values(fields: str, kinds: tuple[str, ...], source: str) -> tuple[Row, ...]:
    return tuple(Row(field, VALUE, kinds, source) for field in fields.split())


TABLE: Final[tuple[Row, ...]] = (
    *_values(
        "add_trait add_trait_force_tooltip remove_trait remove_trait_force_tooltip", TRAIT, TIGER_EFFECTS
    ),
    *_values("has_trait has_inactive_trait", TRAIT, TIGER_TRIGGERS),
    Row("has_trait_rank", SUB, TRAIT, TIGER_TRIGGERS, sub="trait"),
    Row("trigger_event", VALUE, EVENT, f"{TIGER_BLOCKS} validate_trigger_event; wiki Event_modding"),
    Row("trigger_event", SUB, EVENT, f"{TIGER_BLOCKS} validate_trigger_event", sub="id"),
    Row("trigger_event", SUB, ON_ACTION, f"{TIGER_BLOCKS} validate_trigger_event", sub="on_action"),
    Row(
        "events",
        LIST,
        EVENT,
        "ck3-tiger src/ck3/data/on_actions.rs; wiki On_actions",
        within="common/on_action",
    ),
    Row("random_events", LIST, EVENT, "ck3-tiger src/ck3/data/on_actions.rs", within="common/on_action"),
    Row("first_valid", LIST, EVENT, "ck3-tiger src/ck3/data/on_actions.rs", within="common/on_action"),
    Row("on_actions", LIST, ON_ACTION, "ck3-tiger src/ck3/data/on_actions.rs", within="common/on_action"),
    Row(
        "first_valid_on_action",
        LIST,
        ON_ACTION,
        "ck3-tiger src/ck3/data/on_actions.rs",
        within="common/on_action",
    ),
    Row(
        "random_on_action", LIST, ON_ACTION, "ck3-tiger src/ck3/data/on_actions.rs", within="common/on_action"
    ),
    *(
        Row(f, SUB, OPINION, f"{TIGER_BLOCKS} validate_add_opinion", sub="modifier")
        for f in ("add_opinion", "reverse_add_opinion")
    ),
    Row("remove_opinion", SUB, OPINION, f"{TIGER_BLOCKS} validate_remove_opinion", sub="modifier"),
    Row("has_opinion_modifier", SUB, OPINION, TIGER_TRIGGERS, sub="modifier"),
    *(
        row
        for holder in ("character", "county", "province", "dynasty", "house")
        for row in (
            Row(f"add_{holder}_modifier", VALUE, MODIFIER, f"{TIGER_BLOCKS} validate_add_modifier"),
            Row(
                f"add_{holder}_modifier",
                SUB,
                MODIFIER,
                f"{TIGER_BLOCKS} validate_add_modifier",
                sub="modifier",
            ),
            Row(f"remove_{holder}_modifier", VALUE, MODIFIER, TIGER_EFFECTS),
            Row(f"has_{holder}_modifier", VALUE, MODIFIER, TIGER_TRIGGERS),
        )
    ),
    *_values("has_scheme_modifier remove_scheme_modifier", MODIFIER, f"{TIGER_TRIGGERS}; {TIGER_EFFECTS}"),
    *_values("execute_decision remove_decision_cooldown", DECISION, TIGER_EFFECTS),
    *_values("remove_interaction_cooldown", INTERACTION, TIGER_EFFECTS),
    *_values("has_pending_interaction_of_type", INTERACTION, TIGER_TRIGGERS),
    *(
        Row(f, SUB, INTERACTION, f"{TIGER_BLOCKS} validate_open_interaction_window", sub="interaction")
        for f in ("open_interaction_window", "run_interaction")
    ),
    Row("start_scheme", SUB, SCHEME, f"{TIGER_BLOCKS} validate_start_scheme", sub="type"),
    Row("scheme_type", VALUE, SCHEME, TIGER_TRIGGERS),
    Row("add_secret", SUB, SECRET, f"{TIGER_BLOCKS} validate_add_secret", sub="type"),
    Row("secret_type", VALUE, SECRET, TIGER_TRIGGERS),
    Row("has_activity_type", VALUE, ACTIVITY, TIGER_TRIGGERS),
    *_values("add_culture_tradition remove_culture_tradition", TRADITION, TIGER_EFFECTS),
    Row("has_cultural_tradition", VALUE, TRADITION, TIGER_TRIGGERS),
    *_values("add_perk remove_perk", PERK, TIGER_EFFECTS),
    Row("has_perk", VALUE, PERK, TIGER_TRIGGERS),
    Row("give_nickname", VALUE, NICKNAME, TIGER_EFFECTS),
    Row("has_nickname", VALUE, NICKNAME, TIGER_TRIGGERS),
    *_values("add_building remove_building", BUILDING, TIGER_EFFECTS),
    *_values("has_building has_building_or_higher", BUILDING, TIGER_TRIGGERS),
    Row("add_innovation", VALUE, INNOVATION, TIGER_EFFECTS),
    Row("has_innovation", VALUE, INNOVATION, TIGER_TRIGGERS),
    *_values("add_dynasty_perk remove_dynasty_perk", DYNASTY_PERK, TIGER_EFFECTS),
    Row("has_dynasty_perk", VALUE, DYNASTY_PERK, TIGER_TRIGGERS),
    Row("has_focus", VALUE, FOCUS, TIGER_TRIGGERS),
    Row("has_lifestyle", VALUE, LIFESTYLE, TIGER_TRIGGERS),
    Row("change_government", VALUE, GOVERNMENT, TIGER_EFFECTS),
    Row("has_government", VALUE, GOVERNMENT, TIGER_TRIGGERS),
    *_values("has_court_position employs_court_position", COURT_POSITION, TIGER_TRIGGERS),
    Row("set_casus_belli", VALUE, CASUS_BELLI, TIGER_EFFECTS),
)
"""Fields that name a key of a known kind."""

TRAIT_GROUPS: Final = "common/traits"
"""`has_trait` and its kin accept a trait group too: a `group` or `group_equivalence` value of a trait
(ck3-tiger src/ck3/data/traits.rs, `Traits::exists`); a word the playset's trait files mention stands for
one."""

CALL_BLOCKS: Final = frozenset(
    {
        "immediate",
        "after",
        "effect",
        "trigger",
        "limit",
        "option",
        "is_shown",
        "is_valid",
        "is_valid_showing_failures_only",
        "potential",
        "on_accept",
        "on_decline",
        "on_auto_accept",
        "on_send",
        "on_start",
        "on_complete",
        "on_invalidated",
        "on_success",
        "on_failure",
        "ai_potential",
        "can_send",
        "can_be_picked",
        "hidden_effect",
        "show_as_tooltip",
        "if",
        "else_if",
        "else",
        "trigger_if",
        "trigger_else_if",
        "trigger_else",
        "and",
        "or",
        "not",
        "nor",
        "nand",
        "alternative_limit",
        "modifier",
        "weight_multiplier",
        "ai_will_do",
        "ai_chance",
    }
)
"""The blocks that hold effects or triggers (wiki Scripting, Event_modding, Decisions_modding; ck3-tiger's
`field_effect`/`field_trigger` fields): a call by name is looked for there only, and in the list
iterators (`every_`, `random_`, `any_`, `ordered_`), never among a database object's own fields."""
CALL_ITERATORS: Final = ("every_", "random_", "any_", "ordered_")
ENGINE_NAMES: Final = frozenset(
    [
        "local_player_knows_this_secret",
        "has_outstanding_artifact_claims",
        "has_domicile_temperament_high",
        "has_domicile_temperament_low",
        "is_gamestate_tutorial_active",
        "has_disabled_building",
        "is_overriding_designated_winner",
        "is_maa_in_combat",
        "can_afford_enact_treasury_budget_costs",
        "is_ruined_building_being_reconstructed",
        "can_be_leased_out",
        "is_open_invite_activity",
        "can_be_acclaimed",
        "has_tax_collector",
        "is_combat_side_pursuing",
        "is_lake_province",
        "send_long_tutorial_finished_telemetry",
        "send_long_tutorial_started_telemetry",
        "send_short_tutorial_finished_telemetry",
        "send_short_tutorial_started_telemetry",
        "send_china_tutorial_started_telemetry",
        "send_china_tutorial_finished_telemetry",
        "stop_promoting_legend",
        "ai_attempt_to_build_building_effect",
        "set_override_designated_winner",
        "auto_assign_scheme_agents",
        "apply_ai_vassal_admin_province_obligation_liege_most_desired",
        "is_cancel_option",
    ]
)
"""The engine's own effects and triggers written `name = yes` that the game's files use in one file only,
so that no other file vouches for them (each is an entry of ck3-tiger's tables of effects or triggers, from
the game's `effects.log`/`triggers.log`); and `is_cancel_option`, a field of an event's `option` (wiki
Event_modding). Found by running the checks over the unmodified game (docs/benchmarks.md)."""

SCRIPTED_CALL: Final = Row(
    "<name> = yes",
    VALUE,
    SCRIPTED_EFFECT + SCRIPTED_TRIGGER,
    f"{WIKI_EFFECTS}; {WIKI_TRIGGERS} (scripted effects and triggers)",
)
"""A scripted effect or trigger called by name: `name = yes` inside a block. The engine's own effects and
triggers are written the same way, and no table of them is kept here: a name is taken for a call only when
no file of the playset defines it and no other file of the playset mentions it (the engine's names are used
across the game's files)."""


@frozen
class Needs:
    """The localisation keys a new key of a kind needs: each pattern (`{key}` the new key) is needed unless
    the definition sets the field named beside it (which then names its own text); `fields` are fields
    whose value, when a plain key, is a localisation key (`option.name`: the `name` of each `option`);
    `unless` skips definitions where one of the (dotted path, value) pairs holds (the game shows them to
    no player); `skip_prefix` skips keys that start with it."""

    kind: str
    patterns: tuple[tuple[str, str], ...]
    fields: tuple[str, ...]
    source: str
    unless: tuple[tuple[str, str], ...] = ()
    skip_prefix: str = ""


LOCALISATION_NEEDS: Final[tuple[Needs, ...]] = (
    Needs(
        "traits",
        (("trait_{key}", "name"), ("trait_{key}_desc", "desc")),
        (),
        "ck3-tiger src/ck3/data/traits.rs (Trait::validate); wiki Trait_modding",
    ),
    Needs(
        "event",
        (),
        ("title", "desc", "option.name"),
        "ck3-tiger src/ck3/data/events.rs; wiki Event_modding",
    ),
    Needs(
        "decisions",
        (
            ("{key}", "title"),
            ("{key}_desc", "desc"),
            ("{key}_tooltip", "selection_tooltip"),
            ("{key}_confirm", "confirm_text"),
        ),
        (),
        "ck3-tiger src/ck3/data/decisions.rs (Decision::validate); wiki Decisions_modding",
    ),
    Needs(
        "character_interactions",
        (("{key}", "name"),),
        (),
        "ck3-tiger src/ck3/data/interactions.rs (not for ai_ keys or hidden ones); the game's"
        " debug-only and AI-only interactions (`is_shown`) are shown to no player",
        unless=(
            ("hidden", "yes"),
            ("category", "interaction_debug_main"),
            ("is_shown.debug_only", "yes"),
            ("is_shown.scope:actor.is_ai", "yes"),
        ),
        skip_prefix="ai_",
    ),
)
"""Kinds the game shows to players, and the localisation they need."""


def rows_by_field() -> dict[str, tuple[Row, ...]]:
    """The table by field."""
    found: dict[str, list[Row]] = {}
    for row in TABLE:
        found.setdefault(row.field, []).append(row)
    return {field: tuple(rows) for field, rows in found.items()}


def needs_by_kind() -> dict[str, Needs]:
    return {needs.kind: needs for needs in LOCALISATION_NEEDS}


def fields_covered() -> int:
    """How many distinct fields the table reads (a sub row counts as `field.sub`)."""
    return len({row.field if row.shape != SUB else f"{row.field}.{row.sub}" for row in TABLE})
