"""What start-up costs: the command line starts without the garbage collector and turns it on again once
start-up is over (`serve` after its server is built, what start-up made frozen so later collections never
walk it and the youngest objects collected less often; every other command before it runs), so a process
never serves, nor runs a command, with collection off; and building the server loads no docstring parser
(the tools' descriptions are given as they are written), nor what only a console renderer or a traceback's
locals would use (rich's traceback and pretty-printer, pygments: the log is JSON without locals)."""

import subprocess
import sys
from pathlib import Path

from app.collection import YOUNG
from tests.e2e.stdio import said_by_probe, write_config

PROBE = """
import gc, json, sys
import adapters.stdio_drain
from ck3raven.__main__ import main

at_import = gc.isenabled()

def said(seen):  # one write a line: the log's writer thread shares stderr, and print writes the end apart
    sys.stderr.write(json.dumps(seen) + "\\n")
    sys.stderr.flush()

async def serving(server):  # stands in for serving over stdio: what the server would serve with
    seen = {"at_import": at_import, "serving": gc.isenabled(), "frozen": gc.get_freeze_count() > 0,
            "young": gc.get_threshold()[0], "griffe": "griffe" in sys.modules,
            "unused_by_the_log": sorted(name for name in ("pygments", "rich.traceback", "rich.pretty")
                                        if sys.modules.get(name) is not None)}
    said(seen)

adapters.stdio_drain.serve_stdio = serving
main(sys.argv[1:])
said({"at_import": at_import, "after": gc.isenabled(), "young": gc.get_threshold()[0]})
"""


def probe(*argv: str) -> dict[str, object]:
    return said_by_probe(PROBE, *argv, first="at_import")[0]


def test_serve_builds_its_server_without_the_collector_and_serves_with_it(tmp_path: Path):
    (tmp_path / "repo").mkdir()
    config = write_config(tmp_path, roots={"ROOT_REPO": tmp_path / "repo"})

    seen = probe("serve", "--config", str(config))

    assert seen == {
        "at_import": False,
        "serving": True,
        "frozen": True,
        "young": YOUNG,
        "griffe": False,
        "unused_by_the_log": [],
    }


def test_rich_stays_importable_whole_after_the_server_imported_its_log_library():
    after = (
        "from app.log_library import structlog\n"
        "import rich.pretty, rich.traceback\n"
        "print(rich.pretty.pretty_repr([1]))"
    )

    run = subprocess.run(
        [sys.executable, "-c", after], capture_output=True, text=True, check=False, timeout=60
    )

    assert (run.returncode, run.stdout.strip()) == (0, "[1]"), run.stderr


def test_every_other_command_runs_with_the_collector_on_at_its_usual_pace():
    seen = probe("codes")

    assert seen == {"at_import": False, "after": True, "young": 700}
