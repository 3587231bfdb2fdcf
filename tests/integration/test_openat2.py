"""openat2 opens folders below a root in one call, and the local adapter answers with it exactly as it
answers with the segment walk: links, files on the way, missing folders and special files alike."""

import errno
import itertools
import os
import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from adapters import openat2
from adapters.local_files import LocalFiles
from domain.vocabulary import Mode, RootCategory
from domain.world.adapter import WorldAdapter
from domain.world.view import WorldView
from ports.errors import PortError
from ports.files import Location

needs_openat2 = pytest.mark.skipif(openat2.opener() is None, reason="this kernel or sandbox has no openat2")
FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
NAMES = ("dir", "file.txt", "inner", "link", "rel", "out", "dangling", "fifo", "missing", "deep.txt")


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A root with folders, files, a FIFO and links (to a folder inside, by absolute and by relative path,
    to one outside, to nowhere)."""
    root, outside = tmp_path / "root", tmp_path / "outside"
    (root / "dir" / "inner").mkdir(parents=True)
    (root / "dir" / "inner" / "deep.txt").write_bytes(b"deep")
    (root / "dir" / "file.txt").write_bytes(b"file")
    (root / "file.txt").write_bytes(b"top")
    outside.mkdir()
    (outside / "inner").mkdir()
    (outside / "file.txt").write_bytes(b"outside")
    (root / "link").symlink_to(root / "dir")
    (root / "rel").symlink_to("dir")
    (root / "dir" / "out").symlink_to(outside)
    (root / "dangling").symlink_to(root / "missing")
    os.mkfifo(root / "dir" / "fifo")
    return root


@pytest.fixture
def both(tree: Path) -> Iterator[tuple[LocalFiles, LocalFiles]]:
    fast, walk = LocalFiles({"ROOT_REPO": tree}), LocalFiles({"ROOT_REPO": tree}, use_openat2=False)
    yield fast, walk
    fast.close()
    walk.close()


def answer(call: Callable[..., object], *args: object) -> object:
    try:
        return call(*args)
    except PortError as exc:
        return type(exc).__name__


def locations() -> list[Location]:
    return [
        Location("ROOT_REPO", parts)
        for depth in range(1, 4)
        for parts in itertools.product(NAMES, repeat=depth)
    ]


@needs_openat2
def test_openat2_opens_a_folder_below_another(tree: Path):
    opener = openat2.opener()
    assert opener is not None
    top = os.open(tree, FLAGS)
    try:
        fd = opener(top, "dir/inner", FLAGS)
        assert [entry.name for entry in os.scandir(fd)] == ["deep.txt"]
        os.close(fd)
    finally:
        os.close(top)


@needs_openat2
@pytest.mark.parametrize(
    ("path", "code"),
    [
        ("link/inner", errno.ELOOP),
        ("rel/inner", errno.ELOOP),
        ("dir/out/inner", errno.ELOOP),
        ("dir/out", errno.ENOTDIR),  # a link at the end is no folder to O_DIRECTORY | O_NOFOLLOW
        ("dangling", errno.ENOTDIR),
        ("..", errno.EXDEV),
        ("dir/../..", errno.EXDEV),
    ],
)
def test_openat2_refuses_every_link_and_every_way_out(tree: Path, path: str, code: int):
    opener = openat2.opener()
    assert opener is not None
    top = os.open(tree, FLAGS)
    try:
        with pytest.raises(OSError, match=re.escape(os.strerror(code))):
            opener(top, path, FLAGS)
    finally:
        os.close(top)


@needs_openat2
def test_a_path_with_a_nul_byte_never_reaches_openat2(tree: Path):
    opener = openat2.opener()
    assert opener is not None
    top = os.open(tree, FLAGS)
    try:
        with pytest.raises(ValueError, match="NUL"):
            opener(top, "dir\0/../..", FLAGS)
    finally:
        os.close(top)


def test_the_adapter_uses_openat2_where_the_kernel_has_it(tree: Path):
    files = LocalFiles({"ROOT_REPO": tree})

    assert files.uses_openat2 is (openat2.opener() is not None)
    files.close()


def test_kind_answers_every_location_alike_with_openat2_and_the_segment_walk(both):
    fast, walk = both

    for location in locations():
        assert answer(fast.kind, location) == answer(walk.kind, location), location


def test_listings_answer_every_location_alike_with_openat2_and_the_segment_walk(both):
    fast, walk = both

    for location in locations():
        assert answer(fast.list_dir, location) == answer(walk.list_dir, location), location


def test_reads_answer_every_location_alike_with_openat2_and_the_segment_walk(both):
    fast, walk = both

    for location in locations():
        assert answer(fast.read, location, 100) == answer(walk.read, location, 100), location


def test_resolution_replies_alike_with_openat2_and_the_segment_walk(both):
    view = WorldView(Mode.CK3RAVEN_DEV, frozenset({RootCategory.ROOT_REPO}))
    fast, walk = (WorldAdapter(files, view) for files in both)

    for location in locations():
        address = "ROOT_REPO:/" + "/".join(location.parts)
        got = [world.resolve(address, RootCategory.ROOT_REPO)[0] for world in (fast, walk)]
        assert got[0].code == got[1].code, address
        assert dict(got[0].data) == dict(got[1].data), address
