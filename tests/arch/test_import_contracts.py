"""The layering contracts of pyproject.toml (SPEC §12) hold over the product, as import-linter checks them:
dependencies point inward (app → adapters → domain → ports); domain and ports import no I/O, framework or
clock module; only the World Adapter opens the VisibilityRef seal; no module but the adapters that touch
the host and the app can import what builds or reads a host path; driven adapters import no transport;
and inside app, modules depend downward only (no circle between a command and the checks it runs)."""

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LINT_IMPORTS = str(Path(sys.executable).with_name("lint-imports"))
CONTRACTS = {
    c["id"]: c
    for c in tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
}


@pytest.mark.parametrize(
    "contract",
    [
        "layers",
        "pure-core",
        "sealed-visibility",
        "host-paths-in-adapters-only",
        "one-technology-per-adapter",
        "app-layers",
    ],
)
def test_the_import_contract_is_kept_by_the_product(contract: str):
    run = subprocess.run(
        [LINT_IMPORTS, "--no-cache", "--contract", contract],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )

    assert run.returncode == 0, run.stdout + run.stderr
    assert "1 kept, 0 broken" in run.stdout


def test_the_contracts_say_what_the_architecture_promises():
    layers, pure, hosts = (
        CONTRACTS["layers"],
        CONTRACTS["pure-core"],
        CONTRACTS["host-paths-in-adapters-only"],
    )

    assert layers["layers"] == ["app", "adapters", "domain", "ports"]
    assert {"domain", "ports"} <= set(pure["source_modules"])
    assert {"os", "sys", "io", "pathlib", "socket", "subprocess", "time", "fastmcp", "mcp"} <= set(
        pure["forbidden_modules"]
    )
    assert {"domain", "ports", "adapters.mcp_tools", "adapters.wire"} <= set(hosts["source_modules"])
    assert {"os", "pathlib"} <= set(hosts["forbidden_modules"])
    assert CONTRACTS["sealed-visibility"]["allowed_importers"] == [
        "domain.world.adapter",
        "domain.world.visibility",
    ]


HOST_ADAPTERS = {
    # the adapters that hold host files, folders, sockets or processes, and may name their paths
    "adapters.audit_anchors", "adapters.dulwich_history", "adapters.git_ignores", "adapters.git_index",
    "adapters.git_places", "adapters.git_trees", "adapters.git_worktree", "adapters.http_door",
    "adapters.inotify_changes",
    "adapters.launcher_db", "adapters.lazy_history", "adapters.local_files", "adapters.local_segments",
    "adapters.local_spelling", "adapters.local_survey", "adapters.local_tables", "adapters.local_walks",
    "adapters.local_writes", "adapters.survey_marks",
    "adapters.log_setup", "adapters.openat2", "adapters.ruff_linter", "adapters.server_lock",
    "adapters.sqlite_index", "adapters.sqlite_state", "adapters.tiger_validator",
    "adapters.unix_approval_channel",
}  # fmt: skip


def test_every_adapter_is_kept_from_host_paths_unless_it_touches_the_host():
    adapters = {
        f"adapters.{path.stem}" for path in (ROOT / "adapters").glob("*.py") if path.stem != "__init__"
    }
    kept_from_hosts = set(CONTRACTS["host-paths-in-adapters-only"]["source_modules"])

    assert adapters - HOST_ADAPTERS <= kept_from_hosts, "name a new adapter in the contract or here"
    assert not HOST_ADAPTERS & kept_from_hosts


def test_every_app_module_has_its_place_in_the_app_layers():
    modules = {path.stem for path in (ROOT / "app").glob("*.py") if path.stem != "__init__"}
    placed = {name.strip() for layer in CONTRACTS["app-layers"]["layers"] for name in layer.split("|")}

    assert CONTRACTS["app-layers"]["containers"] == ["app"]
    assert modules == placed
