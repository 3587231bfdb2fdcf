"""`python -m ck3raven` and the `ck3raven` command: the operator's command line (app.cli)."""

import sys

from app.collection import paused

paused()  # start-up's imports and build run without the collector (app.collection): the command resumes it

from app.cli import main  # noqa: E402 - after the pause, on purpose

if __name__ == "__main__":
    sys.exit(main())
