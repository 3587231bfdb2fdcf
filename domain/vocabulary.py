"""The closed sets every reply and decision is spelled in (SPEC §2). Nothing outside these exists."""

from enum import StrEnum, unique


@unique
class ReplyType(StrEnum):
    """What a reply means to the agent: proceed, self-correct, escalate, or stop."""

    SUCCESS = "S"
    INVALID = "I"
    DENIED = "D"
    ERROR = "E"

    @property
    def status(self) -> str:
        """The lower-case word the envelope carries in `status`."""
        return self.name.lower()


@unique
class Layer(StrEnum):
    """Who decided an outcome."""

    WA = "WA"
    EN = "EN"
    CT = "CT"
    MCP = "MCP"


@unique
class Area(StrEnum):
    """What domain an outcome concerns. Never a tool name."""

    SYS = "SYS"
    RES = "RES"
    VIS = "VIS"
    IO = "IO"
    READ = "READ"
    WRITE = "WRITE"
    EXEC = "EXEC"
    DB = "DB"
    PARSE = "PARSE"
    VAL = "VAL"
    GATE = "GATE"
    LOG = "LOG"
    CFG = "CFG"


LAYER_TYPES: dict[Layer, frozenset[ReplyType]] = {
    Layer.WA: frozenset({ReplyType.SUCCESS, ReplyType.INVALID, ReplyType.ERROR}),
    Layer.EN: frozenset({ReplyType.SUCCESS, ReplyType.DENIED, ReplyType.ERROR}),
    Layer.CT: frozenset({ReplyType.SUCCESS, ReplyType.INVALID, ReplyType.ERROR}),
    Layer.MCP: frozenset({ReplyType.SUCCESS, ReplyType.INVALID, ReplyType.ERROR}),
}
"""The reply types each layer may emit: D only from EN, never I from EN."""


@unique
class RootCategory(StrEnum):
    """The named roots an agent can address. A root the operator did not configure is not addressable."""

    ROOT_REPO = "ROOT_REPO"
    ROOT_CK3RAVEN_DATA = "ROOT_CK3RAVEN_DATA"
    ROOT_GAME = "ROOT_GAME"
    ROOT_STEAM = "ROOT_STEAM"
    ROOT_USER_DOCS = "ROOT_USER_DOCS"
    ROOT_VSCODE = "ROOT_VSCODE"


@unique
class Mode(StrEnum):
    """The global capability envelope of a session."""

    CK3LENS = "ck3lens"
    CK3RAVEN_DEV = "ck3raven-dev"


@unique
class Operation(StrEnum):
    """What an action does to its target. Anything that is not READ or DELETE is WRITE."""

    READ = "READ"
    WRITE = "WRITE"
    DELETE = "DELETE"
