"""The World Adapter resolves, spells canonically, and hides what a mode may not see (SPEC §3, §4)."""

import pytest
from attrs import evolve

from domain.vocabulary import Mode, ReplyType, RootCategory
from domain.world.adapter import WorldAdapter
from tests.worlds import memory_world

HOME = RootCategory.ROOT_REPO


def resolve(world: WorldAdapter, text: str | None, **kwargs: bool) -> tuple[str, dict[str, object]]:
    reply, ref = world.resolve(text, HOME, **kwargs)
    assert (ref is None) == reply.terminal
    plain = world.ref_or_none(text, HOME, **kwargs)  # the form the domain takes finds the same
    assert (plain is None) == (ref is None)
    if ref is not None:
        assert ref.address == reply.data["address"] == (plain.address if plain is not None else None)
    return reply.code, dict(reply.data)


def test_the_plain_form_finds_what_resolution_finds_and_nothing_where_it_refuses():
    world = memory_world()

    found = world.ref_or_none("ROOT_GAME:/common/traits/00_traits.txt", HOME)

    assert found is not None
    assert found.address == world.ref("ROOT_GAME:/common/traits/00_traits.txt", HOME).address
    assert world.ref_or_none("ROOT_GAME:/common/traits/none.txt", HOME) is None
    assert world.ref_or_none("ROOT_GAME:/common/traits/none.txt", HOME, must_exist=False) is not None
    assert world.ref_or_none("/etc/passwd", HOME) is None


def test_a_visible_file_resolves_to_its_canonical_address():
    code, data = resolve(memory_world(), "ROOT_GAME:/common/traits/00_traits.txt")

    assert code == "WA-RES-S-001"
    assert data == {"address": "ROOT_GAME:/common/traits/00_traits.txt", "kind": "file"}


def test_a_bare_relative_path_resolves_from_the_session_home():
    _, data = resolve(memory_world(), "src/server.py")

    assert data["address"] == "ROOT_REPO:/src/server.py"


def test_a_trailing_slash_names_the_same_folder():
    assert resolve(memory_world(), "ROOT_GAME:/common/")[1]["address"] == "ROOT_GAME:/common"


def test_a_mod_address_by_name_spells_as_the_mod_in_ck3lens():
    assert resolve(memory_world(), "mod:Better Traits:/common")[1]["address"] == "mod:Better Traits:/common"


def test_a_mod_address_by_workshop_id_spells_with_the_mod_name():
    assert resolve(memory_world(), "mod:2217000001:/common")[1]["address"] == "mod:Better Traits:/common"


def test_a_root_address_inside_a_mod_folder_spells_as_the_mod():
    assert (
        resolve(memory_world(), "ROOT_STEAM:/2217000001/common")[1]["address"] == "mod:Better Traits:/common"
    )


def test_in_ck3raven_dev_mode_mod_folders_spell_as_roots():
    world = memory_world(Mode.CK3RAVEN_DEV)

    assert resolve(world, "mod:Local Fix:/common")[1]["address"] == "ROOT_USER_DOCS:/mod/LocalFix/common"


def test_a_mod_name_that_prefixes_another_is_matched_exactly():
    assert resolve(memory_world(), "mod:Better:/readme.txt")[1]["address"] == "mod:Better:/readme.txt"


@pytest.mark.parametrize(
    "text", ["mod:Better Trait:/x", "mod:\uff22etter Traits:/common", "mod:better traits:/", "mod:22170000:/"]
)
def test_unknown_mod_references_are_refused(text: str):
    assert resolve(memory_world(), text)[0] == "WA-RES-I-010"


@pytest.mark.parametrize(
    "text",
    [
        "ROOT_ETC:/x",
        "root_repo:/x",
        "ROOT_REPO :/x",
        " ROOT_REPO:/x",
        '"ROOT_REPO:/x"',
        "ROOT_VSCODE:/settings.json",
    ],
)
def test_unknown_and_unconfigured_roots_are_refused_alike(text: str):
    code, data = resolve(memory_world(), text)

    assert code == "WA-RES-I-009"
    assert "ROOT_VSCODE" not in data["roots"]


def test_a_mod_address_is_refused_where_mod_forms_are_not_allowed():
    assert resolve(memory_world(), "mod:Better Traits:/", allow_mod=False) == (
        "WA-RES-I-011",
        {"rule": "mod-form", "expected": "ROOT_X:/rel/path"},
    )


def test_no_address_at_all_names_the_session_home():
    assert resolve(memory_world(), None) == ("WA-RES-S-001", {"address": "ROOT_REPO:/", "kind": "dir"})


def test_a_view_that_hides_no_name_hides_nothing_by_name():
    world = memory_world(Mode.CK3RAVEN_DEV)
    world.set_view(evolve(world.view, hidden=()))

    _, src = world.resolve("ROOT_REPO:/src", HOME)
    assert src is not None

    assert resolve(world, "ROOT_REPO:/src/server.py")[0] == "WA-RES-S-001"
    assert [item.name for item in world.list_dir(src)] == ["link", "server.py"]


def test_an_invisible_target_and_a_missing_one_get_the_same_reply():
    invisible = resolve(memory_world(), "ROOT_STEAM:/2217000099/secret.txt")
    missing = resolve(memory_world(), "ROOT_STEAM:/2217000001/missing.txt")

    assert invisible[0] == missing[0] == "WA-RES-I-001"
    assert invisible[1].keys() == missing[1].keys() == {"address"}


@pytest.mark.parametrize(
    "text",
    [
        "ROOT_STEAM:/2217000099",
        "ROOT_USER_DOCS:/mod/Unused",
        "ROOT_USER_DOCS:/mod/LocalFix-evil/x.txt",
        "ROOT_USER_DOCS:/pdx_settings.txt",
        "ROOT_CK3RAVEN_DATA:/state/contracts",
        "ROOT_CK3RAVEN_DATA:/State",
        "ROOT_CK3RAVEN_DATA:/STATE/contracts",
    ],
)
def test_targets_outside_the_ck3lens_world_are_not_addressable(text: str):
    assert resolve(memory_world(), text)[0] == "WA-RES-I-001"


@pytest.mark.parametrize(
    "text",
    [
        "ROOT_USER_DOCS:/",
        "ROOT_USER_DOCS:/mod",
        "ROOT_USER_DOCS:/launcher-v2.sqlite",
        "ROOT_STEAM:/",
    ],
)
def test_the_paths_to_visible_mod_folders_and_the_launcher_registry_are_visible(text: str):
    assert resolve(memory_world(), text)[0] == "WA-RES-S-001"


@pytest.mark.parametrize("mode", [Mode.CK3LENS, Mode.CK3RAVEN_DEV])
@pytest.mark.parametrize("name", ["state", "STATE2", "logs"])
def test_only_the_agent_folders_of_the_data_root_are_visible(mode: Mode, name: str):
    assert resolve(memory_world(mode), f"ROOT_CK3RAVEN_DATA:/{name}")[0] == "WA-RES-I-001"


@pytest.mark.parametrize("name", [".env", ".ENV.local", "server.pem", "id_rsa.pub", ".npmrc"])
def test_a_secret_is_invisible_in_every_root_like_a_missing_file(name: str):
    world = memory_world(Mode.CK3RAVEN_DEV)

    assert resolve(world, f"ROOT_REPO:/src/{name}")[0] == resolve(world, "ROOT_REPO:/src/missing")[0]
    assert resolve(world, f"ROOT_REPO:/src/{name}")[0] == "WA-RES-I-001"


def test_ck3raven_dev_mode_sees_mods_outside_the_playset():
    assert resolve(memory_world(Mode.CK3RAVEN_DEV), "ROOT_STEAM:/2217000099/secret.txt")[0] == "WA-RES-S-001"


def test_without_a_mode_nothing_is_visible():
    assert resolve(memory_world(None), "ROOT_GAME:/common")[0] == "WA-RES-I-001"


def test_a_symbolic_link_resolves_as_a_link_and_is_not_followed():
    assert resolve(memory_world(Mode.CK3RAVEN_DEV), "ROOT_REPO:/src/link")[1]["kind"] == "symlink"


def test_a_path_through_a_symbolic_link_is_refused():
    assert resolve(memory_world(Mode.CK3RAVEN_DEV), "ROOT_REPO:/src/link/x")[0] == "WA-RES-I-012"


def test_a_missing_target_resolves_when_existence_is_not_required():
    reply, ref = memory_world().resolve("ROOT_CK3RAVEN_DATA:/wip/new.txt", HOME, must_exist=False)

    assert reply.reply_type is ReplyType.SUCCESS
    assert ref is not None
    assert ref.kind is None


def test_listing_shows_only_visible_children_spelled_canonically():
    world = memory_world()
    _, ref = world.resolve("ROOT_STEAM:/", HOME)
    assert ref is not None

    listed = [item.address for item in world.list_dir(ref)]

    assert listed == ["mod:Better Traits:/", "mod:More Events:/", "mod:Better:/"]


def test_a_walk_never_enters_an_invisible_folder():
    world = memory_world()
    _, ref = world.resolve("ROOT_USER_DOCS:/", HOME)
    assert ref is not None

    walked = list(world.walk_dirs(ref, 5))

    assert walked == ["ROOT_USER_DOCS:/mod", "mod:Local Fix:/", "mod:Local Fix:/common"]


def every_folder(world: WorldAdapter, address: str) -> list[str]:
    _, ref = world.resolve(address, HOME)
    assert ref is not None
    return [address] + [
        sub for item in world.list_dir(ref) if item.kind == "dir" for sub in every_folder(world, item.address)
    ]


@pytest.mark.parametrize("mode", [Mode.CK3LENS, Mode.CK3RAVEN_DEV])
def test_listings_agree_with_child_by_child_resolution(mode: Mode):
    world = memory_world(mode)
    roots = ["ROOT_GAME:/", "ROOT_STEAM:/", "ROOT_USER_DOCS:/", "ROOT_REPO:/", "ROOT_CK3RAVEN_DATA:/"]

    for folder in [f for root in roots for f in every_folder(world, root)]:
        _, ref = world.resolve(folder, HOME)
        assert ref is not None
        for item in world.list_dir(ref):
            again, _ = world.resolve(item.address, HOME)
            assert again.data["address"] == item.address, (folder, item)


@pytest.mark.parametrize("mode", [Mode.CK3LENS, Mode.CK3RAVEN_DEV])
def test_walks_agree_with_listings(mode: Mode):
    world = memory_world(mode)

    for root in ["ROOT_GAME:/", "ROOT_STEAM:/", "ROOT_USER_DOCS:/", "ROOT_CK3RAVEN_DATA:/"]:
        _, ref = world.resolve(root, HOME)
        assert ref is not None
        assert list(world.walk_dirs(ref, 9)) == every_folder(world, root)[1:]
