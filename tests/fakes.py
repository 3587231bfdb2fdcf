"""Hand-written fakes for the driving side: toolboxes that misbehave in the ways the wrapper must catch."""

from attrs import define, field

from domain.replies.builder import Reply, ReplyBuilder


def pwd_answered_by(handler, core):
    """`core`, except that `ck3_dir pwd` is answered by `handler(session, services, request)`."""
    from domain.use_cases.navigation import Pwd

    return answered_by(Pwd, handler, core)


def list_answered_by(handler, core):
    """`core`, except that `ck3_dir list` (answered on a worker thread, as a call that may block is) is
    answered by `handler(session, services, request)`."""
    from domain.use_cases.navigation import ListFolder

    return answered_by(ListFolder, handler, core)


def answered_by(request_type, handler, core):
    from domain.use_cases.commands import HANDLERS
    from domain.use_cases.core import Core

    return Core(core.services, core.defaults, {**HANDLERS, request_type: handler})


def raising(session, services, request) -> Reply:
    """A handler that raises an exception whose text holds a host path."""
    raise RuntimeError("cannot open /home/alice/secret.txt")


def leaking(leak: str):
    """A handler answering a Success whose data carries `leak`."""

    def handler(session, services, request) -> Reply:
        return ReplyBuilder().success("MCP-CFG-S-001", {"home": leak, "address": "ROOT_REPO:/"})

    return handler


def answering_a_dict(session, services, request):
    """A handler returning a plain dict, as a legacy tool would."""
    return {"home": "ROOT_REPO"}


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

    def matching(self, kind: str, payload_digest: str) -> list:
        return [r for r in self.records.values() if r.kind == kind and r.payload_digest == payload_digest]


def _swap(self, expected, record) -> bool:
    if self.records.get(expected.approval_id) != expected:
        return False
    self.put(record)
    return True


MemoryApprovals.swap = _swap


def memory_session(
    home=None, mode=None, *, session_id: str = "s-1", roots=("ROOT_REPO", "ROOT_GAME", "ROOT_CK3RAVEN_DATA")
):
    """A session over an in-memory world with the given roots (each an empty folder)."""
    from adapters.memory_files import MemoryFiles
    from domain.session import Session
    from domain.vocabulary import RootCategory
    from domain.world.adapter import WorldAdapter
    from domain.world.view import WorldView

    home = home or RootCategory.ROOT_REPO
    files = MemoryFiles({root: {} for root in roots})
    view = WorldView(mode, frozenset(RootCategory(root) for root in roots))
    return Session(session_id, home, WorldAdapter(files, view), mode=mode)


def authority_services(authority):
    """Services holding only `authority`: enough for handlers that touch nothing but approvals."""
    from domain.services import Services

    return Services(
        None, None, authority, None, None, None, None, None, None, None, None, None, None, None, None
    )


class Servers:
    """The servers of one state directory as a test sets them: this one, and which others run."""

    def __init__(self, own: str, running: set[str]) -> None:
        self.own = own
        self.others = running

    def running(self, server_id: str) -> bool:
        return server_id == self.own or server_id in self.others
