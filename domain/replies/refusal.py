"""A refusal: what a caller caused, as one frozen type (HOUSE_STYLE rule 6).

A use case returns its result, or raises `Refused` holding the terminal reply (Invalid, Denied or Error)
it decided on, made where it was decided (a Denied only by enforcement); the core turns a raised refusal
into the call's one reply, in one place (`Core.decide`). A caller of a use case never asks whether it got
a Reply.
"""

from collections.abc import Mapping

from domain.replies.builder import Reply, ReplyBuilder
from domain.replies.frozen import FrozenMap


class Refused(Exception):
    """A refusal: its terminal reply, frozen (a success is never a refusal)."""

    reply: Reply

    def __init__(self, reply: Reply) -> None:
        if not reply.terminal:
            raise ValueError(f"{reply.code} is a success, not a refusal")
        super().__init__(reply.code)
        object.__setattr__(self, "reply", reply)

    def __setattr__(self, name: str, value: object) -> None:
        if name.startswith("__"):  # the interpreter's own (traceback, cause, context, notes), as it raises
            super().__setattr__(name, value)
            return
        raise AttributeError(f"a refusal is frozen: {name} cannot be set")

    @classmethod
    def invalid(cls, code: str, data: Mapping[str, object] | None = None) -> "Refused":
        """An Invalid refusal: the caller's request cannot be answered as it stands."""
        return cls(ReplyBuilder().invalid(code, data))

    @classmethod
    def error(cls, code: str, data: Mapping[str, object] | None = None) -> "Refused":
        """An Error refusal: a store or a file the call needed failed."""
        return cls(ReplyBuilder().error(code, data))

    @property
    def code(self) -> str:
        return self.reply.code

    @property
    def data(self) -> FrozenMap:
        return self.reply.data
