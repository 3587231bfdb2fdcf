"""Work a contract closed S (SPEC §7): what its close reconciled as its declared work, and each file's
content digest then, so a later open never takes that work for carry-over while the file is still so.

The close evidence records the digests (`digests`: address → SHA-256, None for a file deleted); an index
kept at close (`closed-work`, one document per file) names the newest contract that closed S with it, so
an open reads only the evidence of the files it would otherwise list. Evidence written before digests
were recorded attributes nothing: such work is carry-over, as it was.
"""

import json
from collections.abc import Callable
from typing import Final

from domain.contracts import baseline, records
from domain.contracts.records import Status
from domain.services import Services
from domain.session import Session
from domain.vocabulary import RootCategory
from ports.contracts import ContractRecord

INDEX: Final = "closed-work"


def digests(session: Session, root: str, changes: list[dict[str, object]]) -> dict[str, str | None]:
    """Each change's address → the digest of its file's content now, None for a file deleted; a file
    that cannot be read now has none (nothing could tell later that it is still as it was)."""
    found: dict[str, str | None] = {}
    for change in changes:
        address = str(change["address"])
        digest = None if change["kind"] == "delete" else _digest(session, root, address)
        if digest is not None or change["kind"] == "delete":
            found[address] = digest
    return found


def index(services: Services, session: Session, root: str, contract_id: str, addresses: list[str]) -> None:
    """Name `contract_id` as the newest to have closed S with each of `addresses`. Raises PortError."""
    for address in addresses:
        services.evidence.put(INDEX, _name(session, root, address), json.dumps({"contract_id": contract_id}))


def closed_with(
    session: Session, services: Services, root: str, address: str, path: str
) -> ContractRecord | None:
    """The contract that closed S with the file at `address` (`path` in its root), while the file is as
    that close left it; None otherwise. Raises PortError."""
    named = _json(services.evidence.document(INDEX, _name(session, root, address)))
    contract_id = named.get("contract_id")
    record = services.contracts.get(contract_id) if isinstance(contract_id, str) else None
    if record is None or record.status != Status.CLOSED:
        return None
    recorded = _json(services.evidence.document("close", record.contract_id)).get("digests")
    key = _key(session, root)
    found = {key(str(a)): d for a, d in recorded.items()} if isinstance(recorded, dict) else {}
    if key(address) not in found:
        return None
    return record if found[key(address)] == baseline.content_digest(session, root, path) else None


def _digest(session: Session, root: str, address: str) -> str | None:
    ref = session.world.ref_or_none(address, RootCategory(root), must_exist=False)
    if ref is None:
        return None
    parts = session.world.location_of(ref).parts
    return baseline.content_digest(session, root, "/".join(parts))


def _name(session: Session, root: str, address: str) -> str:
    return f"{root}/{_key(session, root)(address)}"


def _key(session: Session, root: str) -> Callable[[str], str]:
    return records.address_key(ignores_case=session.world.ignores_case(root))


def _json(document: str | None) -> dict[str, object]:
    try:
        found = json.loads(document) if document is not None else None
    except (ValueError, RecursionError):
        return {}
    return found if isinstance(found, dict) else {}
