"""`python -m app` runs the operator command line."""

import sys

from app.cli import main

sys.exit(main())
