"""`python -m ck3raven` and the `ck3raven` command: the operator's command line (app.cli)."""

import sys

from app.cli import main

if __name__ == "__main__":
    sys.exit(main())
