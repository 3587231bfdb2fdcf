"""Real MCP clients against `ck3raven serve`: the MCP conformance runner over HTTP in both protocol eras,
MCP Inspector's CLI over stdio and over HTTP with the bearer token, and the TypeScript SDK over stdio.

The clients are pinned in tests/clients/package.json (with a Node.js 22 runtime from the npm registry, as
they need one) and installed by `npm ci --prefix tests/clients`; without tests/clients/node_modules these
tests skip. Each tool is called with the arguments of tests/clients/tool_calls.json; the conformance
runner's expected failures are tests/clients/conformance-baseline.txt, one justified line per check.
"""

import json
import os
import re
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.stdio import CK3RAVEN, write_config

CLIENTS = Path(__file__).resolve().parents[1] / "clients"
MODULES = CLIENTS / "node_modules"
INSTALL = "npm ci --prefix tests/clients"

IN_CI = os.environ.get("CI", "").lower() in {"1", "true", "yes"}
pytestmark = [
    pytest.mark.e2e,
    # In CI a missing install fails (the `node` fixture says so) rather than skipping silently.
    pytest.mark.skipif(
        not MODULES.is_dir() and not IN_CI, reason=f"the real MCP clients are not installed: run `{INSTALL}`"
    ),
]

CALLS: list[dict[str, Any]] = json.loads((CLIENTS / "tool_calls.json").read_text(encoding="utf-8"))["calls"]
TOOLS = [call["tool"] for call in CALLS]
RUNNERS = {  # protocol era -> the conformance runner and how it picks that era's scenarios
    "2025-11-25": (MODULES / "@modelcontextprotocol" / "conformance" / "dist" / "index.js", []),
    "2026-07-28": (MODULES / "conformance-2026" / "dist" / "index.js", ["--requirements", "2026-07-28"]),
}
INSPECTOR = MODULES / "@modelcontextprotocol" / "inspector" / "clients" / "launcher" / "build" / "index.js"
FAILING = {"FAILURE", "WARNING"}
RESULT_DIR = re.compile(r"^server-(?P<scenario>.+)-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z$")
RAN = re.compile(r"^=== Running scenario: (?P<scenario>\S+) ===$", re.MULTILINE)
INSPECTOR_ERA = {"2025-11-25": "legacy", "2026-07-28": "modern"}
TOOL_IS_ERROR = 5  # Inspector's exit status when the tool answered isError: true


# ------------------------------------------------------------------------------------------------ fixtures


@pytest.fixture(scope="module")
def node() -> str:
    """Node.js 22 from tests/clients (the clients need it; CI's own Node.js may be older), else PATH's."""
    assert MODULES.is_dir(), f"the real MCP clients are not installed: run `{INSTALL}`"
    bundled = MODULES / ".bin" / "node"
    program = str(bundled) if bundled.exists() else shutil.which("node") or "node"
    version = subprocess.run([program, "--version"], capture_output=True, text=True, check=True).stdout
    major, minor = (int(part) for part in version.strip().lstrip("v").split(".")[:2])
    assert (major, minor) >= (22, 19), f"{program} is Node.js {version.strip()}; the clients need 22.19+"
    return program


@pytest.fixture(scope="module")
def base() -> Iterator[Path]:
    """A short folder (the approval socket lives under each state directory, and socket paths are short):
    a git repository with README.md committed, a data root, and one folder per server."""
    from dulwich import porcelain

    folder = Path(tempfile.mkdtemp(prefix="ck3rc", dir="/tmp"))
    repo = folder / "repo"
    repo.mkdir()
    (folder / "data").mkdir()
    (repo / "README.md").write_text("# a repository served to real MCP clients\n", encoding="utf-8")
    porcelain.init(str(repo))
    porcelain.add(str(repo), paths=[str(repo / "README.md")])
    porcelain.commit(str(repo), message=b"first", author=b"T <t@x>", committer=b"T <t@x>")
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def config_for(base: Path, name: str) -> Path:
    """A ck3raven-dev config serving base's repository and data root, with its own state directory."""
    folder = base / name
    folder.mkdir()
    return write_config(folder, roots={"ROOT_REPO": base / "repo", "ROOT_CK3RAVEN_DATA": base / "data"})


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_for(port: int, process: subprocess.Popen[Any], seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        assert process.poll() is None, f"the server exited with status {process.returncode}"
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise TimeoutError(f"nothing listened on port {port}")


@dataclass(frozen=True)
class Served:
    url: str
    token: str
    token_file: Path
    port: int


@pytest.fixture(scope="module")
def served(base: Path) -> Iterator[Served]:
    """One `ck3raven serve --transport http` for the module, on a free loopback port."""
    config = config_for(base, "http")
    port = free_port()
    log = (config.parent / "server.log").open("wb")
    server = subprocess.Popen(
        [CK3RAVEN, "serve", "--config", str(config), "--transport", "http", "--port", str(port)],
        stdin=subprocess.DEVNULL,
        stdout=log,
        stderr=subprocess.STDOUT,
        cwd=config.parent,
    )
    try:
        wait_for(port, server)
        token_file = config.parent / "state" / "http_token"
        token = token_file.read_text(encoding="utf-8").strip()
        yield Served(f"http://127.0.0.1:{port}/mcp", token, token_file, port)
    finally:
        server.terminate()
        server.wait(timeout=20)
        log.close()


@pytest.fixture(scope="module")
def proxied(node: str, served: Served) -> Iterator[str]:
    """The server's URL behind tests/clients/bearer_proxy.mjs, which adds the bearer token: the conformance
    runner has no option for request headers. Host and Origin pass through untouched."""
    with subprocess.Popen(
        [node, str(CLIENTS / "bearer_proxy.mjs"), str(served.port), str(served.token_file)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        text=True,
    ) as proxy:
        try:
            assert proxy.stdout is not None
            first = proxy.stdout.readline().split()
            assert first[:1] == ["listening"], f"the proxy did not start: {first}"
            yield f"http://127.0.0.1:{first[1]}/mcp"
        finally:
            proxy.terminate()


# ------------------------------------------------------------------------------------ conformance runner


@dataclass(frozen=True)
class Conformance:
    failing: dict[tuple[str, str], str]
    """(scenario, check id) -> status and message, for every FAILURE or WARNING check that counts."""
    output: str


def baseline(era: str) -> dict[tuple[str, str], str]:
    """The expected failures of `era`: (scenario, check id) -> why."""
    expected = {}
    for line in (CLIENTS / "conformance-baseline.txt").read_text(encoding="utf-8").splitlines():
        fields = line.split()
        if len(fields) >= 3 and not line.startswith("#") and fields[0] == era:
            expected[fields[1], fields[2]] = " ".join(fields[3:])
    return expected


def scored(node: str, era: str) -> set[str] | None:
    """The scenarios `era`'s requirement set scores (None: every scenario the runner ran counts)."""
    runner, selection = RUNNERS[era]
    if not selection:
        return None
    listing = subprocess.run(
        [node, str(runner), "list", "--server", *selection], capture_output=True, text=True, check=True
    ).stdout
    server_part = listing.split("Server scenarios", 1)[1].split("\n\n", 1)[0]
    return set(re.findall(r"^\s+- (\S+)$", server_part, re.MULTILINE))


def run_conformance(node: str, url: str, era: str, results: Path) -> Conformance:
    runner, selection = RUNNERS[era]
    results.mkdir()
    done = subprocess.run(
        [node, str(runner), "server", "--url", url, *selection, "--output-dir", str(results)],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    output = done.stdout + done.stderr
    counted = scored(node, era)
    failing = {}
    found = set()
    for folder in results.iterdir():
        named = RESULT_DIR.fullmatch(folder.name)
        assert named, f"an unexpected result folder: {folder}"
        scenario = named["scenario"]
        found.add(scenario)
        if counted is not None and scenario not in counted:
            continue
        for check in json.loads((folder / "checks.json").read_text(encoding="utf-8")):
            if check["status"] in FAILING:
                failing[scenario, check["id"]] = f"{check['status']}: {check.get('errorMessage', '')}"
    for scenario in set(RAN.findall(output)) - found:  # a scenario that crashed leaves no checks.json
        if counted is None or scenario in counted:
            failing[scenario, scenario] = "FAILURE: the scenario crashed (no checks.json)"
    assert found, f"the conformance runner ran no scenario:\n{output[-4000:]}"
    return Conformance(failing, output)


@pytest.fixture(scope="module")
def conformance(node: str, proxied: str, base: Path) -> Callable[[str], Conformance]:
    """The conformance runner's results for a protocol era, run once per era against the module's server."""
    runs: dict[str, Conformance] = {}

    def results(era: str) -> Conformance:
        if era not in runs:
            runs[era] = run_conformance(node, proxied, era, base / f"conformance-{era}")
        return runs[era]

    return results


@pytest.mark.parametrize("era", RUNNERS)
def test_the_conformance_runner_finds_no_failing_check_beyond_the_baseline(conformance, era):
    run = conformance(era)
    expected = baseline(era)

    unexpected = {key: why for key, why in run.failing.items() if key not in expected}

    assert not unexpected, (
        "failing conformance checks not in tests/clients/conformance-baseline.txt:\n"
        + "\n".join(
            f"  {era} {scenario} {check}: {why}" for (scenario, check), why in sorted(unexpected.items())
        )
    )


@pytest.mark.parametrize("era", RUNNERS)
def test_every_baselined_conformance_check_still_fails(conformance, era):
    run = conformance(era)

    stale = sorted(key for key in baseline(era) if key not in run.failing)

    assert not stale, "baseline entries that no longer fail (remove them):\n" + "\n".join(
        f"  {era} {scenario} {check}" for scenario, check in stale
    )


def test_every_conformance_baseline_entry_says_why():
    lines = (CLIENTS / "conformance-baseline.txt").read_text(encoding="utf-8").splitlines()
    entries = [line for line in lines if line.strip() and not line.startswith("#")]

    unexplained = [line for line in entries if len(line.split()) < 4 or line.split()[0] not in RUNNERS]

    assert not unexplained, f"each entry is ERA SCENARIO CHECK-ID and a reason: {unexplained}"


# ------------------------------------------------------------------------------------ MCP Inspector's CLI


@dataclass(frozen=True)
class Inspected:
    status: int
    stdout: str
    stderr: str

    def result(self) -> dict[str, Any]:
        answer: dict[str, Any] = json.loads(self.stdout)
        return dict(answer.get("result", answer))


def inspector(node: str, home: Path, *arguments: str) -> Inspected:
    """`inspector --cli --format json ARGUMENTS`, with HOME at `home` (Inspector keeps ~/.mcp-inspector)."""
    done = subprocess.run(
        [node, str(INSPECTOR), "--cli", "--format", "json", "--connect-timeout", "60000", *arguments],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        stdin=subprocess.DEVNULL,
        env={**os.environ, "HOME": str(home)},
    )
    return Inspected(done.returncode, done.stdout, done.stderr)


def stdio_target(config: Path) -> list[str]:
    return ["--cwd", str(config.parent), "--", CK3RAVEN, "serve", "--config", str(config)]


def call_arguments(call: dict[str, Any]) -> list[str]:
    return [
        "--method",
        "tools/call",
        "--tool-name",
        call["tool"],
        "--tool-args-json",
        json.dumps(call["arguments"]),
    ]


def assert_answers_as_planned(call: dict[str, Any], inspected: Inspected) -> None:
    """Inspector got the envelope tool_calls.json plans: S with exit 0, or a clean I with isError (exit 5)."""
    want_error = call["reply_type"] != "S"
    detail = (
        f"exit {inspected.status}\nstdout: {inspected.stdout[-3000:]}\nstderr: {inspected.stderr[-3000:]}"
    )
    assert inspected.status == (TOOL_IS_ERROR if want_error else 0), detail
    result = inspected.result()
    envelope = result["structuredContent"]
    assert json.loads(result["content"][0]["text"]) == envelope
    assert (envelope["reply_type"], envelope["meta"]["tool"]) == (call["reply_type"], call["tool"]), detail
    assert result.get("isError", False) is want_error


@pytest.fixture(scope="module")
def strict_listing(node: str, base: Path) -> Inspected:
    """`inspector --cli --method tools/list --strict` over stdio."""
    return inspector(
        node, base, "--method", "tools/list", "--strict", *stdio_target(config_for(base, "strict"))
    )


@pytest.fixture(scope="module")
def stdio_calls(node: str, base: Path) -> dict[str, Inspected]:
    """Each planned call made by Inspector over stdio, each from its own server (Inspector's CLI starts one
    per call, and one server serves one state directory); four at a time."""
    configs = {call["tool"]: config_for(base, f"stdio-{call['tool']}") for call in CALLS}
    with ThreadPoolExecutor(max_workers=4) as pool:
        futures = {
            call["tool"]: pool.submit(
                inspector, node, base, *call_arguments(call), *stdio_target(configs[call["tool"]])
            )
            for call in CALLS
        }
        return {tool: future.result() for tool, future in futures.items()}


def test_inspector_lists_every_planned_tool_over_stdio(strict_listing):
    assert strict_listing.status == 0, strict_listing.stderr[-3000:]

    listed = [tool["name"] for tool in strict_listing.result()["tools"]]

    assert sorted(listed) == sorted(TOOLS)


def test_inspector_strict_finds_no_schema_portability_problem_in_any_tool(strict_listing):
    """--strict prints each finding (and then a count) on stderr, and nothing when there is none."""
    stderr = strict_listing.stderr
    findings = re.findall(
        r'^(?:Warning|Error): tool "(.+)"\n\s+Path: (.+)\n\s+Issue: (.+)$', stderr, re.MULTILINE
    )
    summary = re.search(r"^\d+ errors?, \d+ warnings? across .*$", stderr, re.MULTILINE)

    assert strict_listing.status == 0, stderr[-3000:]
    assert not findings, f"Inspector --strict: {summary[0] if summary else ''}\n" + "\n".join(
        f"  {tool} {path}: {issue.split('. ')[0]}" for tool, path, issue in findings
    )
    assert not summary, stderr[-3000:]


@pytest.mark.parametrize("call", CALLS, ids=TOOLS)
def test_inspector_calls_the_tool_over_stdio_and_gets_the_planned_envelope(stdio_calls, call):
    assert_answers_as_planned(call, stdio_calls[call["tool"]])


@pytest.mark.parametrize("era", INSPECTOR_ERA)
@pytest.mark.parametrize("call", CALLS, ids=TOOLS)
def test_inspector_calls_the_tool_over_http_with_the_bearer_token_and_gets_the_planned_envelope(
    node, base, served, era, call
):
    target = ["--protocol-era", INSPECTOR_ERA[era], "--transport", "http", "--server-url", served.url]
    header = ["--header", f"Authorization: Bearer {served.token}"]

    inspected = inspector(node, base, *call_arguments(call), *target, *header)

    assert_answers_as_planned(call, inspected)


def test_inspector_over_http_without_the_bearer_token_is_refused_and_lists_nothing(node, base, served):
    target = ["--transport", "http", "--server-url", served.url, "--stored-auth-only"]

    inspected = inspector(node, base, "--method", "tools/list", *target)

    assert json.loads(inspected.stderr.splitlines()[-1])["error"]["code"] == "auth_required", inspected.stderr
    assert inspected.stdout == ""


# ------------------------------------------------------------------------------------ TypeScript SDK


@pytest.mark.parametrize("era", RUNNERS)
def test_the_typescript_sdk_validates_every_reply_against_the_tools_output_schema(node, base, era):
    config = config_for(base, f"sdk-{era}")

    done = subprocess.run(
        [node, str(CLIENTS / "ts_client.mjs"), era, CK3RAVEN, "serve", "--config", str(config)],
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
        cwd=config.parent,
        stdin=subprocess.DEVNULL,
    )

    assert done.returncode == 0, f"{done.stdout}\nstderr:\n{done.stderr[-4000:]}"
    assert "all checks passed" in done.stdout
