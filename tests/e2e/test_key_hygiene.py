"""The Sigil key never leaves the server's memory: not in a reply, a log line, the state folder or the
environment."""

import logging
import os
import subprocess
from pathlib import Path

import pytest
import structlog
from fastmcp import Client

from adapters.hmac_signer import HmacSigner
from adapters.log_setup import configure_logging
from app.bootstrap import build, build_core
from domain.policy import approvals
from tests.worlds import sample_world_on_disk

pytestmark = pytest.mark.anyio
KEY = bytes(range(32))


@pytest.fixture
def logged(tmp_path: Path):
    handlers = logging.root.handlers[:]
    log_file = tmp_path / "ck3raven.log"
    sink = configure_logging(log_file)
    yield log_file, sink
    structlog.reset_defaults()
    logging.root.handlers[:] = handlers
    sink.close()


def read_tree(folder: Path) -> bytes:
    return b"".join(path.read_bytes() for path in folder.rglob("*") if path.is_file())


def traces(key: bytes) -> list[bytes]:
    return [key, key.hex().encode(), key.hex().upper().encode()]


async def test_the_key_is_nowhere_outside_memory(tmp_path: Path, logged, state_home: Path):
    log_file, sink = logged
    settings = sample_world_on_disk(tmp_path)
    core = build_core(settings, signer=HmacSigner(KEY))
    texts: list[str] = []
    async with Client(build(settings, core=core)) as client:
        asked = await client.call_tool(
            "ck3_mode", {"command": "init", "mode": "ck3raven-dev"}, raise_on_error=False
        )
        approvals.human_decision(
            core.services.authority, asked.structured_content["data"]["approval_id"], approve=True
        )
        for args in ({"command": "init", "mode": "ck3raven-dev"}, {"command": "status"}):
            result = await client.call_tool("ck3_mode", args, raise_on_error=False)
            texts.append(result.content[0].text)
        texts.append(asked.content[0].text)

    stored = read_tree(state_home)
    sink.drain()
    logs = log_file.read_bytes()
    everything = b"".join(t.encode() for t in texts) + logs + stored
    environment = "\n".join(f"{k}={v}" for k, v in os.environ.items()).encode()
    assert stored
    assert logs
    assert not any(trace in everything for trace in traces(KEY))
    assert not any(trace in environment for trace in traces(KEY))


async def test_a_program_the_server_runs_is_not_handed_the_key(git_settings, monkeypatch):
    """The linter the server runs at close is a child process: what it inherits (or is given) is checked
    at the moment it is spawned, not the test's own environment afterwards."""
    handed: list[dict[str, str]] = []
    spawn = subprocess.run

    def watched(command, *args, **kwargs):
        handed.append(dict(kwargs.get("env") or os.environ))
        return spawn(command, *args, **kwargs)

    monkeypatch.setattr(subprocess, "run", watched)
    core = build_core(git_settings, signer=HmacSigner(KEY))
    async with Client(build(git_settings, core=core)) as client:
        opened = await client.call_tool("ck3_contract", LINTED_WORK[0], raise_on_error=False)
        assert opened.structured_content["reply_type"] == "S"
        for args in LINTED_WORK[1:]:
            await client.call_tool(*args, raise_on_error=False)

    assert handed  # the linter ran
    everything = "\n".join(f"{k}={v}" for env in handed for k, v in env.items()).encode()
    assert not any(trace in everything for trace in traces(KEY))


LINTED_WORK: list = [
    {
        "command": "open",
        "root_category": "ROOT_REPO",
        "intent": "A helper module",
        "work_declaration": "Add src/b.py",
        "operations": ["WRITE"],
        "targets": [{"path": "ROOT_REPO:/src/b.py", "edit_kind": "add"}],
    },
    ("ck3_file", {"command": "write", "path": "src/b.py", "content": "import os\n"}),
    ("ck3_contract", {"command": "close"}),
]
