"""Operator configuration is strict: unknown keys, roots and modes, and missing folders stop the start."""

from pathlib import Path

import pytest

from app.config import ConfigError, config_path, load
from domain.vocabulary import Mode, RootCategory


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_valid_config_is_loaded_with_resolved_roots(tmp_path: Path):
    (tmp_path / "repo").mkdir()
    path = write(tmp_path, 'mode = "ck3lens"\nhome = "ROOT_REPO"\n[roots]\nROOT_REPO = "repo"\n')

    settings = load(path, cwd=tmp_path)

    assert settings.mode is Mode.CK3LENS
    assert settings.home is RootCategory.ROOT_REPO
    assert settings.roots == {RootCategory.ROOT_REPO: (tmp_path / "repo").resolve()}


def test_an_unknown_key_is_named(tmp_path: Path):
    path = write(tmp_path, 'colour = "blue"\n[roots]\nROOT_REPO = "."\n')

    with pytest.raises(ConfigError, match="colour"):
        load(path, cwd=tmp_path)


def test_an_unknown_root_is_named(tmp_path: Path):
    path = write(tmp_path, '[roots]\nROOT_REPO = "."\nROOT_ETC = "."\n')

    with pytest.raises(ConfigError, match="ROOT_ETC"):
        load(path, cwd=tmp_path)


def test_a_root_folder_that_does_not_exist_is_refused_at_start(tmp_path: Path):
    path = write(tmp_path, '[roots]\nROOT_REPO = "missing"\n')

    with pytest.raises(ConfigError, match=r"roots\.ROOT_REPO"):
        load(path, cwd=tmp_path)


def test_an_unknown_mode_is_refused(tmp_path: Path):
    path = write(tmp_path, 'mode = "yolo"\n[roots]\nROOT_REPO = "."\n')

    with pytest.raises(ConfigError, match="mode"):
        load(path, cwd=tmp_path)


def test_a_home_that_is_not_configured_is_refused(tmp_path: Path):
    path = write(tmp_path, 'home = "ROOT_GAME"\n[roots]\nROOT_REPO = "."\n')

    with pytest.raises(ConfigError, match="home"):
        load(path, cwd=tmp_path)


def test_a_wrongly_typed_value_is_refused_not_coerced(tmp_path: Path):
    path = write(tmp_path, "[roots]\nROOT_REPO = 7\n")

    with pytest.raises(ConfigError, match="ROOT_REPO"):
        load(path, cwd=tmp_path)


def test_text_that_is_not_toml_is_refused(tmp_path: Path):
    path = write(tmp_path, "[roots\n")

    with pytest.raises(ConfigError, match="TOML"):
        load(path, cwd=tmp_path)


def test_the_explicit_flag_wins_over_the_environment(tmp_path: Path):
    chosen = config_path("a.toml", {"CK3RAVEN_CONFIG": "b.toml"})

    assert chosen == Path("a.toml")


def test_the_environment_names_the_config_when_no_flag_is_given():
    assert config_path(None, {"CK3RAVEN_CONFIG": "b.toml"}) == Path("b.toml")


def test_the_built_in_default_serves_the_sample_world_in_ck3lens_mode(tmp_path: Path):
    settings = load(None, cwd=tmp_path)

    assert settings.mode is Mode.CK3LENS
    assert settings.roots[RootCategory.ROOT_REPO] == tmp_path.resolve()
    assert RootCategory.ROOT_GAME in settings.roots


def test_the_policy_table_lists_every_matrix_row():
    from app.cli import render_policy
    from domain.policy.capabilities import MATRIX

    table = render_policy()

    assert all(row.rule in table for row in MATRIX)
