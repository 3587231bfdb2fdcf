"""What a change does to the playset's keys (SPEC §14, §15), judged against the real content index of a
game and two local mods on disk: adds, overrides of what an earlier source defines, removals, and the
removals that break mentions unless another file the game still reads defines the key or a removal token
declares it."""

import json
from pathlib import Path

from app.bootstrap import build_core
from app.config import Settings
from domain.compliance.key_changes import ChangedFile, KeyChanges, assess
from domain.compliance.tokens import Removal
from domain.contracts.lifecycle import OpenRequest
from domain.replies.frozen import thaw
from domain.use_cases.contract_work import Close, Open
from domain.use_cases.file_access import Delete, Write
from domain.vocabulary import Mode, RootCategory
from ports.contracts import TargetRecord

BOM = "\ufeff"
R = RootCategory
FIX_EVENT = (
    "namespace = fix\nfix.1 = {\n"
    "\ttrigger = { has_trait = local_only has_trait = shared has_trait = unique }\n}\n"
)
EVENT = "namespace = birth\nbirth.1 = {\n\ttrigger = { has_trait = brave has_trait = craven }\n}\n"


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def playset(base: Path) -> Settings:
    """The game (brave and craven; zealous; an effect named local_only; 21 event files mentioning brave
    and craven), Local Fix (its own 00_traits.txt replacing the game's; local_only and shared in
    zz_local_extra.txt; shared again; an event mentioning both and unique) and Later Fix (in a folder ending
    in X), whose 00_traits.txt (craven) the game reads over both others."""
    game, docs, data = base / "game", base / "documents", base / "data"
    write(game / "common/traits/00_traits.txt", f"{BOM}brave = {{\n}}\ncraven = {{\n}}\n")
    write(game / "common/traits/zz_faith_traits.txt", f"{BOM}zealous = {{\n}}\n")
    write(game / "common/scripted_effects/00_effects.txt", f"{BOM}local_only = {{\n}}\n")
    for n in range(21):
        write(game / f"events/birth_{n:02}.txt", BOM + EVENT)
    local = docs / "mod/LocalFix"
    write(local / "descriptor.mod", 'name="Local Fix"\nsupported_version="1.*"\n')
    write(local / "common/traits/00_traits.txt", f"{BOM}brave = {{\n}}\ncraven = {{\n}}\n")
    write(local / "common/traits/50_more.txt", f"{BOM}shared = {{\n}}\n")
    write(local / "common/traits/zz_local_extra.txt", f"{BOM}local_only = {{\n}}\nshared = {{\n}}\n")
    write(local / "events/fix_events.txt", BOM + FIX_EVENT)
    later = docs / "mod/LaterFiX"
    write(later / "descriptor.mod", 'name="Later Fix"\nsupported_version="1.*"\n')
    write(later / "common/traits/00_traits.txt", f"{BOM}craven = {{\n}}\n")
    mods = [
        {"name": "Local Fix", "folder": "ROOT_USER_DOCS:/mod/LocalFix", "enabled": True, "load_order": 1},
        {"name": "Later Fix", "folder": "ROOT_USER_DOCS:/mod/LaterFiX", "enabled": True, "load_order": 2},
    ]
    write(data / "playsets" / "fix.json", json.dumps({"name": "Fix", "mods": mods}))
    return served(base)


def served(base: Path) -> Settings:
    """The settings serving the playset at `base`, in ck3lens."""
    roots = {
        R.ROOT_GAME: base / "game",
        R.ROOT_USER_DOCS: base / "documents",
        R.ROOT_CK3RAVEN_DATA: base / "data",
    }
    return Settings("t", roots, R.ROOT_GAME, Mode.CK3LENS, "Fix", state_dir=base / "state")


def changed(base: Path, path: str, now: str, before: str | None) -> ChangedFile:
    """Local Fix's file at `path`, written with `now` (as the work left it), known as `before` at open."""
    write(base / "documents/mod/LocalFix" / path, now)
    return ChangedFile(
        f"mod:Local Fix:/{path}",
        f"ROOT_USER_DOCS:/mod/LocalFix/{path}",
        ("mod", "LocalFix", *path.split("/")),
        now,
        before,
    )


def judged(base: Path, files: list[ChangedFile], removals: list[Removal] = ()) -> KeyChanges:  # type: ignore[assignment]
    core = build_core(served(base))
    assert core.services.index is not None
    return assess(core.start_session("s").world, core.services.index, files, list(removals))


def keys(rows: list[dict[str, object]]) -> list[tuple[object, object]]:
    return [(row["key"], row["kind"]) for row in rows]


def test_a_new_file_removes_what_the_earlier_file_at_its_path_defined_blocked_where_no_read_file_keeps_it(
    tmp_path: Path,
):
    playset(tmp_path)
    traits = changed(tmp_path, "common/traits/00_traits.txt", f"{BOM}bold = {{\n}}\n", None)

    found = judged(tmp_path, [traits])

    assert keys(found.adds) == [("bold", "traits")]
    assert keys(found.removes) == [("brave", "traits"), ("craven", "traits")]  # not zealous: another path
    (blocked,) = found.blocked  # craven: Later Fix's file at the same path, which the game reads, keeps it
    assert (blocked["key"], blocked["address"], blocked["count"]) == ("brave", traits.address, 21)
    assert len(blocked["mentions"]) == 20  # type: ignore[arg-type]
    assert blocked["mentions"][0] == {"source": "vanilla", "path": "events/birth_00.txt", "line": 3}  # type: ignore[index]


def test_a_key_removed_but_defined_in_another_file_of_the_same_mod_breaks_nothing_and_the_next_is_judged(
    tmp_path: Path,
):
    playset(tmp_path)
    before = f"{BOM}local_only = {{\n}}\nshared = {{\n}}\nunique = {{\n}}\n"
    extra = changed(tmp_path, "common/traits/zz_local_extra.txt", f"{BOM}local_only = {{\n}}\n", before)

    found = judged(tmp_path, [extra])

    assert keys(found.removes) == [("shared", "traits"), ("unique", "traits")]
    assert [row["key"] for row in found.blocked] == ["unique"]  # shared: 50_more.txt keeps it


def test_a_removed_key_mentioned_elsewhere_is_blocked_unless_a_removal_token_declares_it(tmp_path: Path):
    playset(tmp_path)
    before = f"{BOM}local_only = {{\n}}\nkeeps = {{\n\topposites = {{ local_only }}\n}}\n"
    now = f"{BOM}keeps = {{\n\topposites = {{ local_only }}\n}}\n"  # its own mention breaks nothing
    extra = changed(tmp_path, "common/traits/zz_local_extra.txt", now, before)
    token = Removal("local_only", "traits", extra.located)

    blocked = judged(tmp_path, [extra]).blocked
    declared = judged(tmp_path, [extra], [token])

    assert blocked == [
        {
            "key": "local_only",
            "kind": "traits",
            "address": extra.address,
            "mentions": [{"source": "Local Fix", "path": "events/fix_events.txt", "line": 3}],
            "count": 1,
        }
    ]
    assert (keys(declared.removes), declared.blocked) == ([("local_only", "traits")], [])


def test_a_key_an_earlier_source_defines_of_the_same_kind_is_an_override_and_of_another_kind_an_add(
    tmp_path: Path,
):
    playset(tmp_path)
    traits = changed(tmp_path, "common/traits/zz_new.txt", f"{BOM}zealous = {{\n}}\n", None)
    effects = changed(tmp_path, "common/scripted_effects/x.txt", f"{BOM}brave = {{\n}}\n", None)
    events = changed(tmp_path, "events/new_events.txt", f"{BOM}namespace = fixtwo\n", None)

    found = judged(tmp_path, [traits, effects, events])

    assert found.overrides == [
        {"key": "zealous", "kind": "traits", "address": traits.address, "symbol": "zealous"}
    ]
    assert [(row["symbol"], row["address"]) for row in found.adds] == [
        ("brave", effects.address),
        ("namespace:fixtwo", events.address),
    ]
    assert found.overriding() == {("zealous", traits.address)}
    assert found.evidence() == {"adds": found.adds, "overrides": found.overrides, "removes": []}


def test_a_file_of_no_kind_the_index_reads_or_outside_every_source_changes_no_key(tmp_path: Path):
    playset(tmp_path)
    notes = changed(tmp_path, "common/traits/notes.md", "brave = {\n}\n", "craven = {\n}\n")
    outside = ChangedFile("ROOT_USER_DOCS:/x.txt", "ROOT_USER_DOCS:/x.txt", ("x.txt",), "", "a = {\n}\n")

    found = judged(tmp_path, [notes, outside])

    assert (found.adds, found.overrides, found.removes, found.blocked) == ([], [], [], [])


def test_deleting_a_file_removes_every_key_it_defined_and_close_names_the_mentions_it_breaks(tmp_path: Path):
    core = build_core(playset(tmp_path))
    session = core.start_session("s")
    extra = "mod:Local Fix:/common/traits/zz_local_extra.txt"
    declared = OpenRequest("ROOT_USER_DOCS", "i", ("DELETE",), (TargetRecord(extra, "delete"),), "w", "t", 60)
    assert core.answer(session, Open(declared)).code == "CT-GATE-S-001"
    assert core.answer(session, Delete(extra)).code == "WA-WRITE-S-002"

    refused = core.answer(session, Close())

    assert refused.code == "CT-GATE-I-012"
    assert [(row["key"], row["address"], row["mentions"]) for row in thaw(refused.data["removed"])] == [
        ("local_only", extra, [{"source": "Local Fix", "path": "events/fix_events.txt", "line": 3}])
    ]


def test_a_new_file_replaces_the_files_at_its_path_of_every_earlier_source(tmp_path: Path):
    playset(tmp_path)
    write(tmp_path / "documents/mod/LocalFix/common/traits/00_traits.txt", f"{BOM}fixed = {{\n}}\n")
    later = ChangedFile(
        "mod:Later Fix:/common/traits/00_traits.txt",
        "ROOT_USER_DOCS:/mod/LaterFiX/common/traits/00_traits.txt",
        ("mod", "LaterFiX", "common", "traits", "00_traits.txt"),
        f"{BOM}craven = {{\n}}\n",
        None,
    )

    found = judged(tmp_path, [later])

    assert keys(found.removes) == [("brave", "traits"), ("fixed", "traits")]


def test_close_judges_every_changed_ck3_file_modified_or_deleted_together(tmp_path: Path):
    core = build_core(playset(tmp_path))
    session = core.start_session("s")
    more, extra = (
        "mod:Local Fix:/common/traits/50_more.txt",
        "mod:Local Fix:/common/traits/zz_local_extra.txt",
    )
    targets = (TargetRecord(more, "modify"), TargetRecord(extra, "delete"))
    declared = OpenRequest("ROOT_USER_DOCS", "i", ("WRITE", "DELETE"), targets, "w", "t", 60)
    assert core.answer(session, Open(declared)).code == "CT-GATE-S-001"
    assert core.answer(session, Write(more, f"{BOM}# emptied\n")).code.startswith("WA-WRITE-S")
    assert core.answer(session, Delete(extra)).code == "WA-WRITE-S-002"

    refused = core.answer(session, Close())

    assert refused.code == "CT-GATE-I-012"
    assert [(row["key"], row["address"]) for row in thaw(refused.data["removed"])] == [
        ("shared", more),
        ("local_only", extra),
        ("shared", extra),
    ]


def test_close_asks_no_nst_for_a_key_the_mod_overrides(tmp_path: Path):
    core = build_core(playset(tmp_path))
    session = core.start_session("s")
    new = "mod:Local Fix:/common/traits/zz_new.txt"
    declared = OpenRequest("ROOT_USER_DOCS", "i", ("WRITE",), (TargetRecord(new, "add"),), "w", "t", 60)
    assert core.answer(session, Open(declared)).code == "CT-GATE-S-001"
    assert core.answer(session, Write(new, f"{BOM}zealous = {{\n}}\n")).code.startswith("WA-WRITE-S")

    closed = core.answer(session, Close())

    assert closed.code == "CT-GATE-S-002", closed.code


def test_with_more_files_missing_from_the_index_than_its_budget_nothing_is_decided_and_the_state_says_so(
    tmp_path: Path,
):
    playset(tmp_path)
    traits = changed(tmp_path, "common/traits/00_traits.txt", f"{BOM}bold = {{\n}}\n", None)
    core = build_core(served(tmp_path))
    assert core.services.index is not None
    world = core.start_session("s").world

    partial = assess(world, core.services.index, [traits], [], budget=2)
    complete = assess(world, core.services.index, [traits], [])

    assert (partial.decided, partial.index["state"], partial.blocked) == (False, "incomplete", [])
    assert partial.index["pending"] > 0
    assert (complete.decided, complete.index["state"], complete.index["pending"]) == (True, "complete", 0)
    assert [row["key"] for row in complete.blocked] == ["brave"]
