"""The linter's identity (its executable's version and SHA-256) is worked out once per server however many
contracts open at once, read in chunks rather than whole, and again only when the executable changes."""

import hashlib
import threading
import tracemalloc
from pathlib import Path

from adapters.ruff_linter import RuffLinter

PADDING = 24 * 1024 * 1024
"""About the size of the ruff executable."""


def _executable(folder: Path, *, padding: int = 0) -> tuple[Path, Path]:
    """A stand-in for ruff that notes each `--version` it answers in a file; padded to `padding` bytes."""
    runs = folder / "runs"
    binary = folder / "ruff"
    script = f'#!/bin/sh\necho run >> "{runs}"\necho "ruff 9.9.9"\nexit 0\n'
    binary.write_bytes(script.encode() + b"#" * max(0, padding - len(script)) + b"\n")
    binary.chmod(0o755)
    return binary, runs


def test_eight_contracts_opening_at_once_work_out_the_linters_identity_once(tmp_path: Path):
    binary, runs = _executable(tmp_path)
    linter = RuffLinter(tmp_path / "lint-ruleset.json", binary=binary)
    start = threading.Barrier(8)
    seen: list[dict[str, object]] = []

    def open_one() -> None:
        start.wait()
        seen.append(linter.ruleset())

    threads = [threading.Thread(target=open_one) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert runs.read_text().splitlines() == ["run"]
    assert len(seen) == 8
    assert {(s["version"], s["sha256"]) for s in seen} == {
        ("ruff 9.9.9", hashlib.sha256(binary.read_bytes()).hexdigest())
    }


def test_the_executable_is_hashed_in_chunks_never_read_whole(tmp_path: Path):
    binary, _ = _executable(tmp_path, padding=PADDING)
    linter = RuffLinter(tmp_path / "lint-ruleset.json", binary=binary)

    tracemalloc.start()
    try:
        linter.ruleset()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()

    assert peak < PADDING // 8


def test_a_changed_executable_is_worked_out_again(tmp_path: Path):
    binary, runs = _executable(tmp_path)
    linter = RuffLinter(tmp_path / "lint-ruleset.json", binary=binary)
    before = linter.ruleset()
    _executable(tmp_path, padding=4096)

    after = linter.ruleset()

    assert runs.read_text().splitlines() == ["run", "run"]
    assert before["sha256"] != after["sha256"]
