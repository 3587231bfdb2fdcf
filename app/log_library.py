"""structlog, as the server imports it: without rich's traceback and pretty-printer.

structlog's own import reaches for both when rich is installed (its console renderer draws tracebacks
with one, its traceback transformer shows locals with the other), and through them for pygments: about a
tenth of a second of a start on a busy machine. The server uses neither: its log is JSON, its tracebacks
are rendered without locals. They are hidden only while structlog is imported, and importable again
after; a process that imported structlog before this module keeps structlog as it was.
"""

import sys
from typing import Final

UNUSED: Final = ("rich.traceback", "rich.pretty")
"""What structlog would import for its console renderer and for showing locals."""

_hidden = [name for name in UNUSED if name not in sys.modules]
for _name in _hidden:
    sys.modules[_name] = None  # type: ignore[assignment]  # None there: `import` raises ImportError
try:
    import structlog as structlog  # noqa: PLC0414 - exported as the server imports it
finally:
    for _name in _hidden:
        if sys.modules.get(_name, ...) is None:
            del sys.modules[_name]
