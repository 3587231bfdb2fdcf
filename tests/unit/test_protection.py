"""Protected files are matched on case-folded canonical identity, need no file on disk, fail closed."""

import json

import pytest

from domain.policy.protection import Protection
from domain.vocabulary import Mode, RootCategory
from tests.worlds import memory_world

DEFAULTS = Protection.from_manifest(None)


def manifest(*entries: str) -> bytes:
    return json.dumps({"protected": list(entries)}).encode()


@pytest.mark.parametrize(
    "parts",
    [
        ("policy", "protected_files.json"),
        ("policy", "new_rule.json"),
        (".git", "config"),
        (".git", "hooks", "pre-commit"),
        (".GIT", "config"),
        ("Policy", "x"),
        (".Cursor", "MCP.json"),
        (".vscode", "settings.json"),
        (".github", "workflows", "ci.yml"),
    ],
)
def test_defaults_protect_the_manifest_git_and_agent_config_in_any_case(parts):
    assert DEFAULTS.covers("ROOT_REPO", parts)


@pytest.mark.parametrize(
    "parts",
    [("src", "server.py"), ("policyx", "a"), (".gitignore.bak",), ("docs", "git"), ("docs", "agents.md.bak")],
)
def test_other_repo_files_are_not_protected_by_default(parts):
    assert not DEFAULTS.covers("ROOT_REPO", parts)


@pytest.mark.parametrize(
    ("root", "parts"),
    [
        ("ROOT_USER_DOCS", ("mod", "MyMod", ".git", "hooks", "pre-commit")),
        ("ROOT_USER_DOCS", ("mod", "MyMod", ".git", "config")),
        ("ROOT_USER_DOCS", ("mod", "MyMod", ".vscode", "tasks.json")),
        ("ROOT_USER_DOCS", ("mod", "MyMod", "AGENTS.md")),
        ("ROOT_USER_DOCS", ("mod", "MyMod", ".pre-commit-config.yaml")),
        ("ROOT_STEAM", ("2217283", ".github", "workflows", "ci.yml")),
        ("ROOT_CK3RAVEN_DATA", (".mcp.json",)),
        ("ROOT_CK3RAVEN_DATA", (".claude", "settings.json")),
        ("ROOT_USER_DOCS", (".gitlab-ci.yml",)),
        ("ROOT_VSCODE", ("settings.json",)),
    ],
)
def test_defaults_protect_every_root_top_and_every_mod_folder_top(root, parts):
    assert DEFAULTS.covers(root, parts)


@pytest.mark.parametrize("parts", [("tools", "vendored", ".git", "hooks", "post-checkout"), ("a", ".Git")])
def test_a_git_folder_is_protected_at_any_depth(parts):
    assert DEFAULTS.covers("ROOT_REPO", parts)


@pytest.mark.parametrize(
    ("root", "parts"),
    [
        ("ROOT_USER_DOCS", ("mod", "MyMod", "common", "policy", "x.txt")),
        ("ROOT_USER_DOCS", ("save games", ".vscode", "x")),
        ("ROOT_STEAM", ("2217283", "common", "CLAUDE.md")),
    ],
)
def test_defaults_apply_only_at_a_top_not_in_any_subfolder(root, parts):
    assert not DEFAULTS.covers(root, parts)


def test_a_listed_file_is_protected_in_any_case_and_before_it_exists():
    protection = Protection.from_manifest(manifest("ROOT_REPO:/config/secrets.json"))

    assert protection.covers("ROOT_REPO", ("CONFIG", "Secrets.JSON"))


def test_a_kelvin_sign_does_not_alias_around_protection():
    protection = Protection.from_manifest(manifest("ROOT_REPO:/kit/"))

    assert protection.covers("ROOT_REPO", ("\u212ait", "x"))


def test_a_listed_folder_protects_everything_below_it_and_not_its_prefix_siblings():
    protection = Protection.from_manifest(manifest("ROOT_REPO:/secrets/"))

    assert protection.covers("ROOT_REPO", ("secrets", "deep", "a.txt"))
    assert not protection.covers("ROOT_REPO", ("secrets-public", "a.txt"))


@pytest.mark.parametrize(
    "raw",
    [
        b"not json",
        b'{"protected": "ROOT_REPO:/x"}',
        b'{"protected": ["/etc/passwd"]}',
        b'{"protected": ["ROOT_REPO:/a/../b"]}',
        b'{"protected": [], "extra": 1}',
        b'{"protected": ["mod:A:/x"]}',
    ],
)
def test_an_unusable_manifest_protects_the_whole_repo(raw: bytes):
    assert Protection.from_manifest(raw).covers("ROOT_REPO", ("src", "anything.py"))


def test_the_world_adapter_marks_protected_targets_from_the_manifest_on_disk():
    world = memory_world(Mode.CK3RAVEN_DEV)
    _, ref = world.resolve("ROOT_REPO:/.git/config", RootCategory.ROOT_REPO, must_exist=False)
    assert ref is not None

    assert world.target(ref).protected is True


def test_a_gitignore_at_any_depth_is_protected_since_it_decides_what_close_sees():
    from domain.policy.protection import Protection

    protection = Protection.from_manifest(None)

    assert protection.covers("ROOT_REPO", ("src", "deep", ".gitignore"))
    assert protection.covers("ROOT_STEAM", ("2217000001", ".GitIgnore"))


@pytest.mark.parametrize(
    ("root", "parts"),
    [
        ("ROOT_REPO", ("src", "agents.md")),  # a repository has no mod folders: one top only
        ("ROOT_GAME", ("game", ".github", "x.yml")),
        ("ROOT_USER_DOCS", ("save games", "x", "agents.md")),  # mod folders stand under mod/ only
    ],
)
def test_defaults_apply_at_a_mod_folders_top_only_where_mod_folders_stand(root, parts):
    assert not DEFAULTS.covers(root, parts)


def test_the_top_of_the_workshop_root_is_protected_like_any_root_top():
    assert DEFAULTS.covers("ROOT_STEAM", (".github", "workflows", "ci.yml"))
