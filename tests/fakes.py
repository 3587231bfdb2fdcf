"""Hand-written fakes for the driving side: toolboxes that misbehave in the ways the wrapper must catch."""

from attrs import define, field

from domain.replies import Reply, ReplyBuilder


@define
class RaisingToolbox:
    """Every tool raises an exception whose text holds a host path; `calls` counts the attempts."""

    calls: int = 0

    def ck3_dir(self, command: str, path: str | None, depth: int, progress: object = None) -> Reply:
        self.calls += 1
        raise RuntimeError("cannot open /home/alice/secret.txt")

    def ck3_mode(self, command: str) -> Reply:
        return self.ck3_dir(command, None, 0)


@define
class LeakingToolbox:
    """Answers a Success whose data carries `leak` (a host path, or anything else)."""

    leak: str = "/home/alice/game"

    def ck3_dir(self, command: str, path: str | None, depth: int, progress: object = None) -> Reply:
        return ReplyBuilder().success("MCP-CFG-S-001", {"home": self.leak, "address": "ROOT_REPO:/"})

    def ck3_mode(self, command: str) -> Reply:
        return ReplyBuilder().success("MCP-CFG-S-002", {"mode": None, "initialised": False})


@define
class NonReplyToolbox:
    """Returns plain dicts, as a legacy tool would."""

    answers: list[object] = field(factory=list)

    def ck3_dir(self, command: str, path: str | None, depth: int, progress: object = None) -> Reply:
        answer = {"home": "ROOT_REPO"}
        self.answers.append(answer)
        return answer  # type: ignore[return-value]

    def ck3_mode(self, command: str) -> Reply:
        return self.ck3_dir(command, None, 0)
