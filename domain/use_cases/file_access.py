"""`ck3_file` handlers: read, write, edit, delete. Resolve, then enforce (mutations only), then execute.

Text only, bounded sizes. Every mutation goes through `enforce` and the VisibilityRef the session's World
Adapter minted; the Files port makes writes atomic, so a refused or failed call changes nothing on disk.
"""

import hashlib
from typing import ClassVar, Final

from attrs import frozen

from domain.contracts.lifecycle import active_contract
from domain.failures import port_failure
from domain.policy.enforcement import enforce
from domain.replies.builder import Reply, ReplyBuilder
from domain.services import Services
from domain.session import Session
from domain.use_cases.request import Request
from domain.vocabulary import Operation
from domain.world.adapter import WorldAdapter
from domain.world.visibility import VisibilityRef
from ports.errors import PortError, TooLarge

READ_LIMIT: Final = 2 * 1024 * 1024
WRITE_LIMIT: Final = 2 * 1024 * 1024


@frozen
class Read(Request):
    TOOL: ClassVar[str] = "ck3_file"
    path: str | None


@frozen
class Write(Request):
    TOOL: ClassVar[str] = "ck3_file"
    path: str | None
    content: str


@frozen
class Edit(Request):
    TOOL: ClassVar[str] = "ck3_file"
    path: str | None
    old: str
    new: str


@frozen
class Delete(Request):
    TOOL: ClassVar[str] = "ck3_file"
    path: str | None


def read(session: Session, _: Services, request: Read) -> Reply:
    """The text of a visible file, with its size and SHA-256. Reads need no contract."""
    opened = _file(session, request.path, "read", must_exist=True)
    if isinstance(opened, Reply):
        return opened
    text = _load(session.world, opened)
    if isinstance(text, Reply):
        return text
    data = text.encode("utf-8")
    return ReplyBuilder().success(
        "WA-READ-S-003", {"address": opened.address, "content": text, **_digest(data)}
    )


def write(session: Session, services: Services, request: Write) -> Reply:
    """Create or replace a file with `content` (UTF-8), atomically."""
    data = request.content.encode("utf-8", "surrogatepass")
    if len(data) > WRITE_LIMIT:
        return ReplyBuilder().invalid("WA-WRITE-I-001", {"limit": WRITE_LIMIT})
    opened = _governed(session, services, request.path, "write", Operation.WRITE, must_exist=False)
    if isinstance(opened, Reply):
        return opened
    return _store(session.world, opened, data, created=opened.kind is None)


def edit(session: Session, services: Services, request: Edit) -> Reply:
    """Replace the one occurrence of `old` with `new` in a file."""
    if not request.old:
        return ReplyBuilder().invalid("WA-WRITE-I-004", {"rule": "old-text-empty"})
    opened = _governed(session, services, request.path, "edit", Operation.WRITE, must_exist=True)
    if isinstance(opened, Reply):
        return opened
    text = _load(session.world, opened)
    if isinstance(text, Reply):
        return text
    count = text.count(request.old)
    if count != 1:
        return ReplyBuilder().invalid("WA-WRITE-I-002", {"address": opened.address, "count": count})
    data = text.replace(request.old, request.new, 1).encode("utf-8", "surrogatepass")
    if len(data) > WRITE_LIMIT:
        return ReplyBuilder().invalid("WA-WRITE-I-001", {"limit": WRITE_LIMIT})
    return _store(session.world, opened, data, created=False)


def delete(session: Session, services: Services, request: Delete) -> Reply:
    """Remove a file."""
    opened = _governed(session, services, request.path, "delete", Operation.DELETE, must_exist=True)
    if isinstance(opened, Reply):
        return opened
    try:
        session.world.delete_file(opened)
    except PortError as exc:
        return port_failure(exc, opened.address)
    return ReplyBuilder().success("WA-WRITE-S-002", {"address": opened.address})


def _file(session: Session, path: str | None, command: str, *, must_exist: bool) -> VisibilityRef | Reply:
    reply, ref = session.world.resolve(path, session.home, must_exist=must_exist)
    if ref is None:
        return reply
    if ref.kind == "symlink":
        return ReplyBuilder().invalid("WA-RES-I-012", {"address": ref.address})
    if ref.kind == "special":
        return ReplyBuilder().invalid("WA-RES-I-013", {"address": ref.address})
    if ref.kind == "dir" or ref.address.endswith(":/"):
        return ReplyBuilder().invalid("WA-RES-I-017", {"address": ref.address, "command": command})
    return ref


def _governed(  # noqa: PLR0913 - the call, the target and how it must stand
    session: Session,
    services: Services,
    path: str | None,
    command: str,
    operation: Operation,
    *,
    must_exist: bool,
) -> VisibilityRef | Reply:
    """Resolve, then enforce: the ref to execute through, or the first terminal reply."""
    opened = _file(session, path, command, must_exist=must_exist)
    if isinstance(opened, Reply):
        return opened
    contract = active_contract(session, services)
    decision = enforce(session.mode, operation, session.world.target(opened), contract)
    return decision if decision.terminal else opened


def _load(world: WorldAdapter, ref: VisibilityRef) -> str | Reply:
    try:
        data = world.read_file(ref, READ_LIMIT)
    except TooLarge:
        return ReplyBuilder().invalid("WA-READ-I-002", {"address": ref.address, "limit": READ_LIMIT})
    except PortError as exc:
        return port_failure(exc, ref.address)
    text = _text(data)
    if text is None:
        return ReplyBuilder().invalid("WA-READ-I-001", {"address": ref.address})
    return text


def _store(world: WorldAdapter, ref: VisibilityRef, data: bytes, *, created: bool) -> Reply:
    try:
        world.write_file(ref, data)
    except PortError as exc:
        return port_failure(exc, ref.address)
    return ReplyBuilder().success(
        "WA-WRITE-S-001", {"address": ref.address, "created": created, **_digest(data)}
    )


def _text(data: bytes) -> str | None:
    if b"\x00" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _digest(data: bytes) -> dict[str, object]:
    return {"size": len(data), "sha256": hashlib.sha256(data).hexdigest()}
