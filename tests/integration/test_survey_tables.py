"""A survey's table of real files holds exactly what the survey finds, entry by entry, in both modes: a
folder kept whole at once (every name in it shown, none its own filter refuses) leaves out no secret, no
`.git` and nothing outside the playset's mods, and keeps links as links."""

import os
from pathlib import Path

import pytest

from adapters.local_files import LocalFiles
from domain.vocabulary import Mode, RootCategory
from domain.world.adapter import WorldAdapter, WorldView
from domain.world.playsets import ModFolder
from domain.world.visibility import VisibilityRef
from ports.files import Kind

R = RootCategory
MODS = (ModFolder("Local Fix", None, R.ROOT_USER_DOCS, ("mod", "LocalFix")),)


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    """A documents folder whose mod holds a secret beside ordinary files, its repository's `.git`, a
    `.git` file of a folder below it and a link, beside a mod in no playset."""
    root = tmp_path / "docs"
    mod = root / "mod" / "LocalFix"
    for folder in (mod / "common" / "traits", mod / ".git" / "objects", mod / "sub", root / "mod" / "Unused"):
        folder.mkdir(parents=True)
    for path in (mod / "common" / "traits" / "a.txt", mod / "common" / ".env", mod / "descriptor.mod"):
        path.write_text("x", encoding="utf-8")
    (mod / ".git" / "HEAD").write_text("ref: refs/heads/main\n", encoding="utf-8")
    (mod / "sub" / ".git").write_text("gitdir: ../.git/modules/sub\n", encoding="utf-8")
    (mod / "sub" / "b.txt").write_text("b", encoding="utf-8")
    (root / "mod" / "Unused" / "c.txt").write_text("c", encoding="utf-8")
    (mod / "link.txt").symlink_to("common/traits/a.txt")
    os.utime(mod / "common" / "traits" / "a.txt", ns=(1_000_000_000, 2_000_000_000))  # mtime ≠ ctime
    return root


def _world(docs: Path, mode: Mode) -> tuple[WorldAdapter, VisibilityRef]:
    world = WorldAdapter(
        LocalFiles({R.ROOT_USER_DOCS.value: docs}), WorldView(mode, frozenset(RootCategory), MODS)
    )
    _, ref = world.resolve("ROOT_USER_DOCS:/mod", R.ROOT_USER_DOCS)
    assert ref is not None
    return world, ref


def no_git(parts: tuple[str, ...], _: Kind) -> bool:
    return parts[-1] == ".git"


@pytest.mark.parametrize("mode", [Mode.CK3LENS, Mode.CK3RAVEN_DEV])
def test_a_surveys_table_of_real_files_holds_what_the_survey_finds_entry_by_entry(docs: Path, mode: Mode):
    world, mod = _world(docs, mode)

    table = world.survey_table(mod, no_git, frozenset({".git"}))

    surveyed = {"/".join(parts): found for parts, found in world.survey(mod, no_git)}
    assert set(table) == set(surveyed)
    assert "mod/LocalFix/common/traits/a.txt" in table
    assert "mod/LocalFix/sub/b.txt" in table
    assert not {path for path in table if path.endswith((".env", ".git")) or "/.git/" in path}
    assert ("mod/Unused/c.txt" in table) is (mode is Mode.CK3RAVEN_DEV)
    assert table["mod/LocalFix/link.txt"][0] == "symlink"
    assert table["mod/LocalFix/link.txt"][5] == "common/traits/a.txt"
    for path, found in surveyed.items():  # each row as the survey has it (a folder's: its kind alone)
        kept = (found.kind, found.size, found.mtime_ns, found.ctime_ns, found.inode, found.link, None)
        assert table[path] == (kept if found.kind != "dir" else ("dir", 0, 0, 0, 0, None, None)), path


def test_a_surveys_own_filter_is_asked_of_every_entry_when_it_may_refuse_any_name(docs: Path):
    world, mod = _world(docs, Mode.CK3RAVEN_DEV)

    def no_a(parts: tuple[str, ...], _: Kind) -> bool:
        return parts[-1] in {".git", "a.txt"}

    table = world.survey_table(mod, no_a)  # no names given: the filter may refuse any

    assert "mod/LocalFix/common/traits/a.txt" not in table
    assert "mod/LocalFix/common/traits" in table
