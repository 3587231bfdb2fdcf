"""What the World Adapter keeps between calls (places, success replies, targets' facts, the parsed
manifest) never outlives what it was made from: the target on disk, the manifest, the session's view."""

from adapters.memory_files import SPECIAL, MemoryFiles
from domain.vocabulary import Mode, RootCategory
from domain.world.adapter import WorldAdapter
from domain.world.view import WorldView
from ports.files import Location
from tests.worlds import MODS, memory_roots

HOME = RootCategory.ROOT_REPO
MANIFEST = Location("ROOT_REPO", ("policy", "protected_files.json"))
VISIBLE = frozenset(RootCategory) - {RootCategory.ROOT_VSCODE}


def world_on(files: MemoryFiles, mode: Mode = Mode.CK3RAVEN_DEV) -> WorldAdapter:
    return WorldAdapter(files, WorldView(mode, VISIBLE, MODS))


def test_resolving_an_address_again_hands_out_the_same_success_reply():
    world = world_on(MemoryFiles(memory_roots()))

    first, _ = world.resolve("ROOT_REPO:/src/server.py", HOME)
    again, _ = world.resolve("ROOT_REPO:/src/server.py", HOME)

    assert again is first


def test_a_success_reply_names_what_stands_at_the_target_now():
    files = MemoryFiles(memory_roots())
    world = world_on(files)
    world.resolve("ROOT_REPO:/src/new.py", HOME, must_exist=False)
    files.write(Location("ROOT_REPO", ("src", "new.py")), b"x")

    reply, ref = world.resolve("ROOT_REPO:/src/new.py", HOME, must_exist=False)

    assert ref is not None
    assert reply.data["kind"] == ref.kind == "file"


def test_a_manifest_entry_protects_its_target_from_the_next_call_on():
    files = MemoryFiles(memory_roots())
    world = world_on(files)
    _, ref = world.resolve("ROOT_REPO:/src/server.py", HOME)
    assert ref is not None
    assert world.target(ref).protected is False

    files.write(MANIFEST, b'{"protected": ["ROOT_REPO:/src/server.py"]}')

    assert world.target(ref).protected is True


def test_a_manifest_entry_taken_out_stops_protecting_from_the_next_call_on():
    files = MemoryFiles(memory_roots())
    files.write(MANIFEST, b'{"protected": ["ROOT_REPO:/src/server.py"]}')
    world = world_on(files)
    _, ref = world.resolve("ROOT_REPO:/src/server.py", HOME)
    assert ref is not None
    assert world.target(ref).protected is True

    files.write(MANIFEST, b'{"protected": []}')

    assert world.target(ref).protected is False


def test_a_manifest_that_cannot_be_read_protects_the_whole_repository_at_once():
    roots = memory_roots()
    world = world_on(MemoryFiles(roots))
    _, ref = world.resolve("ROOT_REPO:/src/server.py", HOME)
    assert ref is not None
    assert world.target(ref).protected is False

    roots["ROOT_REPO"]["policy"] = {"protected_files.json": SPECIAL}

    assert world.target(ref).protected is True


def test_a_playset_switch_changes_whether_a_target_lies_in_a_local_mod():
    world = world_on(MemoryFiles(memory_roots()))
    _, ref = world.resolve("ROOT_USER_DOCS:/mod/LocalFix/common", HOME)
    assert ref is not None
    assert world.target(ref).in_local_mod is True

    world.set_view(WorldView(Mode.CK3RAVEN_DEV, VISIBLE, ()))

    assert world.target(ref).in_local_mod is False


def test_a_playset_switch_changes_what_a_mod_address_names():
    world = world_on(MemoryFiles(memory_roots()), Mode.CK3LENS)
    assert world.resolve("mod:Local Fix:/common", HOME)[0].code == "WA-RES-S-001"

    world.set_view(WorldView(Mode.CK3LENS, VISIBLE, ()))

    assert world.resolve("mod:Local Fix:/common", HOME)[0].code == "WA-RES-I-010"


def test_a_mode_switch_changes_what_is_visible():
    world = world_on(MemoryFiles(memory_roots()), Mode.CK3RAVEN_DEV)
    assert world.resolve("ROOT_STEAM:/2217000099/secret.txt", HOME)[0].code == "WA-RES-S-001"

    world.set_view(WorldView(Mode.CK3LENS, VISIBLE, MODS))

    assert world.resolve("ROOT_STEAM:/2217000099/secret.txt", HOME)[0].code == "WA-RES-I-001"
