"""mcpfuzz, a scanner that sends exploit payloads to an MCP server, run over stdio against `ck3raven serve`
on a scratch copy of the sample world, once for the module; each test checks one thing mcpfuzz reports or
one thing the server must hold for every call mcpfuzz made.

mcpfuzz needs the mcp 1.x SDK, so it lives in a venv of its own that `make fuzzers` builds from
tests/mcpfuzz/requirements.txt; without that venv these tests skip (in CI, where CI=true, they fail
instead). mcpfuzz takes no seed: its payloads are fixed lists (only its tokens and ids are random),
pinned with its version, and tests/mcpfuzz/run.py bounds the run. The server's stdio passes through
tests/mcpfuzz/tap.py, which keeps every message of each direction and how the server ended.
"""

import contextlib
import hashlib
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from adapters.wire import ENVELOPE_SCHEMA
from domain.replies.registry import REGISTRY
from tests.e2e.stdio import CK3RAVEN

FUZZ = Path(__file__).resolve().parents[1] / "mcpfuzz"
FUZZ_PYTHON = FUZZ / ".venv" / "bin" / "python"
INSTALL = "make fuzzers"

IN_CI = os.environ.get("CI", "").lower() in {"1", "true", "yes"}
pytestmark = [
    pytest.mark.e2e,
    # In CI a missing install fails (the `scan` fixture says so) rather than skipping silently.
    pytest.mark.skipif(
        not FUZZ_PYTHON.exists() and not IN_CI, reason=f"mcpfuzz is not installed: run `{INSTALL}`"
    ),
]

SCAN_SECONDS = 180  # a hung scan fails here; a whole scan takes about 20 s
EXIT_SECONDS = 30  # how long the server may take to exit once its input is closed
# mcpfuzz's template-injection check: the payloads and the values a template engine would render them to.
TEMPLATES = {"{{7*7}}": "49", "<%= 7*7 %>": "49", "${7*7}": "49", "{{7*'7'}}": "7777777"}
TEMPLATE_FINDING = "CVE-2025-53521: SSTI"
TIMED_OUT = re.compile(r"\] TIMEOUT")
ABOVE_INFO = {"critical", "high", "medium", "low"}


@dataclass(frozen=True)
class Call:
    tool: str
    arguments: dict[str, Any]
    answers: list[dict[str, Any]]
    """Every JSON-RPC response the server wrote with this call's id (one, when all is well)."""

    def envelope(self) -> dict[str, Any]:
        """The structured envelope of the one answer ({} when there is not exactly one result)."""
        results = [answer["result"] for answer in self.answers if "result" in answer]
        if len(results) != 1:
            return {}
        structured: dict[str, Any] = results[0].get("structuredContent") or {}
        return structured


@dataclass(frozen=True)
class Scan:
    status: int
    console: str
    report: dict[str, Any]
    calls: list[Call]
    tools: list[dict[str, Any]]
    stdout: bytes
    end: dict[str, Any] | None
    log: list[str]
    """The server's own log lines (its state directory's logs/)."""
    base: Path
    before: dict[str, str]
    after: dict[str, str]


def on_disk(folder: Path) -> dict[str, str]:
    return {
        str(path.relative_to(folder)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


def run_mcpfuzz(base: Path, config: Path, tap: Path) -> subprocess.CompletedProcess[str]:
    """`mcpfuzz scan` over stdio with every module, failing on any confirmed finding of low severity or
    more; the server is `ck3raven serve`, behind the tap. HOME is scratch (mcpfuzz keeps ~/.mcpfuzz)."""
    tapped = [sys.executable, str(FUZZ / "tap.py"), str(tap), "--"]
    server = shlex.join([*tapped, CK3RAVEN, "serve", "--config", str(config)])
    options = ["--output", "json", "--out", str(base / "report.json"), "--poc-dir", str(base / "poc")]
    options += ["--fail-on", "low", "--timeout", "10"]
    home = base / "home"
    home.mkdir()
    mcpfuzz = [str(FUZZ_PYTHON), str(FUZZ / "run.py"), "scan", "--transport", "stdio"]
    return subprocess.run(
        [*mcpfuzz, "--server", server, *options],
        capture_output=True,
        text=True,
        timeout=SCAN_SECONDS,
        check=False,
        cwd=base,
        stdin=subprocess.DEVNULL,
        env={"PATH": os.environ.get("PATH", os.defpath), "HOME": str(home), "LANG": "C.UTF-8"}
        | {"COLUMNS": "200", "PYTHONHASHSEED": "0", "PYTHONDONTWRITEBYTECODE": "1"},
    )


def messages(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_bytes().splitlines() if line.strip()]


def calls_made(sent: list[dict[str, Any]], answered: list[dict[str, Any]]) -> list[Call]:
    responses = [m for m in answered if "id" in m and "method" not in m]
    return [
        Call(
            request["params"]["name"],
            request["params"].get("arguments") or {},
            [response for response in responses if response["id"] == request["id"]],
        )
        for request in sent
        if request.get("method") == "tools/call"
    ]


def listed_tools(sent: list[dict[str, Any]], answered: list[dict[str, Any]]) -> list[dict[str, Any]]:
    ids = {m["id"] for m in sent if m.get("method") == "tools/list"}
    return [tool for m in answered if m.get("id") in ids and "result" in m for tool in m["result"]["tools"]]


def server_end(tap: Path) -> dict[str, Any] | None:
    """How the server ended, as the tap recorded it; None when it has not exited EXIT_SECONDS after
    mcpfuzz finished."""
    deadline = time.monotonic() + EXIT_SECONDS
    while not (tap / "end").exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    if not (tap / "end").exists():
        return None
    end: dict[str, Any] = json.loads((tap / "end").read_text(encoding="utf-8"))
    return end


def stop_server(tap: Path) -> None:
    """Kill the server the tap started, if it is still running (no end recorded)."""
    if (tap / "pid").exists() and not (tap / "end").exists():
        with contextlib.suppress(ProcessLookupError):
            os.kill(int((tap / "pid").read_text(encoding="utf-8")), signal.SIGKILL)


def scanned(base: Path) -> Scan:
    """A scratch sample world under `base`, mcpfuzz's scan of its server, and what each side recorded."""
    made = subprocess.run(
        [CK3RAVEN, "init", "--sample", str(base / "sample")], capture_output=True, check=False
    )
    assert made.returncode == 0, made.stderr.decode(errors="replace")
    world, tap, report = base / "sample" / "world", base / "tap", base / "report.json"
    before = on_disk(world)
    done = run_mcpfuzz(base, base / "sample" / "config.toml", tap)
    console = done.stdout + done.stderr
    assert report.is_file(), f"mcpfuzz wrote no report (exit {done.returncode}):\n{console}"
    sent, answered = messages(tap / "in"), messages(tap / "out")
    logs = sorted((base / "sample" / "state").rglob("*.log"))
    return Scan(
        status=done.returncode,
        console=console,
        report=json.loads(report.read_text(encoding="utf-8")),
        calls=calls_made(sent, answered),
        tools=listed_tools(sent, answered),
        stdout=(tap / "out").read_bytes(),
        end=server_end(tap),
        log=[line for log in logs for line in log.read_text(encoding="utf-8").splitlines()],
        base=base,
        before=before,
        after=on_disk(world),
    )


@pytest.fixture(scope="module")
def scan() -> Iterator[Scan]:
    assert FUZZ_PYTHON.exists(), f"mcpfuzz is not installed: run `{INSTALL}`"
    base = Path(tempfile.mkdtemp(prefix="ck3fz", dir="/tmp"))
    try:
        yield scanned(base)
    finally:
        stop_server(base / "tap")
        shutil.rmtree(base, ignore_errors=True)


def test_mcpfuzz_scans_every_listed_tool_and_runs_every_module_to_its_end(scan):
    """Exit 2 is a scan that failed; a module error or time-out would leave part of the scan undone."""
    failed = [
        f"{f['module_id']}: {f['description']}" for f in scan.report["findings"] if f["status"] == "error"
    ]

    assert scan.status in {0, 1}, scan.console[-4000:]
    assert scan.report["summary"]["tools_discovered"] == len(scan.tools) > 0
    assert not failed, failed
    assert not TIMED_OUT.search(scan.console), scan.console[-4000:]


def test_mcpfuzz_reports_no_finding_above_info_but_for_its_template_check(scan):
    """mcpfuzz's template-injection check counts a reply as evaluated when "49" is anywhere in its text,
    and every envelope carries a random hexadecimal trace id: test_no_template_expression_is_evaluated
    makes that check without the envelope's meta."""
    findings = [
        f"{f['status']} {f['severity']} {f['module_id']} {f['tool_name']}: {f['title']} ({f['payload_used']})"
        for f in scan.report["findings"]
        if f["severity"] in ABOVE_INFO and not f["title"].startswith(TEMPLATE_FINDING)
    ]

    assert not findings, "\n".join(findings)


def test_no_template_expression_is_evaluated(scan):
    templated = [
        (call, TEMPLATES[value])
        for call in scan.calls
        for value in call.arguments.values()
        if isinstance(value, str) and value in TEMPLATES
    ]

    evaluated = [
        (call.tool, call.arguments)
        for call, rendered in templated
        if rendered in json.dumps({k: v for k, v in call.envelope().items() if k != "meta"})
    ]

    assert templated, "mcpfuzz sent no template expression"
    assert not evaluated, evaluated


def test_every_call_gets_exactly_one_envelope_with_a_registered_code(scan):
    """One JSON-RPC result per call, one text content whose JSON is the structured envelope, and the code's
    TYPE letter is the envelope's reply_type."""
    wrong = []
    for call in scan.calls:
        if len(call.answers) != 1 or "result" not in call.answers[0]:
            wrong.append((call.tool, call.arguments, call.answers))
            continue
        result = call.answers[0]["result"]
        envelope = result.get("structuredContent") or {}
        texts = [json.loads(item["text"]) for item in result["content"] if item["type"] == "text"]
        if (
            texts != [envelope]
            or set(envelope) != set(ENVELOPE_SCHEMA["required"])
            or envelope["code"] not in REGISTRY
            or envelope["code"].split("-")[2] != envelope["reply_type"]
        ):
            wrong.append((call.tool, call.arguments, result))

    assert scan.calls, "mcpfuzz made no call"
    assert not wrong, wrong[:5]


def test_no_reply_is_an_error(scan):
    """No fault is injected here: an Error reply would be a crash that mcpfuzz's input provoked. The
    message shows each such call with the server's log lines for its trace id."""
    errors = [
        (
            call.tool,
            call.arguments,
            envelope,
            [line for line in scan.log if envelope["meta"]["trace_id"] in line],
        )
        for call in scan.calls
        if (envelope := call.envelope()).get("reply_type") == "E"
    ]

    assert not errors, errors[:3]


def test_no_host_path_of_the_world_appears_on_the_servers_stdout(scan):
    host = str(scan.base).encode()
    escaped = json.dumps(str(scan.base))[1:-1].encode()

    leaked = [line for line in scan.stdout.splitlines() if host in line or escaped in line]

    assert not leaked, leaked[:3]


def test_the_server_exits_cleanly_when_mcpfuzz_closes_its_input(scan):
    """Status 0, on its own, after the end of its input (the tap records the exit even when the client
    kills what it started)."""
    assert scan.end is not None, f"the server had not exited {EXIT_SECONDS} s after mcpfuzz finished"
    assert (scan.end["status"], scan.end["after_end_of_input"]) == (0, True), scan.end


def test_the_world_on_disk_is_unchanged_when_every_mutation_was_refused(scan):
    mutating = {
        tool["name"] for tool in scan.tools if not (tool.get("annotations") or {}).get("readOnlyHint")
    }
    succeeded = [
        (c.tool, c.arguments)
        for c in scan.calls
        if c.tool in mutating and c.envelope().get("reply_type") == "S"
    ]

    assert mutating, "the server listed no mutating tool"
    assert not succeeded, f"this test compares the world only when every mutation is refused: {succeeded}"
    assert scan.after == scan.before
