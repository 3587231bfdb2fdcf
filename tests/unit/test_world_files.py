"""Through its refs, the World Adapter reads, writes and deletes exactly the files they were minted for:
a batch read returns each file's own bytes in the order asked, whichever folders and roots they lie in; a
target the filesystem cannot answer for is an Error naming its address."""

import pytest

from adapters.memory_files import MemoryFiles
from domain.vocabulary import Mode, ReplyType, RootCategory
from domain.world.adapter import WorldAdapter
from domain.world.view import WorldView
from domain.world.visibility import VisibilityRef
from ports.errors import AlreadyExists, NotFound, Unavailable
from ports.files import Kind, Location

HOME = RootCategory.ROOT_REPO


def world_of(files: MemoryFiles) -> WorldAdapter:
    return WorldAdapter(files, WorldView(Mode.CK3RAVEN_DEV, frozenset(RootCategory)))


def two_roots() -> MemoryFiles:
    """Two roots holding the same folders and file names, each file with bytes of its own."""
    repo = {"common": {"a": {"x.txt": b"repo a/x"}, "b": {"x.txt": b"repo b/x"}}, "top.txt": b"top"}
    game = {"common": {"a": {"x.txt": b"a/x", "y.txt": b"a/y"}, "b": {"x.txt": b"b/x"}, "x.txt": b"x"}}
    return MemoryFiles({"ROOT_GAME": game, "ROOT_REPO": repo})


def ref_of(world: WorldAdapter, address: str, *, must_exist: bool = True) -> VisibilityRef:
    _, ref = world.resolve(address, HOME, must_exist=must_exist)
    assert ref is not None
    return ref


def test_a_batch_read_returns_each_files_own_bytes_across_folders_and_roots():
    world = world_of(two_roots())
    asked = [
        "ROOT_GAME:/common/a/x.txt",
        "ROOT_GAME:/common/a/y.txt",
        "ROOT_GAME:/common/b/x.txt",
        "ROOT_REPO:/common/b/x.txt",
        "ROOT_REPO:/common/a/x.txt",
        "ROOT_REPO:/top.txt",
        "ROOT_GAME:/common/x.txt",
        "ROOT_GAME:/common/a/x.txt",
        "ROOT_GAME:/common/x.txt",
    ]

    read = world.read_files([ref_of(world, address) for address in asked], 100)

    assert read == [b"a/x", b"a/y", b"b/x", b"repo b/x", b"repo a/x", b"top", b"x", b"a/x", b"x"]


def test_a_batch_read_gives_a_file_gone_since_its_ref_its_own_error():
    files = two_roots()
    world = world_of(files)
    refs = [ref_of(world, "ROOT_GAME:/common/a/x.txt"), ref_of(world, "ROOT_GAME:/common/a/y.txt")]
    files.delete(Location("ROOT_GAME", ("common", "a", "x.txt")))

    gone, kept = world.read_files(refs, 100)

    assert isinstance(gone, NotFound)
    assert kept == b"a/y"


def test_a_write_replaces_a_file_unless_it_must_only_create_one():
    world = world_of(two_roots())
    top = ref_of(world, "ROOT_REPO:/top.txt")

    world.write_file(top, b"replaced")
    with pytest.raises(AlreadyExists):
        world.write_file(top, b"again", exclusive=True)

    assert world.read_file(top, 100) == b"replaced"


def test_a_write_that_must_only_create_creates_a_new_file():
    world = world_of(two_roots())
    new = ref_of(world, "ROOT_REPO:/new.txt", must_exist=False)

    world.write_file(new, b"made", exclusive=True)

    assert world.read_file(new, 100) == b"made"


def test_a_deleted_file_resolves_as_missing():
    world = world_of(two_roots())

    world.delete_file(ref_of(world, "ROOT_REPO:/top.txt"))

    assert world.resolve("ROOT_REPO:/top.txt", HOME)[0].code == "WA-RES-I-001"
    assert world.resolve("ROOT_GAME:/common/a/x.txt", HOME)[0].code == "WA-RES-S-001"


class Unanswering(MemoryFiles):
    """Files whose filesystem cannot say what stands at one place."""

    def kind(self, location: Location) -> Kind:
        if location.parts == ("top.txt",):
            raise Unavailable("the disk did not answer")
        return super().kind(location)


def test_a_target_the_filesystem_cannot_answer_for_is_an_error_naming_its_address():
    world = world_of(Unanswering({"ROOT_REPO": {"top.txt": b"top"}}))

    reply, ref = world.resolve("ROOT_REPO:/top.txt", HOME)

    assert ref is None
    assert (reply.reply_type, reply.code) == (ReplyType.ERROR, "WA-IO-E-001")
    assert dict(reply.data) == {"address": "ROOT_REPO:/top.txt"}
