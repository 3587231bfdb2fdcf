"""`ck3raven token add NAME | list | revoke NAME`: a token shown once, only its hash kept, names checked."""

from pathlib import Path

import pytest

from adapters.sqlite_state import SqliteState
from app.cli import main
from tests.e2e.stdio import write_config


@pytest.fixture
def config(tmp_path: Path) -> Path:
    (tmp_path / "repo").mkdir()
    return write_config(tmp_path, roots={"ROOT_REPO": tmp_path / "repo"})


def test_a_token_is_shown_once_listed_by_name_and_revoked(config: Path, capsys):
    assert main(["token", "add", "editor", "--config", str(config)]) == 0
    token = capsys.readouterr().out.splitlines()[0].split(": ")[1]
    assert main(["token", "add", "editor", "--config", str(config)]) == 1
    assert capsys.readouterr().err == "ck3raven: a client named 'editor' exists already\n"
    assert main(["token", "revoke", "editor", "--config", str(config)]) == 0
    assert main(["token", "list", "--config", str(config)]) == 0
    listed = capsys.readouterr().out
    kept = SqliteState(config.parent / "state" / "ck3raven.db").execute("SELECT * FROM http_clients")

    assert "editor" in listed
    assert "revoked" in listed
    assert token not in repr(kept)


@pytest.mark.parametrize("name", ["operator", "two words", "../x", ""])
def test_a_name_that_cannot_be_shown_plainly_is_refused(config: Path, capsys, name: str):
    status = main(["token", "add", name, "--config", str(config)])

    assert status in {1, 2}
    assert capsys.readouterr().out == ""
