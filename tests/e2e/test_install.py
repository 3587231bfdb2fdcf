"""A wheel built from the checkout installs into a fresh environment and works there on its own:
`ck3raven init --sample`, `ck3raven doctor` and one tool call over stdio, the checkout nowhere on the path.
It installs one top-level package, `ck3raven`, so it lives beside another distribution that ships the
generic names of its layers (`app/config.py`)."""

import base64
import hashlib
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import NamedTuple

import pytest
from mcp import Client, StdioServerParameters

from domain.replies.registry import REGISTRY

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]
REPO = Path(__file__).resolve().parents[2]
WORLD = "examples/world/"
BUNDLED = "ck3raven/app/sample_world/"
PIP = [sys.executable, "-m", "pip"]
NEIGHBOUR_CONFIG = "NEIGHBOUR = True  # not ck3raven's\n"


class Installed(NamedTuple):
    wheel: Path
    bin: Path
    home: Path


class Sample(NamedTuple):
    installed: Installed
    config: Path
    init: subprocess.CompletedProcess[str]


def run(args: list[str], *, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, capture_output=True, text=True, cwd=cwd, env=env, timeout=600, check=False)


def succeed(args: list[str], *, cwd: Path) -> None:
    result = run(args, cwd=cwd)
    assert result.returncode == 0, f"{' '.join(args)}\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"


def source_files() -> list[str]:
    """The checkout's files that git tracks or would add: nothing it ignores."""
    listed = run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=REPO)
    assert listed.returncode == 0, listed.stderr
    return [name for name in listed.stdout.split("\0") if name and (REPO / name).is_file()]


def copy_checkout(target: Path) -> None:
    """The checkout copied (its ignored files left out), so that the build writes nothing into it; plus
    what a server run on the sample world directly would leave there, which the wheel must not carry."""
    for name in source_files():
        (target / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / name, target / name)
    leftover = target / WORLD / "ck3raven_data" / "logs" / "ck3raven.log"
    leftover.parent.mkdir(parents=True, exist_ok=True)
    leftover.write_text('{"event": "tool.replied"}\n', encoding="utf-8")


def clean_env(installed: Installed) -> dict[str, str]:
    """Only the fresh environment on PATH; no PYTHONPATH; a home of its own."""
    return {
        "HOME": str(installed.home),
        "PATH": f"{installed.bin}:/usr/bin:/bin",
        "FASTMCP_CHECK_FOR_UPDATES": "off",
    }


def neighbour_wheel(folder: Path) -> Path:
    """A wheel of another distribution that ships top-level `app` and `domain` packages (app/config.py)."""
    files = {
        "app/__init__.py": "",
        "app/config.py": NEIGHBOUR_CONFIG,
        "domain/__init__.py": "",
        "neighbour-1.0.dist-info/METADATA": "Metadata-Version: 2.1\nName: neighbour\nVersion: 1.0\n",
        "neighbour-1.0.dist-info/WHEEL": (
            "Wheel-Version: 1.0\nGenerator: hand\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
        ),
    }
    record = [f"{name},sha256={_digest(text)},{len(text.encode())}" for name, text in files.items()]
    files["neighbour-1.0.dist-info/RECORD"] = "\n".join([*record, "neighbour-1.0.dist-info/RECORD,,", ""])
    wheel = folder / "neighbour-1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        for name, text in files.items():
            archive.writestr(name, text)
    return wheel


def _digest(text: str) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=").decode()


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    """The wheel built from a copy of the checkout, installed with its dependencies into a fresh venv, and
    then a distribution that ships `app/config.py` installed beside it."""
    base = tmp_path_factory.mktemp("install")
    source, dist, venv, home = base / "source", base / "dist", base / "venv", base / "home"
    copy_checkout(source)
    home.mkdir()
    succeed([*PIP, "wheel", "-q", "--no-deps", "-w", str(dist), str(source)], cwd=base)
    wheel = next(dist.glob("ck3raven-*.whl"))
    succeed([sys.executable, "-m", "venv", "--without-pip", str(venv)], cwd=base)
    for package in (wheel, neighbour_wheel(dist)):
        succeed(
            [*PIP, "--python", str(venv / "bin" / "python"), "install", "-q", "--no-compile", str(package)],
            cwd=base,
        )
    return Installed(wheel, venv / "bin", home)


@pytest.fixture(scope="module")
def sample(installed: Installed) -> Sample:
    """`ck3raven init --sample DIR` run once by the installed command."""
    folder = installed.home.parent / "my sample"
    init = run(
        [str(installed.bin / "ck3raven"), "init", "--sample", str(folder)],
        cwd=installed.home,
        env=clean_env(installed),
    )
    return Sample(installed, folder / "config.toml", init)


def test_the_wheel_installs_one_top_level_package_and_its_metadata(installed: Installed):
    with zipfile.ZipFile(installed.wheel) as wheel:
        tops = {name.split("/")[0] for name in wheel.namelist()}
        named = wheel.read("ck3raven-0.1.0.dist-info/top_level.txt").decode()

    assert tops == {"ck3raven", "ck3raven-0.1.0.dist-info"}
    assert named.split() == ["ck3raven"]


def test_the_command_runs_beside_a_distribution_that_ships_app_config(installed: Installed):
    site = next((installed.bin.parent / "lib").glob("python3*/site-packages"))

    result = run([str(installed.bin / "ck3raven"), "--help"], cwd=installed.home, env=clean_env(installed))

    assert result.returncode == 0, result.stderr
    assert "serve" in result.stdout
    assert (site / "app" / "config.py").read_text(encoding="utf-8") == NEIGHBOUR_CONFIG


def test_the_wheel_carries_the_sample_world_and_no_server_leftovers(installed: Installed):
    expected = {name.removeprefix(WORLD) for name in source_files() if name.startswith(WORLD)}

    with zipfile.ZipFile(installed.wheel) as wheel:
        bundled = {name.removeprefix(BUNDLED) for name in wheel.namelist() if name.startswith(BUNDLED)}

    assert "documents/launcher-v2.sqlite" in expected
    assert bundled == expected


def test_init_sample_copies_the_sample_world_into_the_named_folder_byte_for_byte(sample: Sample):
    world = sample.config.parent / "world"

    copied = {path.relative_to(world).as_posix() for path in world.rglob("*") if ".git" not in path.parts}

    assert sample.init.returncode == 0, sample.init.stderr
    assert sample.config.is_file()
    for name in (n.removeprefix(WORLD) for n in source_files() if n.startswith(WORLD)):
        assert name in copied
        assert (world / name).read_bytes() == (REPO / WORLD / name).read_bytes(), name


def test_doctor_on_the_sample_config_exits_0_and_names_no_problem(sample: Sample):
    result = run(
        [str(sample.installed.bin / "ck3raven"), "doctor", "--config", str(sample.config)],
        cwd=sample.installed.home,
        env=clean_env(sample.installed),
    )

    assert result.returncode == 0, result.stdout + result.stderr
    assert "PROBLEM" not in result.stdout
    assert "self-test: pwd answered MCP-CFG-S-001" in result.stdout


async def test_the_installed_server_answers_a_tool_call_over_stdio_with_a_registered_success(sample: Sample):
    params = StdioServerParameters(
        command=str(sample.installed.bin / "ck3raven"),
        args=["serve", "--config", str(sample.config)],
        cwd=str(sample.installed.home),
        env=clean_env(sample.installed),
    )

    async with Client(params) as client:
        result = await client.call_tool("ck3_dir", {"command": "list", "path": "ROOT_STEAM:/"})

    envelope = result.structured_content
    assert envelope["reply_type"] == "S", envelope
    assert envelope["code"] in REGISTRY
    assert REGISTRY[envelope["code"]].reply_type.value == "S"
    assert result.is_error is False


def test_the_embedding_example_runs_a_contract_end_to_end_from_the_installed_package(installed: Installed):
    folder = installed.home.parent / "host"
    folder.mkdir()
    host = folder / "embedded_host.py"
    shutil.copy2(REPO / "examples" / "embedded_host.py", host)

    result = run([str(installed.bin / "python"), str(host)], cwd=folder, env=clean_env(installed))

    assert result.returncode == 0, result.stdout + result.stderr
    codes = [line.split()[2] for line in result.stdout.splitlines()]
    assert codes == ["CT-GATE-S-001", "WA-WRITE-S-001", "CT-GATE-S-002", "WA-READ-S-003"]
    assert sorted(path.name for path in folder.iterdir()) == ["embedded_host.py"]
