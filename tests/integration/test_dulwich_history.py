"""The History port over a real git repository made with dulwich, checked against git's own answer."""

import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from dulwich import porcelain
from structlog.testing import capture_logs

from adapters.dulwich_history import DulwichHistory
from ports.errors import Unavailable
from ports.history import Change


def commit_all(repo: Path, message: str) -> str:
    porcelain.add(str(repo), paths=[str(p) for p in repo.rglob("*") if p.is_file() and ".git" not in p.parts])
    return porcelain.commit(
        str(repo), message=message.encode(), author=b"T <t@x>", committer=b"T <t@x>"
    ).decode()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    top = tmp_path / "repo"
    (top / "src").mkdir(parents=True)
    (top / "src" / "a.py").write_text("a\n", encoding="utf-8")
    (top / "src" / "b.py").write_text("b\n", encoding="utf-8")
    (top / "README.md").write_text("r\n", encoding="utf-8")
    porcelain.init(str(top))
    commit_all(top, "first")
    return top


def test_head_names_the_latest_commit(repo: Path):
    head = DulwichHistory({"ROOT_REPO": repo}).head("ROOT_REPO")

    assert head is not None
    assert len(head) == 40


def test_a_folder_outside_any_repository_has_no_head(tmp_path: Path):
    (tmp_path / "plain").mkdir()

    assert DulwichHistory({"ROOT_GAME": tmp_path / "plain"}).head("ROOT_GAME") is None


def test_committed_staged_unstaged_and_untracked_changes_are_all_reported(repo: Path):
    history = DulwichHistory({"ROOT_REPO": repo})
    baseline = history.head("ROOT_REPO")
    assert baseline is not None
    (repo / "src" / "a.py").write_text("changed and committed\n", encoding="utf-8")
    commit_all(repo, "second")
    (repo / "src" / "b.py").unlink()
    (repo / "README.md").write_text("unstaged edit\n", encoding="utf-8")
    (repo / "src" / "new.py").write_text("untracked\n", encoding="utf-8")

    changes = history.changes_since("ROOT_REPO", baseline)

    assert changes == [
        Change(("README.md",), "modify"),
        Change(("src", "a.py"), "modify"),
        Change(("src", "b.py"), "delete"),
        Change(("src", "new.py"), "add"),
    ]


def test_changes_agree_with_the_git_cli(repo: Path):
    git = shutil.which("git")
    if git is None:
        pytest.skip("no git CLI on this machine")
    history = DulwichHistory({"ROOT_REPO": repo})
    baseline = history.head("ROOT_REPO")
    assert baseline is not None
    (repo / "src" / "a.py").write_text("x\n", encoding="utf-8")
    (repo / "src" / "b.py").unlink()
    (repo / "c.txt").write_text("c\n", encoding="utf-8")
    subprocess.run([git, "-C", str(repo), "add", "-A"], check=True, capture_output=True)
    listed = subprocess.run(
        [git, "-C", str(repo), "diff", "--name-status", "--no-renames", baseline],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split("\n")
    expected = {
        line.split("\t")[1]: {"M": "modify", "A": "add", "D": "delete"}[line[0]] for line in listed if line
    }

    changes = history.changes_since("ROOT_REPO", baseline)

    assert {"/".join(c.parts): c.kind for c in changes} == expected


def test_a_repository_whose_top_lies_above_a_root_is_never_that_roots_repository(repo: Path):
    history = DulwichHistory({"ROOT_USER_DOCS": repo / "src"})

    assert history.repository("ROOT_USER_DOCS") is None
    assert history.head("ROOT_USER_DOCS") is None
    assert history.ignores("ROOT_USER_DOCS") is None


def test_a_committed_link_left_alone_is_no_change(repo: Path):
    history = DulwichHistory({"ROOT_REPO": repo})
    (repo / "link").symlink_to("src/a.py")
    porcelain.add(str(repo), paths=[str(repo / "link")])
    porcelain.commit(str(repo), message=b"a link", author=b"a <a@b>", committer=b"a <a@b>")
    head = history.head("ROOT_REPO")
    assert head is not None

    untouched = history.changes_since("ROOT_REPO", head)
    (repo / "link").unlink()
    (repo / "link").symlink_to("src/b.py")

    assert untouched == []
    assert history.changes_since("ROOT_REPO", head) == [Change(("link",), "modify")]


def test_staging_puts_the_given_bytes_in_the_index_not_what_the_disk_holds(repo: Path):
    history = DulwichHistory({"ROOT_REPO": repo})
    (repo / "src" / "a.py").write_text("on disk\n", encoding="utf-8")

    history.stage("ROOT_REPO", [(("src", "a.py"), b"read through the rules\n")])

    staged = history.staged("ROOT_REPO")
    assert staged.changes == [Change(("src", "a.py"), "modify")]
    assert history.changes_since("ROOT_REPO", str(history.head("ROOT_REPO"))) == [
        Change(("src", "a.py"), "modify")
    ]


def test_a_committed_link_has_no_content_at_a_commit(repo: Path):
    (repo / "link").symlink_to("/etc/hostname")
    porcelain.add(str(repo), paths=[str(repo / "link")])
    sha = porcelain.commit(str(repo), message=b"l", author=b"T <t@x>", committer=b"T <t@x>").decode()

    assert DulwichHistory({"ROOT_REPO": repo}).content_at("ROOT_REPO", sha, ("link",)) is None


def test_a_folder_that_is_its_own_repository_is_found_below_the_root(tmp_path: Path):
    mod = tmp_path / "docs" / "mod" / "Fix"
    mod.mkdir(parents=True)
    (mod / "a.txt").write_text("a\n", encoding="utf-8")
    porcelain.init(str(mod))
    commit_all(mod, "fix")
    history = DulwichHistory({"ROOT_USER_DOCS": tmp_path / "docs"})
    (mod / "a.txt").write_text("b\n", encoding="utf-8")

    top = history.repository("ROOT_USER_DOCS", ("mod", "Fix", "sub"))
    head = history.head("ROOT_USER_DOCS", ("mod", "Fix"))

    assert top == ("mod", "Fix")
    assert head is not None
    assert history.changes_since("ROOT_USER_DOCS", head, ("mod", "Fix")) == [
        Change(("mod", "Fix", "a.txt"), "modify")
    ]
    assert history.repository("ROOT_USER_DOCS", ("mod", "Other")) is None


def test_a_root_that_is_a_linked_worktree_is_served_by_no_repository_rather_than_the_one_around_it(
    repo: Path,
):
    worktree = repo / "wt"
    worktree.mkdir()
    (worktree / ".git").write_text("gitdir: ../.git/worktrees/wt\n", encoding="utf-8")

    history = DulwichHistory({"ROOT_REPO": worktree})

    assert history.head("ROOT_REPO") is None
    assert history.repository("ROOT_REPO") is None


def test_a_nested_repository_is_not_walked_as_untracked_files_of_the_outer_one(repo: Path):
    inner = repo / "vendor" / "lib"
    inner.mkdir(parents=True)
    (inner / "x.py").write_text("x\n", encoding="utf-8")
    porcelain.init(str(inner))
    history = DulwichHistory({"ROOT_REPO": repo})

    changes = history.changes_since("ROOT_REPO", str(history.head("ROOT_REPO")))

    assert changes == []


def test_ignore_rules_answer_for_paths_below_the_root(repo: Path):
    (repo / ".gitignore").write_text("build/\n*.log\n", encoding="utf-8")
    rules = DulwichHistory({"ROOT_REPO": repo}).ignores("ROOT_REPO")

    assert rules is not None
    assert (rules(("build",), folder=True), rules(("x.log",), folder=False)) == (True, True)
    assert rules(("src",), folder=True) is False


def test_a_root_inside_a_folder_its_repository_ignores_ignores_nothing(repo: Path):
    (repo / ".gitignore").write_text("scratch/\n", encoding="utf-8")
    (repo / "scratch" / "world").mkdir(parents=True)

    rules = DulwichHistory({"ROOT_STEAM": repo / "scratch" / "world"}).ignores("ROOT_STEAM")

    assert rules is None


def test_a_folder_in_no_repository_has_no_ignore_rules(tmp_path: Path):
    assert DulwichHistory({"ROOT_GAME": tmp_path}).ignores("ROOT_GAME") is None


def test_a_gitignore_that_is_a_fifo_ignores_nothing_and_never_blocks(repo: Path):
    os.mkfifo(repo / "src" / ".gitignore")
    rules = DulwichHistory({"ROOT_REPO": repo}).ignores("ROOT_REPO")

    assert rules is not None
    assert rules(("src", "a.py"), folder=False) is False


def test_a_gitignore_that_is_a_folder_ignores_nothing(repo: Path):
    (repo / "src" / ".gitignore").mkdir()
    rules = DulwichHistory({"ROOT_REPO": repo}).ignores("ROOT_REPO")

    assert rules is not None
    assert rules(("src", "a.py"), folder=False) is False


def test_a_pattern_of_many_stars_is_left_out(repo: Path):
    (repo / ".gitignore").write_text("*a*b*c*\n*.log\n", encoding="utf-8")
    rules = DulwichHistory({"ROOT_REPO": repo}).ignores("ROOT_REPO")

    assert rules is not None
    assert (rules(("xaxbxcx",), folder=False), rules(("x.log",), folder=False)) == (False, True)


def test_an_excludes_file_named_by_the_repository_config_is_not_read(repo: Path, tmp_path: Path):
    excludes = tmp_path / "excludes"
    excludes.write_text("*.py\n", encoding="utf-8")
    with (repo / ".git" / "config").open("a", encoding="utf-8") as config:
        config.write(f"[core]\n\texcludesFile = {excludes}\n")

    rules = DulwichHistory({"ROOT_REPO": repo}).ignores("ROOT_REPO")

    assert rules is not None
    assert rules(("src", "a.py"), folder=False) is False


def test_a_name_that_is_not_utf8_is_answered_not_raised(repo: Path):
    rules = DulwichHistory({"ROOT_REPO": repo}).ignores("ROOT_REPO")

    assert rules is not None
    assert rules(("src", "bad\udcff.py"), folder=False) is False


def racy_edit(repo: Path, *, recorded: int, written: int) -> None:
    """Stage src/a.py as it is at time `recorded`, date the index `written`, then change the file's
    content keeping its size and time: only the racy-git rule can tell that it changed."""
    target = repo / "src" / "a.py"
    os.utime(target, ns=(recorded, recorded))
    porcelain.add(str(repo), paths=[str(target)])
    os.utime(repo / ".git" / "index", ns=(written, written))
    target.write_text("b\n", encoding="utf-8")
    os.utime(target, ns=(recorded, recorded))


def test_a_same_size_edit_in_the_tick_the_index_was_written_is_seen(repo: Path):
    history = DulwichHistory({"ROOT_REPO": repo})
    head = str(history.head("ROOT_REPO"))
    racy_edit(repo, recorded=1_700_000_000_123_456_789, written=1_700_000_000_123_456_789)

    assert history.changes_since("ROOT_REPO", head) == [Change(("src", "a.py"), "modify")]


def test_a_same_size_edit_in_the_second_the_index_was_written_is_seen(repo: Path):
    history = DulwichHistory({"ROOT_REPO": repo})
    head = str(history.head("ROOT_REPO"))
    racy_edit(repo, recorded=1_700_000_000_100_000_000, written=1_700_000_000_900_000_000)

    assert history.changes_since("ROOT_REPO", head) == [Change(("src", "a.py"), "modify")]


def test_a_change_made_after_warming_is_still_seen(repo: Path):
    history = DulwichHistory({"ROOT_REPO": repo})
    history.warm()
    (repo / "src" / "a.py").write_text("changed after warming\n", encoding="utf-8")

    changes = history.changes_since("ROOT_REPO", str(history.head("ROOT_REPO")))

    assert changes == [Change(("src", "a.py"), "modify")]


def test_an_index_staged_by_someone_else_after_a_call_is_read_again(repo: Path):
    history = DulwichHistory({"ROOT_REPO": repo})
    assert history.staged("ROOT_REPO").changes == []
    (repo / "README.md").write_text("staged by the operator\n", encoding="utf-8")
    porcelain.add(str(repo), paths=[str(repo / "README.md")])

    assert history.staged("ROOT_REPO").changes == [Change(("README.md",), "modify")]


def test_warming_a_repository_that_cannot_be_read_only_logs(repo: Path):
    (repo / ".git" / "index").write_bytes(b"DIRC not an index at all")
    history = DulwichHistory({"ROOT_REPO": repo})

    with capture_logs() as logs:
        history.warm()

    assert [entry["event"] for entry in logs] == ["history.warm_failed"]


def test_warming_a_repository_without_a_commit_logs_nothing(tmp_path: Path):
    porcelain.init(str(tmp_path / "fresh"))
    history = DulwichHistory({"ROOT_REPO": tmp_path / "fresh"})

    with capture_logs() as logs:
        history.warm()

    assert logs == []


def test_an_index_that_cannot_be_read_makes_the_changes_unavailable(repo: Path):
    (repo / ".git" / "index").write_bytes(b"DIRC not an index at all")
    history = DulwichHistory({"ROOT_REPO": repo})

    with pytest.raises(Unavailable):
        history.changes_since("ROOT_REPO", str(history.head("ROOT_REPO")))


def test_changes_read_with_kept_trees_are_the_changes_read_without(repo: Path, tmp_path: Path):
    kept = tmp_path / "git-trees"
    baseline = str(DulwichHistory({"ROOT_REPO": repo}).head("ROOT_REPO"))
    (repo / "src" / "a.py").write_text("committed\n", encoding="utf-8")
    commit_all(repo, "second")
    (repo / "src" / "b.py").unlink()
    (repo / "src" / "new.py").write_text("untracked\n", encoding="utf-8")
    DulwichHistory({"ROOT_REPO": repo}, tree_cache=kept).warm()

    again = DulwichHistory({"ROOT_REPO": repo}, tree_cache=kept).changes_since("ROOT_REPO", baseline)

    assert again == DulwichHistory({"ROOT_REPO": repo}).changes_since("ROOT_REPO", baseline)


# ------------------------------------------------------------------------------------------- submodules


@pytest.fixture
def mod(tmp_path: Path) -> Path:
    """`docs/mod/M`: a repository with a checked-out submodule `sub`, all clean."""
    from tests.git_cli import git, with_submodule

    top = tmp_path / "docs" / "mod" / "M"
    with_submodule(tmp_path, top)
    assert git(top, "status", "--porcelain") == ""
    return top


def _docs(mod: Path) -> DulwichHistory:
    return DulwichHistory({"ROOT_USER_DOCS": mod.parents[1]})


def test_a_submodule_checked_out_at_its_recorded_commit_is_no_change_of_its_parent(mod: Path):
    history = _docs(mod)
    head = history.head("ROOT_USER_DOCS", ("mod", "M"))

    assert head is not None
    assert history.changes_since("ROOT_USER_DOCS", head, ("mod", "M")) == []


def test_a_submodule_never_checked_out_is_no_change_of_its_parent(mod: Path):
    shutil.rmtree(mod / "sub")
    (mod / "sub").mkdir()
    history = _docs(mod)
    head = history.head("ROOT_USER_DOCS", ("mod", "M"))

    assert head is not None
    assert history.changes_since("ROOT_USER_DOCS", head, ("mod", "M")) == []


def test_a_submodule_whose_checkout_moved_is_one_change_of_its_parent(mod: Path):
    from tests.git_cli import git

    (mod / "sub" / "u.txt").write_text("moved\n", encoding="utf-8")
    git(mod / "sub", "commit", "-q", "-am", "Move")
    history = _docs(mod)
    head = history.head("ROOT_USER_DOCS", ("mod", "M"))

    assert head is not None
    assert history.changes_since("ROOT_USER_DOCS", head, ("mod", "M")) == [
        Change(("mod", "M", "sub"), "modify")
    ]


def test_a_submodule_is_a_repository_of_its_own_with_its_own_changes_and_content(mod: Path):
    (mod / "sub" / "u.txt").write_text("edited\n", encoding="utf-8")
    (mod / "sub" / "new.txt").write_text("new\n", encoding="utf-8")
    history = _docs(mod)
    sub = ("mod", "M", "sub")
    head = history.head("ROOT_USER_DOCS", sub)

    assert history.repository("ROOT_USER_DOCS", sub) == sub
    assert head is not None
    assert history.changes_since("ROOT_USER_DOCS", head, sub) == [
        Change((*sub, "new.txt"), "add"),
        Change((*sub, "u.txt"), "modify"),
    ]
    assert history.content_at("ROOT_USER_DOCS", head, (*sub, "u.txt"), sub) == b"upstream\n"


def test_a_path_inside_a_submodule_has_no_content_in_its_parents_history(mod: Path):
    history = _docs(mod)
    head = history.head("ROOT_USER_DOCS", ("mod", "M"))

    assert head is not None
    assert history.content_at("ROOT_USER_DOCS", head, ("mod", "M", "sub", "u.txt"), ("mod", "M")) is None


def test_a_git_file_naming_a_repository_outside_its_parents_modules_is_served_by_none(
    mod: Path, tmp_path: Path
):
    (mod / "sub" / ".git").write_text(f"gitdir: {tmp_path / 'upstream' / '.git'}\n", encoding="utf-8")
    history = _docs(mod)

    assert history.repository("ROOT_USER_DOCS", ("mod", "M", "sub")) is None
    assert history.head("ROOT_USER_DOCS", ("mod", "M", "sub")) is None


def test_a_file_touched_after_its_commit_then_edited_keeping_its_size_is_seen(repo: Path):
    past = int((time.time() - 3600) * 1_000_000_000)
    for path in (repo / "src" / "a.py", repo / "src" / "b.py"):
        os.utime(path, ns=(past + 10**9, past + 10**9))  # newer than the index holds, same bytes
    history = DulwichHistory({"ROOT_REPO": repo})
    head = history.head("ROOT_REPO")
    assert head is not None
    untouched = history.changes_since("ROOT_REPO", head)

    (repo / "src" / "a.py").write_text("A\n", encoding="utf-8")
    os.utime(repo / "src" / "a.py", ns=(past + 10**9, past + 10**9))

    assert untouched == []
    assert history.changes_since("ROOT_REPO", head) == [Change(("src", "a.py"), "modify")]


def test_a_submodules_own_excludes_file_is_read_where_its_repository_keeps_it(mod: Path):
    from tests.git_cli import git

    control = Path(git(mod / "sub", "rev-parse", "--absolute-git-dir").strip())
    (control / "info").mkdir(exist_ok=True)
    (control / "info" / "exclude").write_text("*.tmp\n", encoding="utf-8")
    (mod / "sub" / "scratch.tmp").write_text("scratch\n", encoding="utf-8")
    history = _docs(mod)
    sub = ("mod", "M", "sub")
    head = history.head("ROOT_USER_DOCS", sub)

    assert head is not None
    assert history.changes_since("ROOT_USER_DOCS", head, sub) == []


def surveyed(top: Path) -> dict[str, tuple[str, int, int, int, int, str | None, str | None]]:
    """The survey's table of everything below `top` (`.git` left out), as an open takes it."""
    from adapters import local_tables

    fd = os.open(top, os.O_RDONLY | os.O_DIRECTORY)
    try:
        return local_tables.table(fd, (), lambda parts, _: parts[-1] != ".git")
    finally:
        os.close(fd)


def test_a_same_size_edit_is_seen_from_a_surveys_rows_where_the_index_stat_data_hold(tmp_path: Path):
    from tests.git_cli import git, repository

    top = tmp_path / "mod"
    repository(top, {"a.txt": "alpha\n", "b.txt": "bravo\n"})
    past = int((time.time() - 3600) * 1_000_000_000)
    for name in ("a.txt", "b.txt"):
        os.utime(top / name, ns=(past, past))
    git(top, "update-index", "-q", "--really-refresh")  # stat data that prove both files, as git leaves them
    history = DulwichHistory({"ROOT_REPO": top})
    baseline = str(history.head("ROOT_REPO"))
    (top / "a.txt").write_text("ALPHA\n", encoding="utf-8")
    os.utime(top / "a.txt", ns=(past, past + 1000))

    seen = history.changes_since("ROOT_REPO", baseline, (), surveyed(top))

    assert seen == [Change(("a.txt",), "modify")]


def test_changes_judged_from_a_surveys_rows_are_the_changes_a_walk_finds(repo: Path):
    (repo / "build").mkdir()
    (repo / "build" / "kept.txt").write_text("tracked in an ignored folder\n", encoding="utf-8")
    commit_all(repo, "tracked in a folder")
    (repo / ".gitignore").write_text("build/\n*.log\n", encoding="utf-8")
    commit_all(repo, "the folder ignored since")
    history = DulwichHistory({"ROOT_REPO": repo})
    baseline = str(history.head("ROOT_REPO"))
    (repo / "src" / "a.py").write_text("edited\n", encoding="utf-8")
    (repo / "src" / "b.py").unlink()
    (repo / "src" / "new.py").write_text("untracked\n", encoding="utf-8")
    (repo / "debug.log").write_text("ignored\n", encoding="utf-8")
    (repo / "build" / "out.o").write_text("ignored folder\n", encoding="utf-8")
    (repo / "build" / "kept.txt").write_text("edited in an ignored folder\n", encoding="utf-8")
    (repo / "vendor" / "lib").mkdir(parents=True)
    (repo / "vendor" / "lib" / "x.py").write_text("x\n", encoding="utf-8")
    porcelain.init(str(repo / "vendor" / "lib"))
    own = {path: row for path, row in surveyed(repo).items() if not path.startswith("vendor/lib/")}

    walked = history.changes_since("ROOT_REPO", baseline)
    seen = DulwichHistory({"ROOT_REPO": repo}).changes_since("ROOT_REPO", baseline, (), own)

    assert seen == walked
    assert {"/".join(c.parts): c.kind for c in seen} == {
        "build/kept.txt": "modify",
        "src/a.py": "modify",
        "src/b.py": "delete",
        "src/new.py": "add",
    }


def settled(top: Path, files: dict[str, str]) -> tuple[DulwichHistory, str]:
    """A repository of `files` committed an hour ago, its index refreshed (every stat racy-clean), its
    history and HEAD."""
    from tests.git_cli import git, repository

    repository(top, files)
    past = int((time.time() - 3600) * 1_000_000_000)
    for name in files:
        os.utime(top / name, ns=(past, past))
    git(top, "update-index", "-q", "--really-refresh")
    history = DulwichHistory({"ROOT_REPO": top})
    return history, str(history.head("ROOT_REPO"))


def test_a_tracked_file_the_surveys_rows_leave_out_is_looked_at_again_by_every_call(tmp_path: Path):
    top = tmp_path / "mod"
    history, baseline = settled(top, {"a.txt": "alpha\n", "hidden.txt": "secret\n"})
    rows = {path: row for path, row in surveyed(top).items() if path != "hidden.txt"}
    assert history.changes_since("ROOT_REPO", baseline, (), rows) == []
    (top / "hidden.txt").write_text("SECRET\n", encoding="utf-8")

    seen = history.changes_since("ROOT_REPO", baseline, (), dict(rows))  # the same rows as before

    assert seen == [Change(("hidden.txt",), "modify")]


def test_rows_that_moved_since_the_last_call_are_judged_again(tmp_path: Path):
    top = tmp_path / "mod"
    history, baseline = settled(top, {"a.txt": "alpha\n", "b.txt": "bravo\n"})
    assert history.changes_since("ROOT_REPO", baseline, (), surveyed(top)) == []
    (top / "b.txt").write_text("BRAVO\n", encoding="utf-8")

    seen = history.changes_since("ROOT_REPO", baseline, (), surveyed(top))

    assert seen == [Change(("b.txt",), "modify")]
