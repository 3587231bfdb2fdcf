"""What a view makes of places (SPEC §4): the order a whole-world search takes, which targets lie inside a
local mod, the facts enforcement gets per target, and the spelling of places the server found itself."""

from adapters.memory_files import MemoryFiles
from domain.vocabulary import Mode, RootCategory
from domain.world.adapter import WorldAdapter
from domain.world.playsets import ModFolder
from domain.world.view import WorldView
from ports.files import Location
from tests.worlds import MODS, memory_roots, memory_world

HOME = RootCategory.ROOT_REPO
R = RootCategory
MANIFEST = Location("ROOT_REPO", ("policy", "protected_files.json"))


def test_a_ck3lens_search_takes_the_playsets_mods_first_and_the_game_last():
    assert memory_world(Mode.CK3LENS).places() == [
        "mod:Better Traits:/",
        "mod:More Events:/",
        "mod:Better:/",
        "mod:Local Fix:/",
        "ROOT_REPO:/",
        "ROOT_CK3RAVEN_DATA:/",
        "ROOT_GAME:/",
    ]


def test_a_ck3raven_dev_search_takes_every_root_whole_a_modders_own_work_first():
    assert memory_world(Mode.CK3RAVEN_DEV).places() == [
        "ROOT_USER_DOCS:/",
        "ROOT_REPO:/",
        "ROOT_CK3RAVEN_DATA:/",
        "ROOT_STEAM:/",
        "ROOT_GAME:/",
    ]


def test_a_search_takes_no_mod_nor_root_that_is_not_configured():
    files = MemoryFiles(memory_roots())
    world = WorldAdapter(files, WorldView(Mode.CK3LENS, frozenset({R.ROOT_GAME, R.ROOT_USER_DOCS}), MODS))

    assert world.places() == ["mod:Local Fix:/", "ROOT_GAME:/"]


def test_only_a_target_strictly_inside_a_local_mod_folder_lies_in_a_local_mod():
    world = memory_world(Mode.CK3RAVEN_DEV)

    def in_local_mod(address: str) -> bool:
        _, ref = world.resolve(address, HOME, must_exist=False)
        assert ref is not None
        return world.target(ref).in_local_mod

    assert in_local_mod("ROOT_USER_DOCS:/mod/LocalFix/common") is True
    assert in_local_mod("ROOT_USER_DOCS:/mod/LocalFix") is False
    assert in_local_mod("ROOT_USER_DOCS:/mod/LocalFix-evil/x.txt") is False
    assert in_local_mod("ROOT_STEAM:/2217000001/common") is False
    assert in_local_mod("ROOT_REPO:/mod/LocalFix/common") is False


def test_each_target_gets_the_facts_of_its_own_place():
    files = MemoryFiles(memory_roots())
    files.write(MANIFEST, b'{"protected": ["ROOT_REPO:/a"]}')
    world = WorldAdapter(files, WorldView(Mode.CK3RAVEN_DEV, frozenset(RootCategory), MODS))
    facts = []
    for address in ("ROOT_REPO:/a", "ROOT_REPO:/b", "ROOT_USER_DOCS:/mod/LocalFix/c"):
        _, ref = world.resolve(address, HOME, must_exist=False)
        assert ref is not None
        found = world.target(ref)
        facts.append((found.address, found.root, found.parts, found.in_local_mod, found.protected))

    assert facts == [
        ("ROOT_REPO:/a", R.ROOT_REPO, ("a",), False, True),
        ("ROOT_REPO:/b", R.ROOT_REPO, ("b",), False, False),
        ("ROOT_USER_DOCS:/mod/LocalFix/c", R.ROOT_USER_DOCS, ("mod", "LocalFix", "c"), True, False),
    ]


def test_a_place_the_server_found_itself_is_spelled_as_the_view_spells_it():
    assert memory_world(Mode.CK3LENS).address_of("ROOT_STEAM", ("2217000001", "common")) == (
        "mod:Better Traits:/common"
    )
    assert memory_world(Mode.CK3RAVEN_DEV).address_of("ROOT_GAME", ("common", "traits")) == (
        "ROOT_GAME:/common/traits"
    )


def test_a_mod_folder_inside_a_wholly_visible_root_is_walked_and_listed_as_the_mod():
    mods = (ModFolder("Game Patch", None, R.ROOT_GAME, ("common",)),)
    world = memory_world(Mode.CK3LENS, mods=mods)
    _, game = world.resolve("ROOT_GAME:/", HOME)
    assert game is not None

    walked = list(world.walk_dirs(game, 9))

    assert walked == ["mod:Game Patch:/", "mod:Game Patch:/traits", "ROOT_GAME:/events"]
    assert [found.address for found in world.walk(game, 9)][:2] == walked[:2]
    assert [item.address for item in world.list_dir(game)] == ["mod:Game Patch:/", "ROOT_GAME:/events"]
    assert world.resolve("ROOT_GAME:/common/traits", HOME)[0].data["address"] == walked[1]
