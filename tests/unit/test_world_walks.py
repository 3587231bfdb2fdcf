"""Walks, surveys and listings show only what the view shows, less what their own filter refuses (asked
with the entry's parts and kind; a refused folder is never entered), each entry spelled canonically; a
survey alone also counts entries whose names no address can spell."""

from adapters.memory_files import MemoryFiles
from domain.vocabulary import Mode, RootCategory
from domain.world.adapter import WorldAdapter
from domain.world.view import WorldView
from domain.world.visibility import VisibilityRef
from domain.world.walks import NamedSkip
from ports.files import Kind
from tests.worlds import MODS, memory_roots

HOME = RootCategory.ROOT_REPO
VISIBLE = frozenset(RootCategory) - {RootCategory.ROOT_VSCODE}


def repo_world(mode: Mode = Mode.CK3RAVEN_DEV) -> WorldAdapter:
    """The small world with a repository holding a device name, a hidden folder and a file and a folder
    both named `build`."""
    roots = memory_roots()
    roots["ROOT_REPO"] = {
        "src": {"server.py": b"print()", "CON": b"a device name", "build": b"a file named build", "lib": {}},
        "build": {"out.txt": b"o", "deep": {"x.txt": b"x"}},
        "deploy.key": {"k.txt": b"secret"},
    }
    return WorldAdapter(MemoryFiles(roots), WorldView(mode, VISIBLE, MODS))


def ref_of(world: WorldAdapter, address: str) -> VisibilityRef:
    _, ref = world.resolve(address, HOME)
    assert ref is not None
    return ref


def no_build_folder(parts: tuple[str, ...], kind: Kind) -> bool:
    return kind == "dir" and parts[-1] == "build"


def test_a_walk_of_folders_lists_every_visible_folder_to_its_depth():
    world = repo_world()

    assert list(world.walk_dirs(ref_of(world, "ROOT_REPO:/"), 9)) == [
        "ROOT_REPO:/build",
        "ROOT_REPO:/build/deep",
        "ROOT_REPO:/src",
        "ROOT_REPO:/src/lib",
    ]
    assert list(world.walk_dirs(ref_of(world, "ROOT_REPO:/"), 1)) == ["ROOT_REPO:/build", "ROOT_REPO:/src"]


def test_a_walk_of_folders_never_enters_a_folder_its_filter_refuses():
    world = repo_world()
    asked: list[tuple[tuple[str, ...], Kind]] = []

    def skip(parts: tuple[str, ...], kind: Kind) -> bool:
        asked.append((parts, kind))
        return no_build_folder(parts, kind)

    assert list(world.walk_dirs(ref_of(world, "ROOT_REPO:/"), 9, skip)) == [
        "ROOT_REPO:/src",
        "ROOT_REPO:/src/lib",
    ]
    assert asked == [(("build",), "dir"), (("src",), "dir"), (("src", "lib"), "dir")]


def test_a_walk_of_folders_refusing_names_alone_finds_what_a_filter_asked_of_each_folder_finds():
    world = repo_world()
    world_ref = ref_of(world, "ROOT_REPO:/")
    by_name = NamedSkip(frozenset({"build", "lib"}))

    def asked(parts: tuple[str, ...], kind: Kind) -> bool:
        return parts[-1] in {"build", "lib"}

    assert list(world.walk_dirs(world_ref, 9, by_name)) == list(world.walk_dirs(world_ref, 9, asked))
    assert list(world.walk_dirs(world_ref, 9, by_name)) == ["ROOT_REPO:/src"]


def test_a_walk_of_folders_walked_again_shows_what_it_showed_and_refuses_by_name_what_it_showed():
    world = repo_world()
    world_ref = ref_of(world, "ROOT_REPO:/")
    first = list(world.walk_dirs(world_ref, 9))

    assert "ROOT_REPO:/deploy.key" not in first  # hidden: its folder's names are not all shown ones
    assert list(world.walk_dirs(world_ref, 9)) == first
    assert list(world.walk_dirs(world_ref, 9, NamedSkip(frozenset({"build", "lib"})))) == ["ROOT_REPO:/src"]


def test_a_walk_of_folders_where_mods_are_spelled_apart_honours_its_filter():
    world = repo_world(Mode.CK3LENS)
    docs = ref_of(world, "ROOT_USER_DOCS:/")

    def skip(parts: tuple[str, ...], kind: Kind) -> bool:
        return kind == "dir" and parts[-1] == "common"

    assert list(world.walk_dirs(docs, 9, skip)) == ["ROOT_USER_DOCS:/mod", "mod:Local Fix:/"]
    assert list(world.walk_dirs(docs, 9)) == [
        "ROOT_USER_DOCS:/mod",
        "mod:Local Fix:/",
        "mod:Local Fix:/common",
    ]


def test_a_walk_finds_each_visible_entry_with_its_parts_and_kind_and_no_ref_unless_asked():
    world = repo_world()

    found = [(f.address, f.parts, f.kind, f.ref) for f in world.walk(ref_of(world, "ROOT_REPO:/"), 9)]

    assert found == [
        ("ROOT_REPO:/build", ("build",), "dir", None),
        ("ROOT_REPO:/build/deep", ("build", "deep"), "dir", None),
        ("ROOT_REPO:/build/deep/x.txt", ("build", "deep", "x.txt"), "file", None),
        ("ROOT_REPO:/build/out.txt", ("build", "out.txt"), "file", None),
        ("ROOT_REPO:/src", ("src",), "dir", None),
        ("ROOT_REPO:/src/build", ("src", "build"), "file", None),
        ("ROOT_REPO:/src/lib", ("src", "lib"), "dir", None),
        ("ROOT_REPO:/src/server.py", ("src", "server.py"), "file", None),
    ]


def test_a_walk_asked_for_refs_gives_each_file_one_that_reads_it_and_no_folder_one():
    world = repo_world()

    found = list(world.walk(ref_of(world, "ROOT_REPO:/"), 9, no_build_folder, refs=True))

    assert [(f.address, f.kind) for f in found] == [
        ("ROOT_REPO:/src", "dir"),
        ("ROOT_REPO:/src/build", "file"),
        ("ROOT_REPO:/src/lib", "dir"),
        ("ROOT_REPO:/src/server.py", "file"),
    ]
    assert [f.ref for f in found if f.kind == "dir"] == [None, None]
    files = [f for f in found if f.kind == "file"]
    for file in files:
        assert file.ref is not None
        assert (file.ref.address, file.ref.kind) == (file.address, "file")
    assert [world.read_file(f.ref, 100) for f in files if f.ref] == [b"a file named build", b"print()"]


def test_a_walk_where_mods_are_spelled_apart_spells_each_entry_and_honours_its_filter():
    world = repo_world(Mode.CK3LENS)
    docs = ref_of(world, "ROOT_USER_DOCS:/")

    def skip(parts: tuple[str, ...], kind: Kind) -> bool:
        return kind == "dir" and parts[-1] == "common"

    assert [f.address for f in world.walk(docs, 9)] == [
        "ROOT_USER_DOCS:/launcher-v2.sqlite",
        "ROOT_USER_DOCS:/mod",
        "mod:Local Fix:/",
        "mod:Local Fix:/common",
    ]
    assert [f.address for f in world.walk(docs, 9, skip)] == [
        "ROOT_USER_DOCS:/launcher-v2.sqlite",
        "ROOT_USER_DOCS:/mod",
        "mod:Local Fix:/",
    ]


def test_a_survey_counts_names_no_address_can_spell_but_nothing_hidden_or_refused():
    world = repo_world()

    surveyed = {
        parts: stat.kind for parts, stat in world.survey(ref_of(world, "ROOT_REPO:/src"), no_build_folder)
    }

    assert surveyed == {
        ("src", "CON"): "file",
        ("src", "build"): "file",
        ("src", "lib"): "dir",
        ("src", "server.py"): "file",
    }
    assert {parts for parts, _ in world.survey(ref_of(world, "ROOT_REPO:/"), no_build_folder)} == {
        ("src",),
        ("src", "CON"),
        ("src", "build"),
        ("src", "lib"),
        ("src", "server.py"),
    }


def test_a_survey_where_mods_are_spelled_apart_honours_visibility_and_its_filter():
    world = repo_world(Mode.CK3LENS)

    def skip(parts: tuple[str, ...], kind: Kind) -> bool:
        return kind == "dir" and parts[-1] == "common"

    surveyed = [parts for parts, _ in world.survey(ref_of(world, "ROOT_STEAM:/"), skip)]

    assert surveyed == [
        ("2217000001",),
        ("2217000001", "descriptor.mod"),
        ("2217000002",),
        ("2217000002", "events"),
        ("2217000003",),
        ("2217000003", "readme.txt"),
    ]


def test_what_a_survey_counts_never_leaks_into_a_walk_nor_the_other_way():
    world = repo_world()
    src = ref_of(world, "ROOT_REPO:/src")

    list(world.survey(src))
    walked = [f.address for f in world.walk(src, 9)]
    surveyed = [parts for parts, _ in world.survey(src)]

    assert walked == ["ROOT_REPO:/src/build", "ROOT_REPO:/src/lib", "ROOT_REPO:/src/server.py"]
    assert ("src", "CON") in surveyed


def test_a_listing_shows_the_sizes_of_the_children_its_filter_names():
    world = repo_world()

    listed = world.list_dir(ref_of(world, "ROOT_REPO:/src"), lambda name: name.endswith(".py"))

    assert [(item.address, item.name, item.kind, item.size) for item in listed] == [
        ("ROOT_REPO:/src/server.py", "server.py", "file", 7)
    ]


def test_a_listing_where_mods_are_spelled_apart_shows_sizes_too():
    world = repo_world(Mode.CK3LENS)

    listed = world.list_dir(ref_of(world, "ROOT_USER_DOCS:/"))

    assert [(item.address, item.kind, item.size) for item in listed] == [
        ("ROOT_USER_DOCS:/launcher-v2.sqlite", "file", 6),
        ("ROOT_USER_DOCS:/mod", "dir", 0),
    ]


def test_a_folder_hidden_since_its_ref_was_minted_lists_and_walks_nothing():
    world = repo_world()
    src = ref_of(world, "ROOT_REPO:/src")

    world.set_view(WorldView(Mode.CK3RAVEN_DEV, VISIBLE, MODS, hidden=("src",)))

    assert world.list_dir(src) == []
    assert list(world.walk(src, 9)) == []
    assert list(world.walk_dirs(src, 9)) == []


def docs_world(mode: Mode) -> WorldAdapter:
    """The small world whose local mod holds a secret and a folder of its own, beside a mod folder that
    is in no playset."""
    roots = memory_roots()
    roots["ROOT_USER_DOCS"] = {
        "mod": {
            "LocalFix": {"common": {"a.txt": b"a", ".env": b"secret"}, "b.txt": b"b"},
            "Unused": {"c.txt": b"c"},
        },
        "pdx_settings.txt": b"settings",
    }
    return WorldAdapter(MemoryFiles(roots), WorldView(mode, VISIBLE, MODS))


def test_a_surveys_table_holds_what_the_survey_finds_in_each_mode():
    for mode in (Mode.CK3LENS, Mode.CK3RAVEN_DEV):
        world = docs_world(mode)
        mod = ref_of(world, "ROOT_USER_DOCS:/mod")

        table = world.survey_table(mod, no_build_folder)

        assert set(table) == {"/".join(parts) for parts, _ in world.survey(mod, no_build_folder)}
        assert "mod/LocalFix/common/a.txt" in table
        assert "mod/LocalFix/common/.env" not in table
        assert ("mod/Unused/c.txt" in table) is (mode is Mode.CK3RAVEN_DEV)
        assert table["mod/LocalFix/common"][0] == "dir"
