"""Hand-written fakes for the driving side: toolboxes that misbehave in the ways the wrapper must catch."""

from attrs import define, field

from domain.replies.builder import Reply, ReplyBuilder


class _NoHumans:
    """Toolbox fakes have no approvals to decide."""

    def decide_approval(self, approval_id: str, *, approve: bool) -> bool:
        return False


@define
class RaisingToolbox(_NoHumans):
    """Every tool raises an exception whose text holds a host path; `calls` counts the attempts."""

    calls: int = 0

    def ck3_dir(self, command: str, path: str | None, depth: int, progress: object = None) -> Reply:
        self.calls += 1
        raise RuntimeError("cannot open /home/alice/secret.txt")

    def ck3_mode(self, command: str) -> Reply:
        return self.ck3_dir(command, None, 0)


@define
class LeakingToolbox(_NoHumans):
    """Answers a Success whose data carries `leak` (a host path, or anything else)."""

    leak: str = "/home/alice/game"

    def ck3_dir(self, command: str, path: str | None, depth: int, progress: object = None) -> Reply:
        return ReplyBuilder().success("MCP-CFG-S-001", {"home": self.leak, "address": "ROOT_REPO:/"})

    def ck3_mode(self, command: str) -> Reply:
        return ReplyBuilder().success(
            "MCP-CFG-S-002", {"mode": None, "initialised": False, "source": None, "sealed": False}
        )


@define
class NonReplyToolbox(_NoHumans):
    """Returns plain dicts, as a legacy tool would."""

    answers: list[object] = field(factory=list)

    def ck3_dir(self, command: str, path: str | None, depth: int, progress: object = None) -> Reply:
        answer = {"home": "ROOT_REPO"}
        self.answers.append(answer)
        return answer  # type: ignore[return-value]

    def ck3_mode(self, command: str) -> Reply:
        return self.ck3_dir(command, None, 0)


@define
class FakeSigner:
    """A deterministic signer: the 'signature' is the payload's SHA-256 salted with a session name."""

    session: str = "session-1"
    signed: list[bytes] = field(factory=list)

    def sign(self, payload: bytes) -> str:
        import hashlib

        self.signed.append(payload)
        return hashlib.sha256(self.session.encode() + b"|" + payload).hexdigest()

    def verify(self, payload: bytes, signature: str) -> bool:
        import hashlib
        import hmac

        if not isinstance(signature, str):
            return False
        expected = hashlib.sha256(self.session.encode() + b"|" + payload).hexdigest()
        return hmac.compare_digest(expected.encode(), signature.encode("utf-8", "replace"))


@define
class FakeClock:
    """A clock that stands still until a test moves it."""

    current: "object" = None

    def __attrs_post_init__(self) -> None:
        from datetime import UTC, datetime

        if self.current is None:
            self.current = datetime(2030, 1, 1, tzinfo=UTC)

    def now(self):
        return self.current

    def advance(self, **delta: float) -> None:
        from datetime import timedelta

        self.current = self.current + timedelta(**delta)


@define
class CountingIds:
    """Identifiers hat-1, hat-2, ... in order."""

    issued: int = 0

    def new_id(self, prefix: str) -> str:
        self.issued += 1
        return f"{prefix}-{self.issued}"


@define
class MemoryApprovals:
    """Approval records in a dict; `puts` counts the writes."""

    records: dict = field(factory=dict)
    puts: int = 0

    def get(self, approval_id: str):
        return self.records.get(approval_id)

    def put(self, record) -> None:
        self.puts += 1
        self.records[record.approval_id] = record

    def all(self) -> list:
        return list(self.records.values())
