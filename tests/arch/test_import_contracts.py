"""The layering contracts of pyproject.toml (SPEC §12) hold over the product, as import-linter checks them:
dependencies point inward (app → adapters → domain → ports); domain and ports import no I/O, framework or
clock module; only the World Adapter opens the VisibilityRef seal; and no module but the filesystem
adapters and the app can import what builds or reads a host path."""

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
    "contract", ["layers", "pure-core", "sealed-visibility", "host-paths-in-adapters-only"]
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
