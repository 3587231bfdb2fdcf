"""Resolver laws, checked by generation (SECURITY_CASES E.58)."""

from hypothesis import given
from hypothesis import strategies as st

from domain.vocabulary import Mode, RootCategory
from domain.world import _seal
from tests.worlds import memory_world

HOME = RootCategory.ROOT_REPO
WORLDS = {mode: memory_world(mode) for mode in (Mode.CK3LENS, Mode.CK3RAVEN_DEV)}

segments = st.sampled_from(
    [
        "common",
        "traits",
        "00_traits.txt",
        "2217000001",
        "2217000099",
        "mod",
        "LocalFix",
        "LocalFix-evil",
        "state",
        "State",
        "src",
        "link",
        "..",
        ".",
        "",
        "a b",
        "x\\y",
        "é",
        "e\u0301",
        "CON",
        "~1",
        "%2e%2e",
    ]
)
prefixes = st.sampled_from(
    [
        "ROOT_GAME:/",
        "ROOT_STEAM:/",
        "ROOT_USER_DOCS:/",
        "ROOT_REPO:/",
        "ROOT_CK3RAVEN_DATA:/",
        "mod:Better Traits:/",
        "mod:2217000001:/",
        "mod:Local Fix:/",
        "mod:Better:/",
        "",
        "/",
        "C:/",
        "ROOT_ETC:/",
    ]
)
addresses = st.builds(
    lambda prefix, parts: prefix + "/".join(parts), prefixes, st.lists(segments, max_size=5)
)
modes = st.sampled_from(list(WORLDS))


@given(addresses, modes)
def test_canonical_form_is_a_fixed_point(text: str, mode: Mode):
    world = WORLDS[mode]
    _, ref = world.resolve(text, HOME, must_exist=False)
    if ref is None:
        return

    again, ref_again = world.resolve(ref.address, HOME, must_exist=False)

    assert ref_again is not None
    assert again.data["address"] == ref.address


@given(addresses, modes)
def test_a_resolved_target_lies_inside_a_configured_root_with_no_dot_segments(text: str, mode: Mode):
    reply, ref = WORLDS[mode].resolve(text, HOME, must_exist=False)
    if ref is None:
        assert reply.terminal
        return

    location = _seal.locate(ref)
    assert RootCategory(location.root) in WORLDS[mode].view.roots
    assert not {".", "..", ""} & set(location.parts)
    assert ".." not in ref.address.split("/")


@given(st.lists(addresses, min_size=2, max_size=6), modes)
def test_no_two_canonical_addresses_name_the_same_place(texts: list[str], mode: Mode):
    world = WORLDS[mode]
    spelled: dict[object, str] = {}
    for text in texts:
        _, ref = world.resolve(text, HOME, must_exist=False)
        if ref is None:
            continue
        location = _seal.locate(ref)
        assert spelled.setdefault(location, ref.address) == ref.address


@given(addresses, modes)
def test_the_world_adapter_never_denies(text: str, mode: Mode):
    reply, _ = WORLDS[mode].resolve(text, HOME, must_exist=False)

    assert reply.reply_type.value in {"S", "I", "E"}
    assert reply.code.startswith("WA-")


FOLDING = {mode: memory_world(mode, ignores_case=True) for mode in (Mode.CK3LENS, Mode.CK3RAVEN_DEV)}
ON_DISK = [
    "ROOT_GAME:/common/traits/00_traits.txt",
    "ROOT_REPO:/src/server.py",
    "ROOT_USER_DOCS:/mod/LocalFix/common",
    "ROOT_STEAM:/2217000001/descriptor.mod",
    "ROOT_STEAM:/2217000001/common/traits/zz.txt",
    "ROOT_CK3RAVEN_DATA:/wip",
]


@st.composite
def recased(draw: st.DrawFn) -> str:
    """An address of an entry that exists, with the case of some letters of its path swapped."""
    root, path = draw(st.sampled_from(ON_DISK)).split(":/")
    flips = draw(st.lists(st.booleans(), min_size=len(path), max_size=len(path)))
    return f"{root}:/" + "".join(
        char.swapcase() if flip else char for char, flip in zip(path, flips, strict=True)
    )


@given(st.lists(recased(), min_size=2, max_size=6), modes)
def test_on_a_filesystem_that_ignores_case_no_two_addresses_reach_one_entry(texts: list[str], mode: Mode):
    world = FOLDING[mode]
    reached: dict[object, str] = {}
    for text in texts:
        _, ref = world.resolve(text, HOME)
        if ref is None:
            continue
        location = _seal.locate(ref)
        entry = (location.root, tuple(part.casefold() for part in location.parts))
        assert reached.setdefault(entry, ref.address) == ref.address


@given(recased(), modes)
def test_on_a_filesystem_that_ignores_case_a_refused_spelling_names_one_that_resolves(text: str, mode: Mode):
    world = FOLDING[mode]
    reply, _ = world.resolve(text, HOME)
    if reply.code != "WA-RES-I-019":
        return

    again, ref = world.resolve(str(reply.data["canonical"]), HOME)

    assert ref is not None
    assert again.data["address"] == reply.data["canonical"]
