"""Compliance tokens (law §11.3-11.5): NST declares new symbols as intended; LXE excuses lint findings.

Neither is a Sigil signature over a contract or a human approval, and neither can stand in for one: each is
signed over its own payload prefix (`nst:` / `lxe:`), which no contract (`contract:`), mode (`mode-init:`)
or approval payload starts with, by the server's in-memory key that no agent can reach.
- An NST names symbols (and the file each is in) for the open contract; it lives in the state store,
  never in a git-tracked folder.
- An LXE names rule codes, canonical paths, a maximum number of violations and a reason; a human approves
  it; it is written under `policy/tokens/` of the contract's root (protected, git-tracked), is bound to the
  contract (and its renewals), and expires 8 hours after it was approved.
"""

import hashlib
import json
from datetime import datetime, timedelta
from typing import Final

from attrs import frozen

from domain import names
from domain.leaks import LeakGate
from ports.signer import Signer

LXE_TTL: Final = timedelta(hours=8)
TOKEN_FOLDER: Final = ("policy", "tokens")
"""Where LXEs are kept in a root."""


EVERY_SYMBOL: Final = "*"
"""An NST symbol name that declares every symbol of the file it names, recorded one by one."""


@frozen
class Nst:
    name: str
    address: str | None
    reason: str


@frozen
class Removal:
    """A removal token: a key (of a kind) the work removes on purpose from the file at `address`, though
    other files of the playset mention it."""

    key: str
    kind: str
    address: str


@frozen
class Lxe:
    lxe_id: str
    contract_id: str
    rules: tuple[str, ...]
    paths: tuple[str, ...]
    max_violations: int
    reason: str
    approval_id: str
    approved_at: str
    expires_at: str

    def body(self) -> dict[str, object]:
        return {
            "lxe_id": self.lxe_id,
            "contract_id": self.contract_id,
            "rules": list(self.rules),
            "paths": list(self.paths),
            "max_violations": self.max_violations,
            "reason": self.reason,
            "approval_id": self.approval_id,
            "approved_at": self.approved_at,
            "expires_at": self.expires_at,
        }


def nst_shown(leaks: LeakGate, nst: Nst) -> bool:
    """Whether a stored NST passes the screen of the door today (its name of a key's form, its reason and
    its name no host path), so a reply may show it."""
    return names.passes(leaks, "key", nst.name) and not names.hosted(leaks, nst.reason)


def removal_shown(leaks: LeakGate, removal: Removal) -> bool:
    """Whether a stored removal token passes the screen of the door today (its key and kind of their forms,
    no host path in any of its fields), so a reply may show it."""
    named = names.passes(leaks, "key", removal.key) and names.passes(leaks, "kind", removal.kind)
    return named and not leaks.findings(removal.address)


def nst_payload(contract_id: str, nsts: list[Nst]) -> bytes:
    listed = [[n.name, n.address, n.reason] for n in nsts]
    return f"nst:{contract_id}|{_digest(listed)}".encode()


def removal_payload(contract_id: str, removals: list["Removal"]) -> bytes:
    """What a removal token's signature covers: the contract and every (key, kind, address) declared."""
    listed = [[r.key, r.kind, r.address] for r in removals]
    return f"removal:{contract_id}|{_digest(listed)}".encode()


def lxe_payload(lxe: Lxe) -> bytes:
    return f"lxe:{lxe.lxe_id}|{lxe.contract_id}|{_digest(lxe.body())}".encode()


def lxe_document(lxe: Lxe, signer: Signer) -> bytes:
    """The file an LXE is kept in: its fields and the signature over them."""
    return (json.dumps({**lxe.body(), "signature": signer.sign(lxe_payload(lxe))}, indent=1) + "\n").encode()


def lxe_from(document: bytes, signer: Signer) -> Lxe | None:
    """The LXE in a token file, if it is well formed and this server signed it; None otherwise (an edited,
    forged or foreign file counts for nothing)."""
    try:
        raw = json.loads(document.decode("utf-8"))
        lxe = Lxe(
            str(raw["lxe_id"]),
            str(raw["contract_id"]),
            tuple(str(rule) for rule in raw["rules"]),
            tuple(str(path) for path in raw["paths"]),
            int(raw["max_violations"]),
            str(raw["reason"]),
            str(raw["approval_id"]),
            str(raw["approved_at"]),
            str(raw["expires_at"]),
        )
        signature = str(raw["signature"])
    except (UnicodeDecodeError, ValueError, KeyError, TypeError, OverflowError, RecursionError):
        return None
    return lxe if signer.verify(lxe_payload(lxe), signature) else None


def live(lxe: Lxe, lineage: set[str], now: datetime) -> bool:
    """Whether an LXE counts for a contract whose id, and those it renewed, are `lineage`, at `now`."""
    return lxe.contract_id in lineage and now < datetime.fromisoformat(lxe.expires_at)


def allowance(lxes: list[Lxe]) -> dict[tuple[str, str], int]:
    """How many findings of each (rule, path) the LXEs excuse, summed."""
    allowed: dict[tuple[str, str], int] = {}
    for lxe in lxes:
        for rule in lxe.rules:
            for path in lxe.paths:
                allowed[(rule, path)] = allowed.get((rule, path), 0) + lxe.max_violations
    return allowed


def _digest(value: object) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True, separators=(",", ":")).encode()).hexdigest()
