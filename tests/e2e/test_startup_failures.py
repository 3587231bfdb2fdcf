"""A server that cannot start says why in one line and exits 2: never a traceback."""

import subprocess
from pathlib import Path

import pytest

from tests.e2e.stdio import CK3RAVEN, write_config

pytestmark = pytest.mark.e2e


def serve(config: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [CK3RAVEN, "serve", "--config", str(config)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        stdin=subprocess.DEVNULL,
        cwd=config.parent,
    )


@pytest.fixture
def config(tmp_path: Path) -> Path:
    (tmp_path / "repo").mkdir()
    return write_config(tmp_path, roots={"ROOT_REPO": tmp_path / "repo"})


def test_a_log_file_that_cannot_be_written_stops_the_server_with_one_line(config: Path):
    (config.parent / "state" / "logs" / "ck3raven.log").mkdir(parents=True)
    log = config.parent / "state" / "logs" / "ck3raven.log"

    done = serve(config)

    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        f"ck3raven: the log file {log} cannot be written (Is a directory)"
    ]


def test_a_state_database_that_is_not_one_stops_the_server_with_one_line(config: Path):
    (config.parent / "state").mkdir()
    (config.parent / "state" / "ck3raven.db").write_bytes(b"not a database at all" * 100)

    done = serve(config)

    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    database = config.parent / "state" / "ck3raven.db"
    assert f"cannot start: the state database {database} cannot be opened" in done.stderr


def test_a_state_directory_that_is_a_file_stops_the_server_with_one_line(tmp_path: Path):
    (tmp_path / "repo").mkdir()
    config = write_config(tmp_path, roots={"ROOT_REPO": tmp_path / "repo"})
    (tmp_path / "state").write_text("not a folder", encoding="utf-8")

    done = serve(config)

    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert done.stderr.startswith("ck3raven: ")
