"""Port: one decision, one transaction: every state change made inside `atomic()` lands together or not at
all (a contract and its counters, a close and its evidence)."""

from contextlib import AbstractContextManager
from typing import Protocol


class Transactions(Protocol):
    """Port: `with atomic():` groups the stores' writes; nested blocks join the outer one."""

    def atomic(self) -> AbstractContextManager[None]: ...
