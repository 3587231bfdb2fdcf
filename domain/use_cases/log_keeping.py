"""`ck3_file keep`: copy the game's current logs (SPEC §17) into ROOT_CK3RAVEN_DATA:/wip/logs/<UTC time>/
before the next start of the game wipes them. Each copy is a governed write of a new file (wip/ is always
writable), journaled like every write, bytes as they are; the kept copies are then asked like the live
logs (`ck3_search log path=...`). The game's logs themselves are never written or removed."""

from typing import ClassVar, Final

from attrs import frozen

from domain.failures import port_failure
from domain.replies.builder import Reply, ReplyBuilder
from domain.services import Services
from domain.session import Session
from domain.use_cases import governed_writes
from domain.use_cases.arguments import address, given
from domain.use_cases.request import Request
from domain.vocabulary import Operation
from domain.world.visibility import VisibilityRef
from ports.errors import PortError, TooLarge

KEPT_AT: Final = "ROOT_CK3RAVEN_DATA:/wip/logs"
KEEP_LIMIT: Final = 512 * 1024 * 1024
"""The largest log kept whole."""


@frozen
class KeepLogs(Request):
    """Copy the logs at `path` (the log folder ROOT_USER_DOCS:/logs, or one log) into a dated folder."""

    TOOL: ClassVar[str] = "ck3_file"
    MUTATES: ClassVar[bool] = True
    path: str | None = given(address())


def keep(session: Session, services: Services, request: KeepLogs) -> Reply:
    """The logs at `path`, each copied to KEPT_AT/<UTC time>/<name>; the copies' addresses."""
    world = session.world
    ref = world.log_ref(request.path, session.home)
    if not world.in_game_logs(ref):  # keep copies the game's own logs, never any other file
        problem = {
            "field": "path",
            "problem": "keep copies the game's logs: a file or folder below logs/ or crashes/",
        }
        return ReplyBuilder().invalid("MCP-VAL-I-001", {"errors": [problem]})
    try:
        logs = (
            [(entry.name, log) for entry, log in world.log_files(ref) if entry.kind == "file"]
            if ref.kind == "dir"
            else [(ref.address.rsplit("/", 1)[-1], ref)]
        )
    except PortError as exc:
        return port_failure(exc, ref.address)
    folder = f"{KEPT_AT}/{services.clock.now().strftime('%Y-%m-%dT%H-%M-%SZ')}"
    kept: list[object] = []
    for name, log in logs:
        answer = _copy(session, services, log, f"{folder}/{name}")
        if answer.reply_type != "S":
            return answer
        kept.append({"address": answer.data["address"], "size": answer.data.get("size", 0)})
    return ReplyBuilder().success("WA-LOG-S-005", {"address": folder, "files": kept, "count": len(kept)})


def _copy(session: Session, services: Services, log: VisibilityRef, target: str) -> Reply:
    try:
        data = session.world.read_file(log, KEEP_LIMIT)
    except TooLarge:
        return ReplyBuilder().invalid("WA-READ-I-002", {"address": log.address, "limit": KEEP_LIMIT})
    except PortError as exc:
        return port_failure(exc, log.address)
    opened = governed_writes.governed(session, services, target, "write", Operation.WRITE, must_exist=False)
    return governed_writes.store(
        (session, services), opened, (None, data), created=True, notes=[], exclusive=True
    )
