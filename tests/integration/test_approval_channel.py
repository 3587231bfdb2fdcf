"""The operator's approval socket: 0600, decisions only from a terminal, and it survives its clients."""

import json
import selectors
import socket
import stat
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from adapters.hmac_signer import HmacSigner
from adapters.sqlite_state import SqliteState
from adapters.system_clock import RandomIds, SystemClock
from adapters.unix_approval_channel import ApprovalChannel, ask
from domain.policy import approvals
from domain.policy.approvals import Authority, State
from tests.terminal import on_terminal

CHECKOUT = Path(__file__).resolve().parents[2]


@pytest.fixture
def state() -> Iterator[Path]:
    # a short path: Unix socket paths are limited to about 100 bytes
    with tempfile.TemporaryDirectory(prefix="ck3r", dir="/tmp") as folder:
        yield Path(folder) / "state"


@pytest.fixture
def authority(state: Path) -> Authority:
    return Authority(SqliteState(state / "ck3raven.db").approvals, SystemClock(), RandomIds(), HmacSigner())


@pytest.fixture
def channel(state: Path, authority: Authority) -> Iterator[Path]:
    path = state / "approvals.sock"
    served = ApprovalChannel(path, authority)
    served.start()
    yield path
    served.close()


def test_the_socket_is_readable_by_its_owner_only(channel):
    assert stat.S_IMODE(channel.stat().st_mode) == 0o600


def test_the_channel_lists_pending_requests(channel, authority):
    record = approvals.request(authority, "mode", b"mode:ck3lens", "Switch to ck3lens")

    answer = ask(channel, {"op": "list"})

    assert [item["approval_id"] for item in answer["pending"]] == [record.approval_id]


_ASK = (
    "import json, sys; from adapters.unix_approval_channel import ask; "
    "print(json.dumps(ask(sys.argv[1], json.loads(sys.argv[2]))))"
)


def ask_from_a_terminal(path: Path, request: dict[str, object]) -> dict[str, object]:
    """Send `request` from a process that has a controlling terminal, as `ck3raven approve` does."""
    status, output = on_terminal([sys.executable, "-c", _ASK, str(path), json.dumps(request)], cwd=CHECKOUT)
    assert status == 0, output
    return json.loads(output.strip().splitlines()[-1])


def test_a_decision_through_the_channel_is_signed_and_stored(channel, authority):
    record = approvals.request(authority, "mode", b"mode:ck3lens", "s")

    answer = ask_from_a_terminal(channel, {"op": "decide", "id": record.approval_id, "approve": True})

    stored = authority.store.get(record.approval_id)
    assert answer == {"ok": True, "state": "approved"}
    assert stored.state == State.APPROVED
    assert approvals.genuine(stored, authority.signer)


def test_a_decision_must_say_true_to_approve(channel, authority):
    record = approvals.request(authority, "mode", b"mode:ck3lens", "s")

    answer = ask_from_a_terminal(channel, {"op": "decide", "id": record.approval_id, "approve": "yes"})

    assert answer["state"] == "declined"


@pytest.mark.parametrize(
    "request_text",
    [b"not json", b'{"op": "list"', b'{"op": "nope"}', b"{}", b"[1]", b"[" * 3000 + b"]" * 3000, b"x" * 9000],
)
def test_a_malformed_request_is_refused_and_the_channel_keeps_serving(channel, request_text):
    with socket.socket(socket.AF_UNIX) as client:
        client.connect(str(channel))
        client.sendall(request_text)
        client.shutdown(socket.SHUT_WR)
        answer = json.loads(client.recv(4096))

    assert answer["ok"] is False
    assert ask(channel, {"op": "list"})["ok"] is True


def test_a_decision_from_a_process_without_a_terminal_decides_nothing(channel, authority):
    record = approvals.request(authority, "mode", b"mode:ck3lens", "s")

    answer = ask(channel, {"op": "decide", "id": record.approval_id, "approve": True})

    assert answer == {"ok": False, "problem": "decisions are taken only from a terminal"}
    assert authority.store.get(record.approval_id).state == State.PENDING


def test_an_idle_client_never_blocks_the_next_one(channel):
    with socket.socket(socket.AF_UNIX) as idle:
        idle.connect(str(channel))  # sends nothing and keeps the connection open

        answer = ask(channel, {"op": "list"})

    assert answer["ok"] is True


@contextmanager
def impatient_channel(state: Path, authority: Authority, read_timeout: float) -> Iterator[Path]:
    """A channel with a short read timeout, for the tests of slow clients."""
    path = state / "impatient.sock"
    served = ApprovalChannel(path, authority, read_timeout=read_timeout)
    served.start()
    try:
        yield path
    finally:
        served.close()


def test_an_idle_client_is_dropped_after_the_read_timeout(state, authority):
    with impatient_channel(state, authority, 0.2) as path, socket.socket(socket.AF_UNIX) as idle:
        idle.connect(str(path))
        idle.settimeout(5)
        ended = idle.recv(4096)

    assert ended == b""


def test_a_client_that_hangs_up_before_its_answer_leaves_the_channel_serving(channel):
    for _ in range(20):
        with socket.socket(socket.AF_UNIX) as rude:
            rude.connect(str(channel))
            rude.sendall(b'{"op": "list"}\n')
            rude.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")

    assert ask(channel, {"op": "list"})["ok"] is True


def test_many_clients_at_once_are_all_answered_or_closed_and_the_channel_survives(channel):
    answers: list[object] = []

    def one() -> None:
        try:
            answers.append(ask(channel, {"op": "list"})["ok"])
        except (OSError, ValueError):
            answers.append("closed")

    threads = [threading.Thread(target=one) for _ in range(30)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(20)
    time.sleep(0.1)

    assert len(answers) == 30
    assert ask(channel, {"op": "list"})["ok"] is True


def test_a_client_trickling_its_request_is_dropped_within_the_read_timeout(state, authority):
    with impatient_channel(state, authority, 0.5) as path, socket.socket(socket.AF_UNIX) as slow:
        slow.connect(str(path))
        slow.settimeout(5)
        ended = b"open"
        for _ in range(100):  # a byte every 0.1 s: each recv alone would never time out
            try:
                slow.sendall(b" ")
            except OSError:  # the server hung up after the last look and before this byte: dropped
                ended = b""
                break
            time.sleep(0.1)
            with selectors.DefaultSelector() as watch:  # no limit on descriptor numbers
                watch.register(slow, selectors.EVENT_READ)
                ready = watch.select(0)
            if ready:
                try:
                    ended = slow.recv(4096)
                except ConnectionResetError:  # hung up with a byte of ours unread: dropped all the same
                    ended = b""
                break

    # dropped while the bytes kept coming, each within 0.1 s (100 of them take 10 s: room for a busy machine)
    assert ended == b""


_ASK_FROM_A_PIPE = (
    "import json, os, sys; from adapters.unix_approval_channel import ask; r, w = os.pipe(); os.dup2(r, 0); "
    "print(json.dumps(ask(sys.argv[1], json.loads(sys.argv[2]))))"
)


def test_a_process_on_a_terminal_whose_input_is_a_pipe_decides_nothing(channel, authority):
    record = approvals.request(authority, "mode", b"mode:ck3lens", "s")
    request = {"op": "decide", "id": record.approval_id, "approve": True}

    status, output = on_terminal(
        [sys.executable, "-c", _ASK_FROM_A_PIPE, str(channel), json.dumps(request)], cwd=CHECKOUT
    )

    assert status == 0, output
    assert json.loads(output.strip().splitlines()[-1])["ok"] is False
    assert authority.store.get(record.approval_id).state == State.PENDING
