"""What every bench shares: the CK3-shaped world, a scratch place with a config, and the servers' specs.

The world comes from ../shared/bench/gen_ck3_world.py (about 40,000 files in 3,000 folders, fixed seed),
made once under bench/.world. A scratch place holds ck3raven's config and state directory, a data root
(`ROOT_CK3RAVEN_DATA`, whose `wip/` folder takes writes without a contract) and an empty repository root.
Three servers can be started on it: `ck3raven serve`, stock FastMCP 4 with the same tools doing the same
raw work ungoverned (bench/stock_server.py), and the MCP reference filesystem server (Node, installed from
npm into bench/.peers), given the world's game folder and the scratch `wip/` folder.
"""

import json
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rpc import RawServer, Spec

HERE = Path(__file__).resolve().parent
CHECKOUT = HERE.parent
WORLD = HERE / ".world"
GENERATOR = CHECKOUT.parent / "shared" / "bench" / "gen_ck3_world.py"
PEERS = HERE / ".peers"
REFERENCE_PACKAGE = "@modelcontextprotocol/server-filesystem"
GIT = shutil.which("git") or "git"

WIDE = "gfx/coat_of_arms/colored_emblems"
"""The world's 2,000-entry folder, below the game folder."""
CONTENT = ("brave = { prowess = 2 }\n" * 430)[:10_240]
"""10 KiB of CK3 script: what the read and write cases move."""

SERVER_ENV = {
    "FASTMCP_CHECK_FOR_UPDATES": "off",  # the update check calls the network
    "FASTMCP_SHOW_SERVER_BANNER": "false",
    "FASTMCP_ENABLE_RICH_LOGGING": "false",
}
"""The environment both Python servers get on top of the bench's own, the same for both."""


PACKAGES = ("ck3raven", "domain", "ports", "adapters", "app")
"""ck3raven's own packages in the checkout."""


def byte_compiled() -> None:
    """Byte-compile ck3raven's own modules once, as an installed package has them (pip compiles at install;
    any later start writes what is missing): stock FastMCP's modules come compiled from its install, and
    where the environment says PYTHONDONTWRITEBYTECODE a spawn never writes them, so ck3raven alone would
    compile its 150-odd modules from source at every start and the start-up bench would time that."""
    folders = [str(CHECKOUT / name) for name in PACKAGES]
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", *folders], check=True, stdout=subprocess.DEVNULL
    )


def ensure_world() -> Path:
    """The world's folder (made on first use, made again when a run died while making it); its game
    folder is `game/`."""

    def generate(folder: Path) -> None:
        if not GENERATOR.is_file():
            sys.exit(f"bench: the world generator is missing ({GENERATOR})")
        subprocess.run([sys.executable, str(GENERATOR), str(folder)], check=True, stdout=subprocess.DEVNULL)

    return built(WORLD, generate)


def built(folder: Path, make: Callable[[Path], None]) -> Path:
    """`folder`, made by `make` once: a folder counts as made only when its `.done` mark beside it
    exists, so one left half-made by a run that died (a failed `git commit`, ^C) is removed and made
    again rather than measured."""
    done = folder.parent / f".{folder.name.lstrip('.')}.done"
    if done.exists() and folder.is_dir():
        return folder
    done.unlink(missing_ok=True)
    shutil.rmtree(folder, ignore_errors=True)
    make(folder)
    done.touch()
    return folder


GIT_QUIET = ("-c", "gc.auto=0", "-c", "maintenance.auto=false", "-c", "core.fsmonitor=false")
"""Given to every git command that makes a bench repository: git's automatic gc and maintenance, which
can start in the middle of a long run of commits and make one fail (exit 128), stay off."""


def quiet_git_config(repo: Path) -> None:
    """Keep automatic gc and maintenance off in `repo` for good, for the benches' later git commands."""
    for key, value in (("gc.auto", "0"), ("maintenance.auto", "false"), ("gc.autoDetach", "false")):
        subprocess.run([GIT, "-C", str(repo), "config", key, value], check=True, capture_output=True)


@dataclass(frozen=True)
class Place:
    """A scratch folder set up for one bench run."""

    base: Path
    game: Path
    config: Path
    wip: Path
    """The host folder behind ROOT_CK3RAVEN_DATA:/wip/."""
    logs: Path
    """Where each server's stderr goes (one file per server)."""

    def errlog(self, name: str) -> Path:
        return self.logs / f"{name}.stderr"


@contextmanager
def scratch_place(world: Path) -> Iterator[Place]:
    """A fresh scratch folder with ck3raven's config (mode ck3raven-dev, home ROOT_GAME, no rate limits:
    the benches measure throughput, not pacing), removed afterwards."""
    with tempfile.TemporaryDirectory(prefix="ck3raven-bench-") as folder:
        base = Path(folder)
        for name in ("repo", "data/wip", "state", "logs"):
            (base / name).mkdir(parents=True)
        config = base / "config.toml"
        config.write_text(
            'mode = "ck3raven-dev"\nhome = "ROOT_GAME"\n'
            f"state_dir = {json.dumps(str(base / 'state'))}\n"
            "[roots]\n"
            f"ROOT_GAME = {json.dumps(str(world / 'game'))}\n"
            f"ROOT_REPO = {json.dumps(str(base / 'repo'))}\n"
            f"ROOT_CK3RAVEN_DATA = {json.dumps(str(base / 'data'))}\n"
            "[limits]\nreads_per_minute = 0\nmutations_per_minute = 0\n",
            encoding="utf-8",
        )
        yield Place(base, world / "game", config, base / "data" / "wip", base / "logs")


INDEX_WAIT = 1800.0
"""Seconds the benches wait at most for ck3raven's content index of the world to be built."""
INDEX_ASK = {"command": "index"}
"""`ck3_playset index`: S (MCP-DB-S-001) once the index of the operator's playset is built."""


def wait_for_index(ask: Callable[[], dict[str, Any]]) -> float:
    """Wait until ck3raven's content index of the world is built; `ask` calls `ck3_playset index` once and
    gives its structured content. The server builds the index from a second after it starts, parsing
    every script file of the game (minutes of one core the first time: SPEC §15), on a thread that shares
    the interpreter with the calls; a bench times calls once that is done, the steady state (the cold
    build is the index group's). Seconds waited."""
    started = time.monotonic()
    while ask().get("reply_type") != "S":
        if time.monotonic() - started > INDEX_WAIT:
            sys.exit(f"bench: ck3raven's content index was not built within {INDEX_WAIT:.0f} s")
        time.sleep(1.0)
    return time.monotonic() - started


def ours(place: Place) -> Spec:
    """`ck3raven serve` over stdio, as an operator starts it."""
    executable = Path(sys.executable).with_name("ck3raven")
    return Spec("ck3raven", (str(executable), "serve", "--config", str(place.config)), SERVER_ENV)


def stock(place: Place) -> Spec:
    """Stock FastMCP 4 with ck3raven's tools and schemas doing the same raw work, ungoverned
    (bench/stock_server.py), over the same roots; its descriptions and output schemas are ck3raven's own,
    taken from one `tools/list` of ours saved in the scratch place."""
    listed = place.base / "tools.json"
    if not listed.exists():
        with RawServer(ours(place), place.errlog("ck3raven")) as server:
            server.initialize()
            tools = server.request("tools/list").result["tools"]
        listed.write_text(json.dumps(tools), encoding="utf-8")
    roots = {
        "ROOT_GAME": place.game,
        "ROOT_REPO": place.base / "repo",
        "ROOT_CK3RAVEN_DATA": place.base / "data",
    }
    argv = (sys.executable, str(HERE / "stock_server.py"), str(listed), str(place.base / "stock.db"))
    return Spec("stock FastMCP", argv + tuple(f"{name}={path}" for name, path in roots.items()), SERVER_ENV)


def reference(place: Place) -> Spec:
    """The Node reference filesystem server, allowed the game folder and the scratch wip folder."""
    node = shutil.which("node") or "node"
    return Spec("reference (Node)", (node, str(install_reference()), str(place.game), str(place.wip)))


def install_reference() -> Path:
    """The reference server's entry point, installed from npm into bench/.peers on first use."""
    entry = reference_entry()
    if entry is None:
        sys.exit("bench: the reference server needs Node.js and npm (from the system packages)")
    return entry


def reference_entry() -> Path | None:
    """The reference server's entry point (installed from npm into bench/.peers on first use), or None
    where Node.js or npm is missing."""
    entry = PEERS / "node_modules" / REFERENCE_PACKAGE / "dist" / "index.js"
    if entry.is_file():
        return entry if shutil.which("node") else None
    npm = shutil.which("npm")
    if npm is None or shutil.which("node") is None:
        return None
    PEERS.mkdir(exist_ok=True)
    subprocess.run(
        [npm, "install", "--silent", "--no-audit", "--no-fund", "--prefix", str(PEERS), REFERENCE_PACKAGE],
        check=True,
    )
    return entry


def prepare_checkout_imports() -> None:
    """Let this process import the product's packages from the checkout (the editable install does too)."""
    if str(CHECKOUT) not in sys.path:
        sys.path.insert(0, str(CHECKOUT))
