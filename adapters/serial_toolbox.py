"""One use case at a time: tool calls run in worker threads, and the core's state (session, contracts,
approvals) must change under one lock, or two concurrent calls could both consume one approval or open
two contracts. The operator's approval channel takes the same lock."""

import threading
from collections.abc import Callable
from functools import wraps
from typing import Any


class SerialToolbox:
    """Wraps a toolbox so that each of its methods runs under `lock`."""

    def __init__(self, toolbox: object, lock: "threading.RLock | None" = None) -> None:
        self._toolbox = toolbox
        self.lock = lock or threading.RLock()

    def __getattr__(self, name: str) -> Any:  # noqa: ANN401 - forwards whatever the toolbox offers
        attribute = getattr(self._toolbox, name)
        if not callable(attribute):
            return attribute
        return self._locked(attribute)

    def _locked(self, method: Callable[..., Any]) -> Callable[..., Any]:
        @wraps(method)
        def call(*args: Any, **kwargs: Any) -> Any:  # noqa: ANN401 - same signature as the method
            with self.lock:
                return method(*args, **kwargs)

        return call
