"""The base of every command's request, and the shape of a handler."""

from collections.abc import Callable, Mapping
from typing import Any, ClassVar, Self, TypeVar

from attrs import NOTHING, fields, frozen

from domain.replies.builder import Reply
from domain.services import Services
from domain.session import Session
from domain.use_cases.arguments import DECLARES, Arg


@frozen
class Request:
    """A command's typed arguments; the class says which tool it belongs to, whether it needs no mode, and
    whether it may change a file (such calls are paced by the lower, mutation rate limit)."""

    TOOL: ClassVar[str] = ""
    MODELESS: ClassVar[bool] = False
    MUTATES: ClassVar[bool] = False
    ARGS: ClassVar[tuple[Arg, ...]] = ()
    """The arguments the command takes on the wire (domain.use_cases.arguments)."""
    SESSION_ONLY: ClassVar[bool] = False
    """Whether the command reads the session alone (no file, no store) while the session holds no contract:
    a driving adapter may answer it on the caller's own thread."""
    FILES_ALONE: ClassVar[bool] = False
    """Whether the command reads the session and files alone (no store, nothing another process holds a
    lock on) while the session holds no contract: a driving adapter that serves a single client may answer
    it on the caller's own thread, where only that client's own messages wait for it (unless the call
    reports progress: each report is sent from that thread, and waited for)."""

    def __init_subclass__(cls, **kwargs: object) -> None:
        """A class that does not list `ARGS` itself takes the arguments its fields are made from, in order
        (domain.use_cases.arguments.given)."""
        super().__init_subclass__(**kwargs)
        if "ARGS" not in vars(cls):
            fields_made = [getattr(value, "metadata", None) for value in vars(cls).values()]
            cls.ARGS = tuple(
                made[DECLARES] for made in fields_made if isinstance(made, Mapping) and DECLARES in made
            )

    @classmethod
    def build(cls, args: "Args") -> Self:
        """The request made from `args`, each field from the argument of its name (one not given takes the
        field's default, or None). A request whose fields are not its arguments says how it is built; one
        whose arguments do not go together raises Refused."""
        given = {f.name: args.get(f.name) for f in fields(cls) if f.name in args or f.default is NOTHING}
        return cls(**given)


# Any: a value as JSON gives it, already held to the shape its argument declares (domain.use_cases.admission)
Args = Mapping[str, Any]
"""A call's arguments that were given (not None), each of its declared shape."""
R = TypeVar("R", bound=Request)
Handler = Callable[[Session, Services, R], Reply]
"""One command's use case: it decides the one Reply for a request in a session."""
