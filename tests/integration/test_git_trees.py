"""Flat trees of real dulwich repositories, and the copy kept on disk: used only when it proves itself."""

import os
from pathlib import Path

import pytest
from dulwich import porcelain
from dulwich.object_store import iter_tree_contents
from dulwich.objects import Commit, Tree
from dulwich.repo import Repo

from adapters.git_trees import STORED, FlatTrees, raw_trees, tree_id


def commit_all(top: Path, message: str) -> bytes:
    porcelain.add(
        str(top), paths=[str(p) for p in top.rglob("*") if ".git" not in p.parts and not p.is_dir()]
    )
    return porcelain.commit(str(top), message=message.encode(), author=b"T <t@x>", committer=b"T <t@x>")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    top = tmp_path / "repo"
    (top / "common" / "traits").mkdir(parents=True)
    (top / "common" / "traits" / "00_traits.txt").write_text("brave = {}\n", encoding="utf-8")
    (top / "common" / "a" / "b").mkdir(parents=True)
    (top / "common" / "a" / "b" / "deep.txt").write_text("deep\n", encoding="utf-8")
    (top / "README.md").write_text("r\n", encoding="utf-8")
    (top / "run.sh").write_text("#!/bin/sh\n", encoding="utf-8")
    (top / "run.sh").chmod(0o755)
    (top / "link").symlink_to("README.md")
    porcelain.init(str(top))
    commit_all(top, "one")
    return top


def dulwich_flat(top: Path, commit: bytes) -> dict[bytes, bytes]:
    with Repo(str(top)) as opened:
        tree = opened[commit]
        assert isinstance(tree, Commit)
        return {e.path: e.sha for e in iter_tree_contents(opened.object_store, tree.tree) if e.path and e.sha}


def flat(top: Path, commit: bytes, folder: Path | None = None) -> dict[bytes, bytes]:
    with Repo(str(top)) as opened:
        return FlatTrees(folder).flat(opened, commit)[1]


def head(top: Path) -> bytes:
    with Repo(str(top)) as opened:
        return opened.head()


def commit_alone(top: Path, commit: bytes, elsewhere: Path) -> Path:
    """A repository at `elsewhere` holding this one commit object and none of its trees."""
    porcelain.init(str(elsewhere))
    with Repo(str(top)) as source, Repo(str(elsewhere)) as target:
        target.object_store.add_object(source[commit])
    return elsewhere


def test_a_flat_tree_is_what_dulwich_walks(repo: Path):
    assert flat(repo, head(repo)) == dulwich_flat(repo, head(repo))


def test_a_flat_tree_names_files_in_subfolders_links_and_executables(repo: Path):
    assert set(flat(repo, head(repo))) == {
        b"README.md",
        b"common/a/b/deep.txt",
        b"common/traits/00_traits.txt",
        b"link",
        b"run.sh",
    }


def test_a_flattened_commit_is_kept_on_disk_under_its_id(repo: Path, tmp_path: Path):
    kept = tmp_path / "state" / "git-trees"
    kept.parent.mkdir()

    flat(repo, head(repo), kept)

    assert [p.name for p in kept.iterdir()] == [head(repo).decode() + ".trees"]


def test_a_new_process_flattens_a_kept_commit_without_the_object_store(repo: Path, tmp_path: Path):
    kept = tmp_path / "git-trees"
    commit = head(repo)
    expected = flat(repo, commit, kept)
    bare = commit_alone(repo, commit, tmp_path / "no-trees")

    assert flat(bare, commit, kept) == expected


def test_without_a_folder_nothing_is_kept_on_disk(repo: Path, tmp_path: Path):
    before = sorted(tmp_path.rglob("*"))

    flat(repo, head(repo))

    assert sorted(tmp_path.rglob("*")) == before


def test_a_corrupt_kept_file_is_ignored_and_written_again(repo: Path, tmp_path: Path):
    kept = tmp_path / "git-trees"
    commit = head(repo)
    flat(repo, commit, kept)
    path = kept / (commit.decode() + ".trees")
    good = path.read_bytes()
    path.write_bytes(good[:-7] + b"garbage")

    answer = flat(repo, commit, kept)

    assert answer == dulwich_flat(repo, commit)
    assert path.read_bytes() == good


def test_a_truncated_kept_file_is_ignored(repo: Path, tmp_path: Path):
    kept = tmp_path / "git-trees"
    commit = head(repo)
    flat(repo, commit, kept)
    path = kept / (commit.decode() + ".trees")
    path.write_bytes(path.read_bytes()[:40])

    assert flat(repo, commit, kept) == dulwich_flat(repo, commit)


def test_a_forged_tree_in_a_kept_file_never_adds_a_path(repo: Path, tmp_path: Path):
    kept = tmp_path / "git-trees"
    commit = head(repo)
    flat(repo, commit, kept)
    path = kept / (commit.decode() + ".trees")
    with Repo(str(repo)) as opened:
        found = opened[commit]
        assert isinstance(found, Commit)
        root = opened[found.tree]
        assert isinstance(root, Tree)
    forged = Tree()
    for entry in root.iteritems():
        forged.add(entry.path, entry.mode, entry.sha)
    forged.add(b"..", 0o100644, b"e69de29bb2d1d6434b8b29ae775ad8c2e48c5391")
    raw = forged.as_raw_string()
    path.write_bytes(path.read_bytes() + len(raw).to_bytes(4, "big") + raw)

    assert b".." not in flat(repo, commit, kept)


def test_a_kept_file_of_another_commit_is_not_taken_for_this_one(repo: Path, tmp_path: Path):
    kept = tmp_path / "git-trees"
    first = head(repo)
    (repo / "README.md").write_text("changed\n", encoding="utf-8")
    second = commit_all(repo, "two")
    flat(repo, first, kept)
    (kept / (first.decode() + ".trees")).rename(kept / (second.decode() + ".trees"))

    assert flat(repo, second, kept) == dulwich_flat(repo, second)


def test_a_kept_file_holds_only_trees_that_hash_to_their_ids(repo: Path, tmp_path: Path):
    kept = tmp_path / "git-trees"
    commit = head(repo)
    flat(repo, commit, kept)

    found = raw_trees((kept / (commit.decode() + ".trees")).read_bytes())

    assert found is not None
    assert all(tree_id(raw) == sha for sha, raw in found.items())


def test_only_the_newest_commits_are_kept_on_disk(repo: Path, tmp_path: Path):
    kept = tmp_path / "git-trees"
    for number in range(STORED + 3):
        (repo / "README.md").write_text(f"version {number}\n", encoding="utf-8")
        flat(repo, commit_all(repo, f"c{number}"), kept)

    assert len(list(kept.iterdir())) == STORED


def test_no_temporary_file_is_left_next_to_the_kept_ones(repo: Path, tmp_path: Path):
    kept = tmp_path / "git-trees"

    flat(repo, head(repo), kept)

    assert [p.name for p in kept.iterdir() if not p.name.endswith(".trees")] == []


def test_a_folder_that_cannot_be_written_still_gives_the_right_answer(repo: Path, tmp_path: Path):
    blocked = tmp_path / "git-trees"
    blocked.write_text("a file where the folder would be\n", encoding="utf-8")

    assert flat(repo, head(repo), blocked) == dulwich_flat(repo, head(repo))


def test_the_state_directory_is_never_created_for_the_kept_trees(repo: Path, tmp_path: Path):
    kept = tmp_path / "missing-state" / "git-trees"

    flat(repo, head(repo), kept)

    assert not kept.parent.exists()


def test_a_commit_whose_trees_are_neither_stored_nor_kept_cannot_be_flattened(repo: Path, tmp_path: Path):
    bare = commit_alone(repo, head(repo), tmp_path / "no-trees")

    with pytest.raises(KeyError):
        flat(bare, head(repo), tmp_path / "git-trees")


def odd_tree(opened: Repo, entries: list[tuple[bytes, bytes, bytes]]) -> Tree:
    """A tree object holding exactly these (mode, name, hex id) entries in this order, whatever git would
    say of it, stored in the repository."""
    raw = b"".join(mode + b" " + name + b"\0" + bytes.fromhex(sha.decode()) for mode, name, sha in entries)
    tree = Tree.from_raw_string(Tree.type_num, raw)
    opened.object_store.add_object(tree)
    return tree


def commit_of(opened: Repo, tree: Tree) -> bytes:
    commit = Commit()
    commit.tree = tree.id
    commit.author = commit.committer = b"T <t@x>"
    commit.author_time = commit.commit_time = 0
    commit.author_timezone = commit.commit_timezone = 0
    commit.message = b"odd"
    opened.object_store.add_object(commit)
    return commit.id


def readme_blob(opened: Repo) -> bytes:
    return opened.open_index()[b"README.md"].sha


def test_a_name_starting_with_a_slash_in_a_subfolder_flattens_as_dulwich_walks_it(repo: Path):
    with Repo(str(repo)) as opened:
        inner = odd_tree(opened, [(b"100644", b"/etc", readme_blob(opened))])
        commit = commit_of(opened, odd_tree(opened, [(b"40000", b"sub", inner.id)]))

    assert flat(repo, commit) == dulwich_flat(repo, commit)


def test_a_name_both_folder_and_file_flattens_as_dulwich_walks_it(repo: Path):
    with Repo(str(repo)) as opened:
        inner = odd_tree(opened, [(b"100644", b"x", readme_blob(opened))])
        entries = [(b"40000", b"a", inner.id), (b"100644", b"a", readme_blob(opened))]
        commit = commit_of(opened, odd_tree(opened, entries))

    assert flat(repo, commit) == dulwich_flat(repo, commit)


def test_a_temporary_file_a_crash_left_long_ago_goes_when_a_commit_is_kept(repo: Path, tmp_path: Path):
    kept = tmp_path / "git-trees"
    kept.mkdir()
    left = kept / ".abandoned.tmp"
    left.write_bytes(b"half a write")
    os.utime(left, (0, 0))

    flat(repo, head(repo), kept)

    assert not left.exists()


def test_a_kept_commit_that_is_used_again_outlives_newer_ones(repo: Path, tmp_path: Path):
    kept = tmp_path / "git-trees"
    commits = [head(repo)]
    for number in range(STORED - 1):
        (repo / "README.md").write_text(f"version {number}\n", encoding="utf-8")
        commits.append(commit_all(repo, f"c{number}"))
    for age, commit in enumerate(commits):
        flat(repo, commit, kept)
        os.utime(kept / (commit.decode() + ".trees"), (age, age))  # the first is the oldest
    flat(repo, commits[0], kept)
    (repo / "README.md").write_text("one more\n", encoding="utf-8")

    flat(repo, commit_all(repo, "one more"), kept)

    assert (kept / (commits[0].decode() + ".trees")).exists()
    assert not (kept / (commits[1].decode() + ".trees")).exists()
