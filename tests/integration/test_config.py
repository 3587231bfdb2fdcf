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


def test_without_a_config_nothing_is_served_and_the_refusal_says_where_it_looked(tmp_path: Path):
    with pytest.raises(ConfigError, match=r"CK3RAVEN_CONFIG.*ck3raven init"):
        load(None, cwd=tmp_path)


def overlapping_config(tmp_path: Path, roots: dict[str, str], state: str = "state") -> Path:
    lines = [f'state_dir = "{state}"', "[roots]", *(f'{name} = "{path}"' for name, path in roots.items())]
    for path in roots.values():
        (tmp_path / path).mkdir(parents=True, exist_ok=True)
    config = tmp_path / "config.toml"
    config.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return config


def test_a_root_inside_another_is_refused_naming_both(tmp_path: Path):
    config = overlapping_config(tmp_path, {"ROOT_REPO": "repo", "ROOT_CK3RAVEN_DATA": "repo/data"})

    with pytest.raises(ConfigError, match=r"roots\.ROOT_CK3RAVEN_DATA .* lies inside roots\.ROOT_REPO"):
        load(config, cwd=tmp_path)


def test_a_root_holding_the_state_directory_is_refused(tmp_path: Path):
    config = overlapping_config(tmp_path, {"ROOT_REPO": "repo"}, state="repo/.state")

    with pytest.raises(ConfigError, match=r"state_dir .* lies inside roots\.ROOT_REPO"):
        load(config, cwd=tmp_path)


def test_a_root_configured_through_a_link_into_another_root_counts_as_overlap(tmp_path: Path):
    config = overlapping_config(tmp_path, {"ROOT_REPO": "repo", "ROOT_GAME": "game"})
    (tmp_path / "repo" / "game").mkdir()
    (tmp_path / "game-link").symlink_to(tmp_path / "repo" / "game")
    config.write_text(config.read_text().replace('"game"', '"game-link"'), encoding="utf-8")

    with pytest.raises(ConfigError, match="ROOT_GAME"):
        load(config, cwd=tmp_path)


def test_disjoint_roots_and_state_directory_are_accepted(tmp_path: Path):
    config = overlapping_config(tmp_path, {"ROOT_REPO": "repo", "ROOT_GAME": "game"})

    assert set(load(config, cwd=tmp_path).roots) == {RootCategory.ROOT_REPO, RootCategory.ROOT_GAME}


def test_the_policy_table_lists_every_matrix_row():
    from app.law_tables import render_policy
    from domain.policy.capabilities import MATRIX

    table = render_policy()

    assert all(row.rule in table for row in MATRIX)


def test_rate_limits_and_read_only_are_read_from_the_config(tmp_path: Path):
    (tmp_path / "repo").mkdir()
    text = 'read_only = true\n[roots]\nROOT_REPO = "repo"\n'
    text += "[limits]\nreads_per_minute = 30\nmutations_per_minute = 3\n"

    settings = load(write(tmp_path, text), cwd=tmp_path)

    assert (settings.read_only, settings.limits.reads_per_minute, settings.limits.mutations_per_minute) == (
        True,
        30,
        3,
    )


def test_a_negative_rate_limit_is_refused(tmp_path: Path):
    (tmp_path / "repo").mkdir()
    text = '[roots]\nROOT_REPO = "repo"\n[limits]\nmutations_per_minute = -1\n'

    with pytest.raises(ConfigError, match="limits"):
        load(write(tmp_path, text), cwd=tmp_path)


def test_the_reply_budget_is_32_kib_unless_the_operator_sets_it(tmp_path: Path):
    (tmp_path / "repo").mkdir()
    plain = write(tmp_path, '[roots]\nROOT_REPO = "repo"\n')
    assert load(plain, cwd=tmp_path).budget_kib == 32

    tuned = write(tmp_path, '[roots]\nROOT_REPO = "repo"\n[replies]\nbudget_kib = 10\n')
    assert load(tuned, cwd=tmp_path).budget_kib == 10


def test_a_reply_budget_too_small_to_hold_an_envelope_is_refused(tmp_path: Path):
    (tmp_path / "repo").mkdir()
    path = write(tmp_path, '[roots]\nROOT_REPO = "repo"\n[replies]\nbudget_kib = 1\n')

    with pytest.raises(ConfigError, match=r"replies\.budget_kib"):
        load(path, cwd=tmp_path)


def test_a_config_that_is_not_utf8_stops_serve_with_one_line_and_exit_2(tmp_path: Path, capsys):
    from app.cli import main

    path = tmp_path / "config.toml"
    path.write_bytes(b'home = "ROOT_REPO"\n# caf\xe9\n')

    status = main(["serve", "--config", str(path)])

    assert status == 2
    assert capsys.readouterr().err == f"ck3raven: {path}: not UTF-8 text (byte 24)\n"


@pytest.mark.parametrize("port", [0, 99999])
def test_a_port_out_of_range_in_the_config_is_named(tmp_path: Path, port: int):
    (tmp_path / "repo").mkdir()
    path = write(tmp_path, f'home = "ROOT_REPO"\n[roots]\nROOT_REPO = "repo"\n[http]\nport = {port}\n')

    with pytest.raises(ConfigError, match=f"http.port: {port} is not a port"):
        load(path, cwd=tmp_path)


def test_a_relative_xdg_state_home_is_ignored(tmp_path: Path):
    (tmp_path / "repo").mkdir()
    settings = load(write(tmp_path, 'home = "ROOT_REPO"\n[roots]\nROOT_REPO = "repo"\n'), cwd=tmp_path)

    relative = settings.state_path({"XDG_STATE_HOME": "state", "HOME": str(tmp_path)})
    absolute = settings.state_path({"XDG_STATE_HOME": str(tmp_path / "xdg"), "HOME": str(tmp_path)})

    assert relative == Path("~/.local/state/ck3raven").expanduser()
    assert absolute == tmp_path / "xdg" / "ck3raven"
