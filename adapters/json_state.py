"""Records (approvals, contracts, evidence) as JSON files in the state directory, one per record, atomic
writes, each store's writes serialised by its own lock.

This is system I/O on the server's own state (seed 004 keeps it out of the World Adapter): the state
directory lies outside every root, and each record carries the Sigil signature the domain checks.
"""

import json
import os
import re
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Generic, TypeVar

from adapters.strict_converter import StructureProblems, make_converter, structure
from ports.approvals import ApprovalRecord, ApprovalStore
from ports.contracts import ContractRecord, ContractStore
from ports.errors import Unavailable
from ports.evidence import EvidenceStore
from ports.ledger import Ledger

_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
R = TypeVar("R")


class _JsonRecords(Generic[R]):
    """Records of one type in `folder` (created 0700 if missing), named by their id."""

    def __init__(
        self, folder: Path, kind: type[R], key: Callable[[R], str], final: Callable[[R], bool]
    ) -> None:
        self._folder = folder
        self._kind = kind
        self._key = key
        self._final = final
        self._ended: dict[
            str, R
        ] = {}  # records that reached a final state: a restored old file never replays
        self._converter = make_converter()
        self._lock = threading.RLock()

    def get(self, record_id: str) -> R | None:
        if not _ID.fullmatch(record_id):
            return None
        with self._lock:
            return self._ended.get(record_id) or self._load(self._folder / f"{record_id}.json")

    def put(self, record: R) -> None:
        with self._lock:
            self._put(record)

    def swap(self, expected: R, record: R) -> bool:
        with self._lock:
            if self.get(self._key(expected)) != expected:
                return False
            self._put(record)
            return True

    def _put(self, record: R) -> None:
        record_id = self._key(record)
        if record_id in self._ended:
            raise Unavailable("that record has ended")
        if not _ID.fullmatch(record_id):
            raise ValueError("record ids are made by the server")
        text = json.dumps(self._converter.unstructure(record), indent=1)
        try:
            self._folder.mkdir(mode=0o700, parents=True, exist_ok=True)
            write_atomically(self._folder / f"{record_id}.json", text)
        except OSError as exc:
            raise Unavailable("the state store cannot be written") from exc
        if self._final(record):
            self._ended[record_id] = record

    def all(self) -> list[R]:
        with self._lock:
            if not self._folder.is_dir():
                return []
            found = [self._load(path) for path in sorted(self._folder.glob("*.json"))]
            ended = self._ended
        return [ended.get(self._key(record), record) for record in found if record is not None]

    def _load(self, path: Path) -> R | None:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            return structure(self._converter, data, self._kind)
        except FileNotFoundError:
            return None
        except (OSError, ValueError, StructureProblems):
            return None  # unreadable or malformed: never a record


class JsonApprovals(_JsonRecords[ApprovalRecord], ApprovalStore):
    """Approval records in `folder`."""

    def __init__(self, folder: Path) -> None:
        super().__init__(
            folder,
            ApprovalRecord,
            lambda record: record.approval_id,
            lambda r: r.state in {"consumed", "declined"},
        )


class JsonContracts(_JsonRecords[ContractRecord], ContractStore):
    """Contract records in `folder`."""

    def __init__(self, folder: Path) -> None:
        super().__init__(
            folder, ContractRecord, lambda record: record.contract_id, lambda r: r.status != "open"
        )


def write_atomically(path: Path, text: str) -> None:
    """Replace `path` with `text`: a temp file in the same folder, fsync, rename."""
    descriptor, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        Path(temp).replace(path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


class JsonEvidence(EvidenceStore):
    """Evidence documents in `folder`/<kind>/<name>.json (folders created 0700)."""

    def __init__(self, folder: Path) -> None:
        self._folder = folder

    def put(self, kind: str, name: str, document: str) -> str:
        if not (_ID.fullmatch(kind) and _ID.fullmatch(name)):
            raise ValueError("evidence names are made by the server")
        try:
            (self._folder / kind).mkdir(mode=0o700, parents=True, exist_ok=True)
            write_atomically(self._folder / kind / f"{name}.json", document)
        except OSError as exc:
            raise Unavailable("the evidence store cannot be written") from exc
        return f"evidence:{kind}/{name}"


class JsonLedger(Ledger):
    """Counts in one JSON file; an unreadable file counts as empty (escalation starts over)."""

    def __init__(self, path: Path) -> None:
        self._path = path

    def load(self) -> dict[str, int]:
        try:
            data = json.loads(self._path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        if not isinstance(data, dict):
            return {}
        return {str(k): v for k, v in data.items() if type(v) is int and v > 0}

    def save(self, counts: dict[str, int]) -> None:
        try:
            self._path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            write_atomically(self._path, json.dumps(counts, indent=1, sort_keys=True))
        except OSError as exc:
            raise Unavailable("the ledger cannot be written") from exc
