"""A process that only builds the content index (app.index_child) stops the garbage collector for the
rest of its life, whatever state the spawned process's imports left it in: a game's build made the
collector run hundreds of times for nothing a build keeps."""

import subprocess
import sys

PROBE = """
import gc
from app.collection import resumed, stopped
resumed(started=False)
stopped()
before = gc.get_count()
junk = [[n] for n in range(50_000)]
print(gc.isenabled(), gc.get_count()[0] >= before[0] + 50_000 - 1)
"""


def test_a_process_that_only_builds_collects_nothing_for_the_rest_of_its_life():
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, check=True)

    assert done.stdout.split() == ["False", "True"]
