"""The struct index reader against dulwich's own, on real repositories made with dulwich and the git CLI."""

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from dulwich import porcelain
from dulwich.index import ConflictedIndexEntry, IndexEntry
from dulwich.repo import Repo

from adapters.git_index import IndexUnreadable, parse, read_index

GIT = shutil.which("git")
needs_git = pytest.mark.skipif(GIT is None, reason="no git CLI on this machine")


def git(top: Path, *args: str) -> str:
    assert GIT is not None
    return subprocess.run([GIT, "-C", str(top), *args], check=True, capture_output=True, text=True).stdout


def dulwich_view(top: Path) -> tuple[dict[bytes, bytes | None], list[tuple[bytes, int, int, int]]]:
    """What dulwich reads: each path's blob (None when conflicted) and each entry's mode, size, mtime."""
    with Repo(str(top)) as repo:
        index = repo.open_index()
    shas: dict[bytes, bytes | None] = {}
    stats = []
    for path, entry in index.items():
        if isinstance(entry, ConflictedIndexEntry):
            shas[path] = None
            continue
        assert isinstance(entry, IndexEntry)
        shas[path] = entry.sha
        seconds, nanos = entry.mtime if isinstance(entry.mtime, tuple) else (int(entry.mtime), 0)
        stats.append((path, entry.mode, entry.size, seconds * 1_000_000_000 + nanos))
    return shas, stats


def fast_view(top: Path) -> tuple[dict[bytes, bytes | None], list[tuple[bytes, int, int, int]]]:
    with Repo(str(top)) as repo:
        staged = read_index(repo, top / ".git" / "index")
    return staged.shas, staged.stats


def index_bytes(top: Path) -> bytes:
    return (top / ".git" / "index").read_bytes()


def files(top: Path) -> None:
    """Files at the top and in subfolders, an executable and a link."""
    (top / "common" / "traits").mkdir(parents=True)
    (top / "common" / "traits" / "00_traits.txt").write_text("brave = {}\n", encoding="utf-8")
    (top / "common" / "deep" / "er").mkdir(parents=True)
    (top / "common" / "deep" / "er" / "x.txt").write_text("x\n", encoding="utf-8")
    (top / "README.md").write_text("r\n", encoding="utf-8")
    (top / "run.sh").write_text("#!/bin/sh\n", encoding="utf-8")
    (top / "run.sh").chmod(0o755)
    (top / "link").symlink_to("README.md")


@pytest.fixture
def dulwich_repo(tmp_path: Path) -> Path:
    top = tmp_path / "made-by-dulwich"
    top.mkdir()
    files(top)
    porcelain.init(str(top))
    porcelain.add(
        str(top), paths=[str(p) for p in top.rglob("*") if ".git" not in p.parts and not p.is_dir()]
    )
    porcelain.commit(str(top), message=b"one", author=b"T <t@x>", committer=b"T <t@x>")
    return top


@pytest.fixture
def git_repo(tmp_path: Path) -> Path:
    if GIT is None:
        pytest.skip("no git CLI on this machine")
    top = tmp_path / "made-by-git"
    top.mkdir()
    files(top)
    git(top, "init", "-q")
    git(top, "add", "-A")
    git(top, "-c", "user.name=T", "-c", "user.email=t@x", "commit", "-q", "-m", "one")
    return top


def test_an_index_written_by_dulwich_reads_as_dulwich_reads_it(dulwich_repo: Path):
    assert fast_view(dulwich_repo) == dulwich_view(dulwich_repo)


def test_the_fast_reader_reads_a_dulwich_index_itself(dulwich_repo: Path):
    assert parse(index_bytes(dulwich_repo)) is not None


def test_an_index_written_by_git_reads_as_dulwich_reads_it(git_repo: Path):
    assert parse(index_bytes(git_repo)) is not None
    assert fast_view(git_repo) == dulwich_view(git_repo)


def test_executable_files_and_links_keep_their_modes(git_repo: Path):
    modes = {path: mode for path, mode, _, _ in fast_view(git_repo)[1]}

    assert (modes[b"run.sh"], modes[b"README.md"], modes[b"link"]) == (0o100755, 0o100644, 0o120000)


def test_an_intent_to_add_entry_reads_as_dulwich_reads_it(git_repo: Path):
    (git_repo / "later.txt").write_text("later\n", encoding="utf-8")
    git(git_repo, "add", "--intent-to-add", "later.txt")

    assert parse(index_bytes(git_repo)) is not None
    assert fast_view(git_repo) == dulwich_view(git_repo)


def test_a_skip_worktree_entry_reads_as_dulwich_reads_it(git_repo: Path):
    git(git_repo, "update-index", "--skip-worktree", "README.md")

    assert int.from_bytes(index_bytes(git_repo)[4:8], "big") == 3
    assert parse(index_bytes(git_repo)) is not None
    assert fast_view(git_repo) == dulwich_view(git_repo)


def test_a_version_4_index_reads_as_dulwich_reads_it(git_repo: Path):
    git(git_repo, "update-index", "--index-version", "4")

    assert parse(index_bytes(git_repo)) is not None
    assert fast_view(git_repo) == dulwich_view(git_repo)


def test_an_index_with_gits_optional_extensions_reads_as_dulwich_reads_it(git_repo: Path):
    """The cache tree, the untracked cache, the end-of-entries marker and the offset table."""
    options = ["-c", "index.recordEndOfIndexEntries=true", "-c", "index.recordOffsetTable=true"]
    options += ["-c", "index.threads=2", "-c", "core.untrackedCache=true"]
    git(git_repo, *options, "update-index", "--untracked-cache")
    git(git_repo, *options, "status")
    git(git_repo, *options, "update-index", "--force-write-index")
    assert all(tag in index_bytes(git_repo) for tag in (b"TREE", b"UNTR", b"EOIE", b"IEOT"))

    assert parse(index_bytes(git_repo)) is not None
    assert fast_view(git_repo) == dulwich_view(git_repo)


def test_a_split_index_is_left_to_dulwich(git_repo: Path):
    git(git_repo, "update-index", "--split-index")

    assert parse(index_bytes(git_repo)) is None


def test_a_split_index_that_dulwich_cannot_read_is_reported_unreadable(git_repo: Path):
    git(git_repo, "update-index", "--split-index")

    with Repo(str(git_repo)) as repo, pytest.raises(IndexUnreadable):
        read_index(repo, git_repo / ".git" / "index")


def test_a_sparse_index_is_left_to_dulwich(git_repo: Path):
    git(git_repo, "sparse-checkout", "init", "--cone", "--sparse-index")
    git(git_repo, "sparse-checkout", "set", "common/traits")

    assert parse(index_bytes(git_repo)) is None


@needs_git
def test_a_conflicted_index_is_read_by_dulwich_with_the_same_answer(tmp_path: Path):
    top = tmp_path / "merge"
    top.mkdir()
    git(top, "init", "-q", "-b", "main")
    (top / "f.txt").write_text("base\n", encoding="utf-8")
    git(top, "add", "f.txt")
    git(top, "-c", "user.name=T", "-c", "user.email=t@x", "commit", "-q", "-m", "base")
    git(top, "checkout", "-q", "-b", "other")
    (top / "f.txt").write_text("other\n", encoding="utf-8")
    git(top, "-c", "user.name=T", "-c", "user.email=t@x", "commit", "-q", "-am", "other")
    git(top, "checkout", "-q", "main")
    (top / "f.txt").write_text("mine\n", encoding="utf-8")
    git(top, "-c", "user.name=T", "-c", "user.email=t@x", "commit", "-q", "-am", "mine")
    subprocess.run([str(GIT), "-C", str(top), "merge", "-q", "other"], capture_output=True, check=False)

    assert parse(index_bytes(top)) is None
    assert fast_view(top) == dulwich_view(top) == ({b"f.txt": None}, [])


def test_an_index_with_a_wrong_checksum_is_reported_unreadable(dulwich_repo: Path):
    path = dulwich_repo / ".git" / "index"
    data = bytearray(path.read_bytes())
    data[-1] ^= 0xFF
    path.write_bytes(bytes(data))

    with Repo(str(dulwich_repo)) as repo, pytest.raises(IndexUnreadable):
        read_index(repo, path)


def test_a_truncated_index_is_left_to_dulwich(dulwich_repo: Path):
    assert parse(index_bytes(dulwich_repo)[:-30]) is None


def test_an_index_with_an_all_zero_checksum_is_read_as_dulwich_reads_it(dulwich_repo: Path):
    path = dulwich_repo / ".git" / "index"
    path.write_bytes(path.read_bytes()[:-20] + bytes(20))

    assert parse(path.read_bytes()) is not None
    assert fast_view(dulwich_repo) == dulwich_view(dulwich_repo)


def test_the_index_time_is_the_time_of_the_file_that_was_read(dulwich_repo: Path):
    path = dulwich_repo / ".git" / "index"
    os.utime(path, ns=(1_700_000_000_123_456_789, 1_700_000_000_123_456_789))

    with Repo(str(dulwich_repo)) as repo:
        staged = read_index(repo, path)

    assert staged.written_ns == 1_700_000_000_123_456_789


@needs_git
def test_paths_are_matched_with_the_case_folding_the_config_asks_for(git_repo: Path):
    git(git_repo, "config", "core.ignorecase", "true")
    with Repo(str(git_repo)) as repo:
        staged = read_index(repo, git_repo / ".git" / "index")
        folded = repo.open_index().canonical_path(b"readme.MD")

    assert staged.key(b"readme.MD") == folded == b"README.md"


def test_paths_are_matched_exactly_when_the_config_does_not_fold_case(dulwich_repo: Path):
    with Repo(str(dulwich_repo)) as repo:
        staged = read_index(repo, dulwich_repo / ".git" / "index")

    assert staged.key(b"readme.MD") == b"readme.MD"
