"""The local adapter survives SECURITY_CASES B and C on real trees: links, hard links, special files,
replaced roots and racing swaps. No call returns a byte or a name from outside its root."""

import os
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from adapters.local_files import LocalFiles
from ports.errors import LinkRefused, NotFound, SpecialFile, Unavailable
from ports.files import Location
from tests.races import race

OUTSIDE = b"outside-secret"


@pytest.fixture(params=[True, False], ids=["openat2", "segment-walk"])
def world(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[Path, Path, LocalFiles]]:
    """Each case runs with folders opened by openat2 (where the kernel has it) and by the segment walk."""
    root = tmp_path / "root"
    outside = tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    (outside / "secret.txt").write_bytes(OUTSIDE)
    (root / "data.txt").write_bytes(b"inside")
    (root / "dir").mkdir()
    files = LocalFiles({"ROOT_REPO": root}, use_openat2=request.param)
    yield root, outside, files
    files.close()


def at(*parts: str) -> Location:
    return Location("ROOT_REPO", parts)


def test_a_leaf_link_to_outside_is_not_read(world):
    root, outside, files = world
    (root / "link").symlink_to(outside / "secret.txt")

    with pytest.raises(LinkRefused):
        files.read(at("link"), 1000)


def test_a_dangling_leaf_link_is_reported_as_a_link(world):
    root, _, files = world
    (root / "dangling").symlink_to("/nonexistent/target")

    assert files.kind(at("dangling")) == "symlink"


def test_a_linked_ancestor_is_not_descended(world):
    root, outside, files = world
    (root / "linkdir").symlink_to(outside)

    with pytest.raises(LinkRefused):
        files.read(at("linkdir", "secret.txt"), 1000)


def test_a_linked_ancestor_deeper_down_is_not_descended(world):
    root, outside, files = world
    (root / "dir" / "linkdir").symlink_to(outside)

    with pytest.raises(LinkRefused):
        files.read(at("dir", "linkdir", "secret.txt"), 1000)


def test_a_link_loop_is_refused_at_once(world):
    root, _, files = world
    (root / "a").symlink_to("b")
    (root / "b").symlink_to("a")

    with pytest.raises(LinkRefused):
        files.list_dir(at("a"))


def test_a_long_link_chain_is_refused_at_its_first_link(world):
    root, outside, files = world
    previous = outside
    for hop in range(45):
        link = root / f"hop{hop}"
        link.symlink_to(previous)
        previous = link

    with pytest.raises(LinkRefused):
        files.list_dir(at("hop44"))


def test_a_hard_linked_file_is_not_read(world):
    root, outside, files = world
    os.link(outside / "secret.txt", root / "hardlink")

    with pytest.raises(SpecialFile):
        files.read(at("hardlink"), 1000)


def test_a_fifo_is_refused_without_blocking(world):
    root, _, files = world
    os.mkfifo(root / "fifo")

    with pytest.raises(SpecialFile):
        files.read(at("fifo"), 1000)


def test_a_socket_is_refused(world):
    root, _, files = world
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(root / "sock"))
    try:
        with pytest.raises(SpecialFile):
            files.read(at("sock"), 1000)
    finally:
        server.close()


def test_a_root_configured_through_a_link_is_pinned_to_its_target(tmp_path: Path):
    real = tmp_path / "real"
    real.mkdir()
    (real / "x.txt").write_bytes(b"x")
    (tmp_path / "alias").symlink_to(real)
    files = LocalFiles({"ROOT_REPO": tmp_path / "alias"})

    assert files.read(at("x.txt"), 10) == b"x"
    files.close()


def test_a_root_replaced_after_start_is_unavailable(world):
    root, outside, files = world
    root.rename(root.with_name("moved"))
    root.symlink_to(outside)

    with pytest.raises(Unavailable):
        files.list_dir(at())


def test_a_leaf_swapped_for_a_link_during_reads_never_yields_outside_bytes(world):
    root, outside, files = world

    def swap_once() -> None:
        (root / "tmp-link").symlink_to(outside / "secret.txt")
        (root / "tmp-link").replace(root / "data.txt")
        (root / "tmp-file").write_bytes(b"inside")
        (root / "tmp-file").replace(root / "data.txt")

    seen, _ = race(swap_once, lambda _: files.read(at("data.txt"), 1000), rounds=1000)

    assert OUTSIDE not in seen
    assert b"inside" in seen


def test_a_folder_deep_down_swapped_for_a_link_during_reads_never_yields_outside_bytes(world):
    root, outside, files = world
    (root / "dir" / "sub").mkdir()
    (root / "dir" / "sub" / "secret.txt").write_bytes(b"inside")

    def swap_once() -> None:
        (root / "dir" / "sub").rename(root / "dir" / "sub-away")
        (root / "dir" / "sub").symlink_to(outside)
        (root / "dir" / "sub").unlink()
        (root / "dir" / "sub-away").rename(root / "dir" / "sub")

    seen, _ = race(swap_once, lambda _: files.read(at("dir", "sub", "secret.txt"), 1000), rounds=1000)

    assert OUTSIDE not in seen
    assert b"inside" in seen


def test_a_folder_swapped_for_a_link_during_walks_never_yields_outside_names(world):
    root, outside, files = world
    (outside / "planted").mkdir()
    (root / "dir" / "inner").mkdir()

    def swap_once() -> None:
        (root / "dir").rename(root / "dir-away")
        (root / "dir").symlink_to(outside)
        (root / "dir").unlink()
        (root / "dir-away").rename(root / "dir")

    def walk(_: int) -> set[tuple[str, ...]]:
        paths = files.walk_dirs(at(), 5, lambda _: True)
        return {tuple(path.split("/")) for path in paths} | {(e.name,) for e in files.list_dir(at("dir"))}

    walks, _ = race(swap_once, walk)
    walked = set().union(*walks)

    assert not any("planted" in parts for parts in walked)
    assert ("inner",) in walked


def test_a_segment_that_escaped_validation_is_stopped_at_the_adapter(world):
    _, _, files = world

    with pytest.raises(ValueError, match="unvalidated"):
        files.kind(at("..", "outside"))


def test_a_missing_root_folder_at_start_is_unavailable(tmp_path: Path):
    with pytest.raises(Unavailable):
        LocalFiles({"ROOT_REPO": tmp_path / "missing"})


def test_nothing_outside_is_listed_through_a_prefix_sibling(tmp_path: Path):
    (tmp_path / "mods" / "Foo").mkdir(parents=True)
    (tmp_path / "mods" / "Foo-evil").mkdir()
    (tmp_path / "mods" / "Foo-evil" / "evil.txt").write_bytes(b"evil")
    files = LocalFiles({"ROOT_STEAM": tmp_path / "mods" / "Foo"})

    with pytest.raises(NotFound):
        files.kind(Location("ROOT_STEAM", ("Foo-evil",)))
    files.close()


def test_a_folder_swapped_for_a_link_between_its_listing_and_its_opening_is_not_walked(world):
    root, outside, files = world
    (outside / "planted").mkdir()
    (root / "dir" / "inner").mkdir()

    def keep(parts: tuple[str, ...], _: str) -> bool:
        if parts == ("dir",):  # listed as a folder; swapped before the walk opens it
            (root / "dir").rename(root / "dir-away")
            (root / "dir").symlink_to(outside)
        return True

    walked = [parts for parts, _ in files.walk(at(), 5, keep)]

    assert not any("planted" in parts for parts in walked)
    assert walked == [("data.txt",)]  # the folder, a link by then, is skipped, never followed


def test_a_whole_walk_given_up_deep_down_leaves_no_folder_open(world):
    root, _, files = world
    (root / "dir" / "a" / "b" / "c").mkdir(parents=True)
    (root / "dir" / "a" / "b" / "c" / "f.txt").write_bytes(b"x")
    before = open_below(root / "dir")
    walk = files.walk(at(), 9, lambda *_: True)
    seen = [next(walk) for _ in range(6)]  # data.txt, then down to dir/a/b/c/f.txt: four folders open
    held = open_below(root / "dir")
    walk.close()

    assert seen[-1] == (("dir", "a", "b", "c", "f.txt"), "file")
    assert len(held) > len(before)  # the walk did hold folders open (so the count below can fail)
    assert open_below(root / "dir") == before


def open_below(folder: Path) -> list[str]:
    """The descriptors of this process open on `folder` or below it (other threads' files do not count)."""
    found = []
    for fd in Path("/proc/self/fd").iterdir():
        try:
            target = str(fd.readlink())
        except OSError:  # closed since the folder was listed
            continue
        if target == str(folder) or target.startswith(f"{folder}/"):
            found.append(target)
    return sorted(found)
