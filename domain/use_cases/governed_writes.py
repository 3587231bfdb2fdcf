"""A change of one file, as every command that changes one makes it (`ck3_file` write and edit, a mod's
override copy, a kept log): the file's ref (`file_ref`: a file, never a link, a special file, a folder or
a root), permitted by enforcement against the session's open contract (`governed`), then journaled
before the bytes land and answered with what landed (`store`). A refusal is raised as Refused; a port
that fails answers its Error, and nothing changes that the journal could not record first.
"""

from domain.contracts import journal
from domain.contracts.lifecycle import active_contract
from domain.edits import Matched
from domain.failures import port_failure
from domain.policy.enforcement import permit
from domain.replies.builder import Reply, ReplyBuilder
from domain.replies.refusal import Refused
from domain.services import Services
from domain.session import Session
from domain.use_cases import content_queries
from domain.use_cases.file_contents import digest
from domain.vocabulary import Operation, RootCategory
from domain.world.visibility import VisibilityRef
from ports.errors import PortError


def file_ref(session: Session, path: str | None, command: str, *, must_exist: bool) -> VisibilityRef:
    """The ref of the file `path` names (absent, unless `must_exist`); raises Refused for anything else."""
    ref = session.world.ref(path, session.home, must_exist=must_exist)
    if ref.kind == "symlink":
        raise Refused.invalid("WA-RES-I-012", {"address": ref.address})
    if ref.kind == "special":
        raise Refused.invalid("WA-RES-I-013", {"address": ref.address})
    if ref.kind == "dir" or ref.address.endswith(":/"):
        raise Refused.invalid("WA-RES-I-017", {"address": ref.address, "command": command})
    return ref


def governed(  # noqa: PLR0913 - the call, the target and how it must stand
    session: Session,
    services: Services,
    path: str | None,
    command: str,
    operation: Operation,
    *,
    must_exist: bool,
) -> VisibilityRef:
    """Resolve, then enforce: the ref to execute through; raises Refused with the first refusal."""
    opened = file_ref(session, path, command, must_exist=must_exist)
    contract = active_contract(session, services)
    kind = "delete" if operation is Operation.DELETE else "add" if opened.kind is None else "modify"
    local = tuple(mod.name for mod in session.world.view.mods if mod.root is RootCategory.ROOT_USER_DOCS)
    target = session.world.target(opened)
    permit(session.mode, operation, target, contract, edit_kind=kind, copy_into=local)
    return opened


def store(  # noqa: PLR0913 - the call, its result, and what to say of it
    call: tuple[Session, Services],
    ref: VisibilityRef,
    contents: tuple[bytes | str | None, bytes],
    *,
    created: bool,
    matched: list[Matched] | None = None,
    notes: list[str],
    exclusive: bool = False,
) -> Reply:
    """Write the new content over the old (`contents`; `exclusive`: only if no file appeared meanwhile),
    journaled first; the write's reply, or the edit's when `matched` says how its replacements matched."""
    session, services = call
    existing, data = contents
    try:
        entry = journal.begin(session, services, ref, "write", before=existing, after=data)
    except PortError as exc:  # nothing changes that the journal could not record first
        return port_failure(exc, ref.address)
    try:
        session.world.write_file(ref, data, exclusive=exclusive)
    except PortError as exc:
        journal.settle(services, entry, landed=False)
        return port_failure(exc, ref.address)
    journal.settle(services, entry, landed=True)
    content_queries.after_change(session, services, ref)
    if matched is not None:
        return ReplyBuilder().success(
            "WA-WRITE-S-005", {"address": ref.address, "matched": matched, "adjusted": notes, **digest(data)}
        )
    return ReplyBuilder().success(
        "WA-WRITE-S-001", {"address": ref.address, "created": created, "adjusted": notes, **digest(data)}
    )
