"""Local writes are atomic, create parents through descriptors, never write through links or hard links,
and leave the old content and no temporary file behind when they fail or are killed."""

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from adapters.local_files import LocalFiles
from ports.errors import LinkRefused, NotFound, SpecialFile, Unavailable
from ports.files import Location
from tests.races import race


@pytest.fixture
def root(tmp_path: Path) -> Path:
    folder = tmp_path / "root"
    folder.mkdir()
    return folder


@pytest.fixture(params=[True, False], ids=["openat2", "segment-walk"])
def files(request: pytest.FixtureRequest, root: Path) -> Iterator[LocalFiles]:
    local = LocalFiles({"ROOT_REPO": root}, use_openat2=request.param)
    yield local
    local.close()


def at(*parts: str) -> Location:
    return Location("ROOT_REPO", parts)


def leftovers(folder: Path) -> list[str]:
    return [p.name for p in folder.rglob("*") if p.name.endswith(".ck3raven-tmp")]


def test_a_write_creates_missing_parent_folders(files, root):
    files.write(at("a", "b", "c.txt"), b"deep")

    assert (root / "a" / "b" / "c.txt").read_bytes() == b"deep"


def test_a_write_replaces_and_keeps_the_permission_bits(files, root):
    (root / "x.sh").write_bytes(b"old")
    (root / "x.sh").chmod(0o750)

    files.write(at("x.sh"), b"new")

    assert (root / "x.sh").read_bytes() == b"new"
    assert (root / "x.sh").stat().st_mode & 0o777 == 0o750


def test_a_write_never_goes_through_a_hard_link(files, root, tmp_path):
    outside = tmp_path / "outside.txt"
    outside.write_bytes(b"secret")
    os.link(outside, root / "alias.txt")

    with pytest.raises(SpecialFile):
        files.write(at("alias.txt"), b"overwritten")

    assert outside.read_bytes() == b"secret"


def test_a_write_never_goes_through_a_dangling_link(files, root, tmp_path):
    (root / "dangling").symlink_to(tmp_path / "not-yet-there")

    with pytest.raises(LinkRefused):
        files.write(at("dangling"), b"x")

    assert not (tmp_path / "not-yet-there").exists()


def test_a_failed_rename_keeps_the_old_content_and_leaves_no_temp_file(files, root, monkeypatch):
    (root / "keep.txt").write_bytes(b"old")

    def broken_rename(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "rename", broken_rename)
    with pytest.raises(Unavailable):
        files.write(at("keep.txt"), b"new")
    monkeypatch.undo()

    assert (root / "keep.txt").read_bytes() == b"old"
    assert leftovers(root) == []


def test_deleting_removes_only_a_regular_file(files, root):
    (root / "f.txt").write_bytes(b"x")
    (root / "d").mkdir()

    files.delete(at("f.txt"))

    assert not (root / "f.txt").exists()
    with pytest.raises(SpecialFile):
        files.delete(at("d"))
    with pytest.raises(NotFound):
        files.delete(at("f.txt"))


def test_a_parent_swapped_for_a_link_during_creates_never_writes_outside(files, root, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (root / "out").mkdir()

    def swap_once() -> None:
        (root / "out").rename(root / "out-away")
        (root / "out").symlink_to(outside)
        (root / "out").unlink()
        (root / "out-away").rename(root / "out")

    written, _ = race(swap_once, lambda index: files.write(at("out", f"f{index}.txt"), b"x"))

    assert list(outside.iterdir()) == []
    assert written  # refusing every write is no defence
    assert len(list(root.rglob("f*.txt"))) == len(written)


def test_a_folder_deep_down_swapped_for_a_link_during_creates_never_writes_outside(files, root, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (root / "a" / "out").mkdir(parents=True)

    def swap_once() -> None:
        (root / "a" / "out").rename(root / "a" / "out-away")
        (root / "a" / "out").symlink_to(outside)
        (root / "a" / "out").unlink()
        (root / "a" / "out-away").rename(root / "a" / "out")

    written, _ = race(swap_once, lambda index: files.write(at("a", "out", f"f{index}.txt"), b"x"))

    assert list(outside.iterdir()) == []
    assert written  # refusing every write is no defence
    assert len(list(root.rglob("f*.txt"))) == len(written)


WRITER = """
import sys
from pathlib import Path
from adapters.local_files import LocalFiles
from ports.files import Location
files = LocalFiles({"ROOT_REPO": Path(sys.argv[1])})
print("writing", flush=True)
files.write(Location("ROOT_REPO", ("big.bin",)), b"n" * (256 * 1024 * 1024))
print("done", flush=True)
"""


def test_a_writer_killed_mid_write_leaves_the_old_content_and_no_temp_file(root):
    (root / "big.bin").write_bytes(b"old")
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(root)], stdout=subprocess.PIPE, text=True, cwd=Path.cwd()
    )
    assert writer.stdout is not None
    assert writer.stdout.readline().strip() == "writing"
    time.sleep(0.15)
    writer.send_signal(signal.SIGKILL)
    writer.wait()
    writer.stdout.close()

    content = (root / "big.bin").read_bytes()
    assert content in {b"old", b"n" * (256 * 1024 * 1024)}
    assert leftovers(root) == []


def test_an_exclusive_write_where_a_file_appeared_keeps_that_file(tmp_path: Path):
    from ports.errors import AlreadyExists
    from ports.files import Location

    (tmp_path / "late.txt").write_text("someone else's", encoding="utf-8")
    files = LocalFiles({"ROOT_REPO": tmp_path})

    with pytest.raises(AlreadyExists):
        files.write(Location("ROOT_REPO", ("late.txt",)), b"mine", exclusive=True)

    assert (tmp_path / "late.txt").read_text(encoding="utf-8") == "someone else's"
    assert [p.name for p in tmp_path.iterdir()] == ["late.txt"]


def test_an_exclusive_write_creates_a_new_file(tmp_path: Path):
    from ports.files import Location

    LocalFiles({"ROOT_REPO": tmp_path}).write(Location("ROOT_REPO", ("new.txt",)), b"mine", exclusive=True)

    assert (tmp_path / "new.txt").read_bytes() == b"mine"
