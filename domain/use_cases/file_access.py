"""`ck3_file` use cases: read, write, edit, delete. Resolve, then enforce (mutations only), then execute.

Text only, bounded sizes. Every mutation goes through `enforce` and the VisibilityRef the World Adapter
minted; the Files port makes writes atomic, so a refused or failed call changes nothing on disk.
"""

import hashlib
from typing import Final

from attrs import frozen

from domain.policy.enforcement import ActiveContract, enforce
from domain.replies.builder import Reply, ReplyBuilder
from domain.session import Session
from domain.vocabulary import Operation
from domain.world.adapter import WorldAdapter
from domain.world.visibility import VisibilityRef
from ports.errors import LinkRefused, NotADirectory, NotFound, PortError, SpecialFile, TooLarge, Unavailable

READ_LIMIT: Final = 2 * 1024 * 1024
WRITE_LIMIT: Final = 2 * 1024 * 1024


@frozen
class Desk:
    """What a file operation works with: the session, the World Adapter and the verified open contract."""

    session: Session
    world: WorldAdapter
    contract: ActiveContract | None = None


def read(desk: Desk, path: str | None) -> Reply:
    """The text of a visible file, with its size and SHA-256."""
    opened = _file(desk, path, "read", must_exist=True)
    if isinstance(opened, Reply):
        return opened
    text = _load(desk.world, opened)
    if isinstance(text, Reply):
        return text
    data = text.encode("utf-8")
    return ReplyBuilder().success(
        "WA-READ-S-003", {"address": opened.address, "content": text, **_digest(data)}
    )


def write(desk: Desk, path: str | None, content: str) -> Reply:
    """Create or replace a file with `content` (UTF-8), atomically."""
    data = content.encode("utf-8", "surrogatepass")
    if len(data) > WRITE_LIMIT:
        return ReplyBuilder().invalid("WA-WRITE-I-001", {"limit": WRITE_LIMIT})
    opened = _governed(desk, path, "write", Operation.WRITE, must_exist=False)
    if isinstance(opened, Reply):
        return opened
    return _store(desk.world, opened, data, created=opened.kind is None)


def edit(desk: Desk, path: str | None, old: str, new: str) -> Reply:
    """Replace the one occurrence of `old` with `new` in a file."""
    if not old:
        return ReplyBuilder().invalid("WA-WRITE-I-004", {"rule": "old-text-empty"})
    opened = _governed(desk, path, "edit", Operation.WRITE, must_exist=True)
    if isinstance(opened, Reply):
        return opened
    text = _load(desk.world, opened)
    if isinstance(text, Reply):
        return text
    count = text.count(old)
    if count != 1:
        return ReplyBuilder().invalid("WA-WRITE-I-002", {"address": opened.address, "count": count})
    data = text.replace(old, new, 1).encode("utf-8", "surrogatepass")
    if len(data) > WRITE_LIMIT:
        return ReplyBuilder().invalid("WA-WRITE-I-001", {"limit": WRITE_LIMIT})
    return _store(desk.world, opened, data, created=False)


def delete(desk: Desk, path: str | None) -> Reply:
    """Remove a file."""
    opened = _governed(desk, path, "delete", Operation.DELETE, must_exist=True)
    if isinstance(opened, Reply):
        return opened
    try:
        desk.world.delete_file(opened)
    except PortError as exc:
        return _failure(exc, opened.address)
    return ReplyBuilder().success("WA-WRITE-S-002", {"address": opened.address})


def _file(desk: Desk, path: str | None, command: str, *, must_exist: bool) -> VisibilityRef | Reply:
    reply, ref = desk.world.resolve(path, desk.session.home, must_exist=must_exist)
    if ref is None:
        return reply
    if ref.kind == "symlink":
        return ReplyBuilder().invalid("WA-RES-I-012", {"address": ref.address})
    if ref.kind == "special":
        return ReplyBuilder().invalid("WA-RES-I-013", {"address": ref.address})
    if ref.kind == "dir" or ref.address.endswith(":/"):
        return ReplyBuilder().invalid("WA-RES-I-017", {"address": ref.address, "command": command})
    return ref


def _governed(
    desk: Desk, path: str | None, command: str, operation: Operation, *, must_exist: bool
) -> VisibilityRef | Reply:
    """Resolve, then enforce: the ref to execute through, or the first terminal reply."""
    opened = _file(desk, path, command, must_exist=must_exist)
    if isinstance(opened, Reply):
        return opened
    decision = enforce(desk.session.mode, operation, desk.world.target(opened), desk.contract)
    return decision if decision.terminal else opened


def _load(world: WorldAdapter, ref: VisibilityRef) -> str | Reply:
    try:
        data = world.read_file(ref, READ_LIMIT)
    except TooLarge:
        return ReplyBuilder().invalid("WA-READ-I-002", {"address": ref.address, "limit": READ_LIMIT})
    except PortError as exc:
        return _failure(exc, ref.address)
    text = _text(data)
    if text is None:
        return ReplyBuilder().invalid("WA-READ-I-001", {"address": ref.address})
    return text


def _store(world: WorldAdapter, ref: VisibilityRef, data: bytes, *, created: bool) -> Reply:
    try:
        world.write_file(ref, data)
    except PortError as exc:
        return _failure(exc, ref.address)
    return ReplyBuilder().success(
        "WA-WRITE-S-001", {"address": ref.address, "created": created, **_digest(data)}
    )


def _failure(exc: PortError, address: str) -> Reply:
    if isinstance(exc, LinkRefused):
        return ReplyBuilder().invalid("WA-RES-I-012", {"address": address})
    if isinstance(exc, SpecialFile):
        return ReplyBuilder().invalid("WA-RES-I-013", {"address": address})
    if isinstance(exc, NotFound | NotADirectory):
        return ReplyBuilder().invalid("WA-RES-I-001", {"address": address})
    if isinstance(exc, Unavailable | TooLarge):
        return ReplyBuilder().error("WA-IO-E-001", {"address": address})
    raise exc  # pragma: no cover - every port error is handled above


def _text(data: bytes) -> str | None:
    if b"\x00" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _digest(data: bytes) -> dict[str, object]:
    return {"size": len(data), "sha256": hashlib.sha256(data).hexdigest()}
