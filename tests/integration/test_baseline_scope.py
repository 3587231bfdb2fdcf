"""The baseline a contract is bound to (SPEC §7) on real folders: every repository in its scope with its
commit, and a manifest of the whole scope stored as canonical JSON whose digest the contract carries; a
file a stat cannot vouch for is known by its content; a broken repository leaves its files to the manifest;
in the documents root the scope is `mod/`, and the launcher registry only when a target names it."""

import hashlib
import json
import os
from datetime import UTC, datetime
from pathlib import Path

import pytest
from dulwich import porcelain

from app.config import Settings
from domain.contracts import baseline
from domain.contracts.baseline import BaselineChanged
from domain.vocabulary import Mode, RootCategory
from tests.integration.repo_work import Work, committed
from tests.worlds import sample_world_on_disk


def stored(work: Work, sha: str) -> dict[str, object]:
    document = work.evidence("baseline", sha)
    assert hashlib.sha256(document.encode()).hexdigest() == sha
    assert document == json.dumps(json.loads(document), sort_keys=True, separators=(",", ":"))
    return dict(json.loads(document))


def touch(path: Path) -> None:
    """Write a file's content again as it is: its stat changes, its content does not."""
    path.write_bytes(path.read_bytes())
    os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 5_000_000_000))


@pytest.fixture
def nested(tmp_path: Path) -> Work:
    """A repository (a.txt, b.txt) holding another, `mod` (c.txt), that it does not track."""
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / ".gitignore").write_text("mod/\n", encoding="utf-8")
    committed(repo, {"a.txt": "a\n", "b.txt": "b\n", ".gitignore": "mod/\n"})
    (repo / "mod").mkdir()
    committed(repo / "mod", {"c.txt": "c\n"})
    return Work(tmp_path, repo)


def test_the_baseline_lists_each_repository_with_its_commit_and_every_entry_but_their_own_data(nested: Work):
    (nested.root / "b.txt").write_text("changed\n", encoding="utf-8")
    opened = nested.open(nested.session(), ("a.txt", "modify"))

    document = stored(nested, opened.data["baseline_sha"])

    heads = [r["commit"] for r in opened.data["repositories"]]
    assert [r["address"] for r in opened.data["repositories"]] == ["ROOT_REPO:/", "ROOT_REPO:/mod"]
    assert document["root"] == "ROOT_REPO"
    assert document["repositories"] == [["", heads[0]], ["mod", heads[1]]]
    manifest = document["manifest"]
    assert sorted(manifest) == [".gitignore", "a.txt", "b.txt", "mod", "mod/c.txt"]
    a = (nested.root / "a.txt").stat()
    assert manifest["a.txt"] == ["file", 2, a.st_mtime_ns, a.st_ctime_ns, a.st_ino, None, None]
    assert manifest["mod"][0] == "dir"
    changed = hashlib.sha256(b"changed\n").hexdigest()  # what the repository shows changed: by content
    assert manifest["b.txt"][6] == changed


def test_files_whose_stat_changed_but_not_their_content_are_no_work_in_any_repository(nested: Work):
    (nested.root / "b.txt").write_text("changed\n", encoding="utf-8")  # uncommitted already at open
    session = nested.session()
    contract_id = nested.open(session, ("a.txt", "modify")).data["contract_id"]
    for name in ("a.txt", "b.txt", "mod/c.txt"):
        touch(nested.root / name)

    closed = nested.close(session)

    assert closed.code == "CT-GATE-S-002", dict(closed.data)
    assert closed.data["count"] == 0
    assert closed.data["contract_id"] == contract_id


def test_a_repository_that_cannot_be_read_leaves_its_files_to_the_manifest(tmp_path: Path):
    root = tmp_path / "plain"
    (root / "broken" / ".git").mkdir(parents=True)  # an empty .git: no repository can be read from it
    (root / "broken" / "x.txt").write_text("x\n", encoding="utf-8")
    (root / "sub").mkdir()
    (root / "sub" / ".git").write_text("gitdir: elsewhere\n", encoding="utf-8")  # a link to one, not one
    work = Work(tmp_path, root)
    session = work.session()
    opened = work.open(session, ("y.txt", "add"))
    (root / "broken" / "x.txt").write_text("changed\n", encoding="utf-8")

    refused = work.close(session)

    assert opened.data["repositories"] == ({"address": "ROOT_REPO:/broken", "commit": None},)
    assert sorted(stored(work, opened.data["baseline_sha"])["manifest"]) == ["broken", "broken/x.txt", "sub"]
    assert [(c["address"], c["kind"], c["source"]) for c in refused.data["undeclared"]] == [
        ("ROOT_REPO:/broken/x.txt", "modify", "manifest")
    ]


def test_a_baseline_missing_from_the_store_no_longer_governs(tmp_path: Path):
    root = tmp_path / "plain"
    root.mkdir()
    work = Work(tmp_path, root)
    session = work.session()
    opened = work.open(session, ("y.txt", "add"))
    del work.state.data["evidence"][("baseline", opened.data["baseline_sha"])]

    refused = work.close(session)

    assert (refused.code, refused.data["problem"]) == (
        "CT-GATE-I-006",
        "its baseline in the state store was changed, so it no longer governs",
    )
    with pytest.raises(BaselineChanged):
        baseline.load(work.core.services, opened.data["baseline_sha"])


def test_the_content_of_what_is_no_file_is_none(tmp_path: Path):
    root = tmp_path / "plain"
    (root / "folder").mkdir(parents=True)
    (root / "a.txt").write_text("a\n", encoding="utf-8")
    work = Work(tmp_path, root)
    session = work.session()

    assert baseline.content_digest(session, "ROOT_REPO", "a.txt") == hashlib.sha256(b"a\n").hexdigest()
    assert baseline.content_digest(session, "ROOT_REPO", "folder") is None
    assert baseline.content_digest(session, "ROOT_REPO", "missing.txt") is None
    assert baseline.digest(None) is None


def test_in_the_documents_root_the_scope_is_the_mod_folder_and_the_registry_only_when_named(tmp_path: Path):
    settings = sample_world_on_disk(tmp_path)
    work = Work(tmp_path, tmp_path, settings=settings)
    session = work.session()
    fix = "mod/LocalFix/common/traits/zzz_local_fix.txt"

    unnamed = work.open(session, (fix, "modify"), root="ROOT_USER_DOCS")
    work.call(session, "ck3_contract", "cancel")
    asked = work.open(session, ("launcher-v2.sqlite", "modify"), root="ROOT_USER_DOCS")
    work.core.decide_approval(asked.data["approval_id"], approve=True)
    named = work.open(session, ("launcher-v2.sqlite", "modify"), root="ROOT_USER_DOCS")

    unnamed_paths = set(stored(work, unnamed.data["baseline_sha"])["manifest"])
    named_paths = set(stored(work, named.data["baseline_sha"])["manifest"])
    assert fix in unnamed_paths
    assert {path.split("/")[0] for path in unnamed_paths} == {"mod"}
    assert named_paths - unnamed_paths == {"launcher-v2.sqlite"}


def test_a_file_modified_in_the_two_seconds_before_open_is_known_by_its_content(tmp_path: Path):
    root = tmp_path / "plain"
    root.mkdir()
    work = Work(tmp_path, root)
    work.clock.current = datetime(2026, 1, 1, 12, 0, 0, tzinfo=UTC)
    now_ns = 1_767_268_800 * 1_000_000_000  # the clock's instant
    for name, mtime_ns in (("edge.txt", now_ns - 2_000_000_000), ("older.txt", now_ns - 3_600_000_000_000)):
        (root / name).write_text(name, encoding="utf-8")
        os.utime(root / name, ns=(mtime_ns, mtime_ns))

    opened = work.open(work.session(), ("y.txt", "add"))

    manifest = stored(work, opened.data["baseline_sha"])["manifest"]
    assert manifest["edge.txt"][6] == hashlib.sha256(b"edge.txt").hexdigest()  # racily clean: by content
    assert manifest["older.txt"][6] is None  # its stat vouches for it


@pytest.mark.parametrize("mod", ["missing", "a file"])
def test_a_documents_root_without_a_mod_folder_has_an_empty_scope(tmp_path: Path, mod: str):
    docs = tmp_path / "documents"
    docs.mkdir()
    (docs / "pdx_settings.txt").write_text("settings", encoding="utf-8")
    if mod == "a file":
        (docs / "mod").write_text("not a folder", encoding="utf-8")
    repo = tmp_path / "repo"
    repo.mkdir()
    roots = {RootCategory.ROOT_REPO: repo, RootCategory.ROOT_USER_DOCS: docs}
    settings = Settings("t", roots, RootCategory.ROOT_REPO, Mode.CK3RAVEN_DEV, state_dir=tmp_path / "state")
    work = Work(tmp_path, repo, settings=settings)

    assert baseline.survey(work.session(), "ROOT_USER_DOCS") == ({}, [], [])
    assert baseline.survey(work.session(), "ROOT_USER_DOCS", ("mod/x.txt",)) == ({}, [], [])


def test_a_repository_two_folders_down_and_one_without_a_commit_are_in_the_baseline(tmp_path: Path):
    root = tmp_path / "plain"
    root.mkdir()
    (root / "mods" / "deep").mkdir(parents=True)
    (root / "fresh").mkdir()
    committed(root / "mods" / "deep", {"d.txt": "d\n"})
    porcelain.init(str(root / "fresh"))
    (root / "fresh" / "f.txt").write_text("f\n", encoding="utf-8")
    work = Work(tmp_path, root)

    opened = work.open(work.session(), ("y.txt", "add"))

    repositories = {r["address"]: r["commit"] for r in opened.data["repositories"]}
    assert sorted(repositories) == ["ROOT_REPO:/fresh", "ROOT_REPO:/mods/deep"]
    assert repositories["ROOT_REPO:/fresh"] is None
    assert repositories["ROOT_REPO:/mods/deep"] is not None
    assert opened.data["carry_over"] is None  # a repository with no commit shows nothing changed since


def test_the_baseline_an_open_stored_is_read_back_as_its_stored_document_says(nested: Work):
    (nested.root / "b.txt").write_text("changed\n", encoding="utf-8")  # digested: the repository shows it
    (nested.root / "link").symlink_to("a.txt")
    opened = nested.open(nested.session(), ("a.txt", "modify"))
    sha = opened.data["baseline_sha"]

    loaded = baseline.load(nested.core.services, sha)

    document = nested.evidence("baseline", sha)
    assert loaded == baseline._parsed(document)
    assert loaded.document() == document
