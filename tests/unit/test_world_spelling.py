"""On a filesystem that ignores case, a target has one spelling, the one its folders list (SPEC §3): any other
spelling of an existing entry is Invalid and names that one; nothing hidden is named that way."""

import unicodedata

import pytest

from adapters.memory_files import MemoryFiles
from domain.vocabulary import Mode, RootCategory
from domain.world.adapter import WorldAdapter
from domain.world.playsets import ModFolder
from domain.world.view import WorldView
from ports.errors import Misspelled
from ports.files import Kind, Location
from tests.worlds import MODS, memory_roots, memory_world

HOME = RootCategory.ROOT_REPO
R = RootCategory


def resolve(world: WorldAdapter, text: str, *, must_exist: bool = True) -> tuple[str, dict[str, object]]:
    reply, ref = world.resolve(text, HOME, must_exist=must_exist)
    assert (ref is None) == reply.terminal
    return reply.code, dict(reply.data)


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("ROOT_GAME:/common/traits/00_TRAITS.txt", "ROOT_GAME:/common/traits/00_traits.txt"),
        ("ROOT_GAME:/COMMON/traits/00_traits.txt", "ROOT_GAME:/common/traits/00_traits.txt"),
        ("ROOT_GAME:/Common/Traits", "ROOT_GAME:/common/traits"),
        ("ROOT_REPO:/SRC/Server.py", "ROOT_REPO:/src/server.py"),
        ("mod:Better Traits:/COMMON/traits/ZZ.txt", "mod:Better Traits:/common/traits/zz.txt"),
        ("ROOT_STEAM:/2217000001/Descriptor.mod", "mod:Better Traits:/descriptor.mod"),
    ],
)
def test_another_spelling_of_an_existing_entry_is_invalid_and_names_the_one_on_disk(
    text: str, canonical: str
):
    code, data = resolve(memory_world(ignores_case=True), text)

    assert code == "WA-RES-I-019"
    assert data["canonical"] == canonical
    assert set(data) == {"address", "canonical"}


def test_the_spelling_on_disk_resolves():
    code, data = resolve(memory_world(ignores_case=True), "ROOT_GAME:/common/traits/00_traits.txt")

    assert code == "WA-RES-S-001"
    assert data["address"] == "ROOT_GAME:/common/traits/00_traits.txt"


def test_the_named_spelling_resolves_where_the_refused_one_did_not():
    world = memory_world(ignores_case=True)
    _, refused = resolve(world, "ROOT_REPO:/Src/SERVER.py")

    code, data = resolve(world, str(refused["canonical"]))

    assert code == "WA-RES-S-001"
    assert data["address"] == refused["canonical"]


def test_a_new_file_below_a_folder_spelled_otherwise_is_invalid_and_names_the_folder_as_listed():
    code, data = resolve(memory_world(ignores_case=True), "ROOT_REPO:/SRC/new/module.py", must_exist=False)

    assert code == "WA-RES-I-019"
    assert data["canonical"] == "ROOT_REPO:/src/new/module.py"


def test_a_new_file_in_a_folder_spelled_as_listed_resolves_to_nothing_yet():
    code, data = resolve(memory_world(ignores_case=True), "ROOT_REPO:/src/new.py", must_exist=False)

    assert code == "WA-RES-S-001"
    assert data == {"address": "ROOT_REPO:/src/new.py", "kind": None}


def test_on_a_filesystem_that_tells_case_apart_another_spelling_is_simply_missing():
    code, _ = resolve(memory_world(), "ROOT_GAME:/COMMON/traits/00_traits.txt")

    assert code == "WA-RES-I-001"


def test_a_spelling_on_disk_that_no_address_can_take_is_never_named():
    roots = memory_roots()
    roots["ROOT_REPO"]["Cafe\u0301.txt"] = b"a name in decomposed form"
    world = WorldAdapter(
        MemoryFiles(roots, ignores_case=True), WorldView(Mode.CK3LENS, frozenset({R.ROOT_REPO}))
    )

    code, data = resolve(world, "ROOT_REPO:/Caf\u00e9.txt")

    assert code == "WA-RES-I-001"
    assert "canonical" not in data


def test_a_folder_listing_spells_each_entry_as_its_folder_lists_it():
    world = memory_world(ignores_case=True)
    _, ref = world.resolve("ROOT_USER_DOCS:/mod", HOME)
    assert ref is not None

    names = [entry.name for entry in world.list_dir(ref)]

    assert names == ["LocalFix"]


def test_a_playset_that_spells_a_mod_folder_otherwise_still_reaches_its_files():
    mods = (*MODS[:3], ModFolder("Local Fix", None, R.ROOT_USER_DOCS, ("mod", "LOCALFIX")))
    world = memory_world(ignores_case=True, mods=mods)

    code, data = resolve(world, "mod:Local Fix:/common")

    assert code == "WA-RES-S-001"
    assert data["address"] == "mod:Local Fix:/common"


def test_a_mod_folder_spelled_as_the_playset_has_it_is_not_a_second_way_in():
    mods = (*MODS[:3], ModFolder("Local Fix", None, R.ROOT_USER_DOCS, ("mod", "LOCALFIX")))
    world = memory_world(ignores_case=True, mods=mods)

    code, _ = resolve(world, "ROOT_USER_DOCS:/mod/LOCALFIX/common")

    assert code == "WA-RES-I-001"


def test_a_spelling_on_disk_that_the_view_does_not_show_is_never_named():
    roots = memory_roots()
    roots["ROOT_CK3RAVEN_DATA"] = {"Wip": {"notes.txt": b"an agent folder spelled otherwise on disk"}}
    world = WorldAdapter(MemoryFiles(roots, ignores_case=True), WorldView(Mode.CK3LENS, frozenset(R)))

    for text in ("ROOT_CK3RAVEN_DATA:/wip/notes.txt", "ROOT_CK3RAVEN_DATA:/wip/new.txt"):
        assert resolve(world, text, must_exist=False) == ("WA-RES-I-001", {"address": text})


class UntoldSpelling(MemoryFiles):
    """A filesystem that ignores case and cannot tell how one folder's entries are spelled."""

    def kind(self, location: Location) -> Kind:
        if location.parts[:2] == ("mod", "LOCALFIX"):
            raise Misspelled(None)
        return super().kind(location)


def test_a_mod_folder_whose_spelling_cannot_be_told_keeps_the_playsets_spelling():
    mods = (*MODS[:3], ModFolder("Local Fix", None, R.ROOT_USER_DOCS, ("mod", "LOCALFIX")))
    world = WorldAdapter(
        UntoldSpelling(memory_roots(), ignores_case=True), WorldView(Mode.CK3LENS, frozenset(R), mods)
    )

    assert world.view.mods == mods
    assert resolve(world, "mod:Local Fix:/common") == ("WA-RES-I-001", {"address": "mod:Local Fix:/common"})


def test_a_mod_folder_named_without_case_but_composed_otherwise_on_disk_still_reaches_its_files():
    composed = "\uac00"  # a Hangul syllable: no case, and a decomposed form of two letters
    roots = {"ROOT_STEAM": {unicodedata.normalize("NFD", composed): {"common": {}}}}
    mods = (ModFolder("Ga", None, R.ROOT_STEAM, (composed,)),)
    world = WorldAdapter(MemoryFiles(roots, ignores_case=True), WorldView(Mode.CK3LENS, frozenset(R), mods))

    assert resolve(world, "mod:Ga:/common") == ("WA-RES-S-001", {"address": "mod:Ga:/common", "kind": "dir"})
