"""`ck3_token` handlers (law §11.3-11.5; SPEC §14): declare new symbols (NST), propose a lint exception
(LXE, approved by a human), list the open contract's tokens.

An NST is kept in the state store for the open contract, never in a git-tracked folder. An LXE is asked of
a human through the same channels as every approval, bound to exactly its rules, paths, maximum and
reason; once approved the server writes it, signed, to `policy/tokens/` of the contract's root.
"""

import hashlib
import json
import re
from typing import ClassVar, Final, Self

from attrs import frozen

from domain.addresses import canonical
from domain.compliance import closeout, symbols, tokens
from domain.compliance.tokens import EVERY_SYMBOL
from domain.contracts.lifecycle import owned
from domain.policy import approvals
from domain.policy.approvals import State
from domain.replies import budget
from domain.replies.builder import Reply, ReplyBuilder
from domain.replies.refusal import Refused
from domain.services import Services
from domain.session import Session
from domain.trail import token_row
from domain.use_cases.arguments import contract_id, given, number, objects, optional, record, text, texts
from domain.use_cases.request import Args, Request
from domain.world.visibility import VisibilityRef
from ports.contracts import ContractRecord
from ports.errors import PortError

MAX_NAME: Final = 200
MAX_VIOLATIONS: Final = 10_000
_RULE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9-]{0,31}$")
SYMBOL: Final = record(
    "A symbol intended as new: its name, and the address of the file it is in (optional).",
    {
        "name": {"type": "string", "description": "the symbol's name, or * for every symbol the file adds"},
        "path": optional("the address of the file it is in", {"type": "string"}),
        "kind": optional("removal: the key's kind, e.g. traits", {"type": "string"}),
    },
    ("name",),
)


@frozen
class DeclareNst(Request):
    """Symbols (name, and optionally the address of the file it is in) intended as new, and why."""

    TOOL: ClassVar[str] = "ck3_token"
    symbols: tuple[tuple[str, str | None], ...] = given(
        objects("symbols", "the symbols intended as new", SYMBOL, required=True)
    )
    reason: str = given(text("reason", "why", required=True))
    contract_id: str | None = given(contract_id(), default=None)

    @classmethod
    def build(cls, args: Args) -> Self:
        symbols = tuple((s["name"], s.get("path")) for s in args["symbols"])
        return cls(symbols, args["reason"], args.get("contract_id"))


@frozen
class ProposeLxe(Request):
    """An exception from lint rules for paths, up to a number of violations, and why."""

    TOOL: ClassVar[str] = "ck3_token"
    rules: tuple[str, ...] = given(texts("rules", "rule codes, e.g. F401, CK3-BOM", required=True))
    paths: tuple[str, ...] = given(texts("paths", "addresses in the contract's root", required=True))
    max_violations: int = given(
        number("max_violations", "at most this many", high=MAX_VIOLATIONS, required=True)
    )
    reason: str = given(text("reason", "why", required=True))
    contract_id: str | None = given(contract_id(), default=None)

    @classmethod
    def build(cls, args: Args) -> Self:
        rules, paths = tuple(args["rules"]), tuple(args["paths"])
        return cls(rules, paths, args["max_violations"], args["reason"], args.get("contract_id"))


@frozen
class DeclareRemoval(Request):
    """Keys (name, kind, the address of the file they leave) the work removes on purpose, and why."""

    TOOL: ClassVar[str] = "ck3_token"
    symbols: tuple[tuple[str, str | None, str | None], ...] = given(
        objects("symbols", None, SYMBOL, required=True)
    )
    reason: str = given(text("reason", None, required=True))
    contract_id: str | None = given(contract_id(), default=None)

    @classmethod
    def build(cls, args: Args) -> Self:
        symbols = tuple((s["name"], s.get("kind"), s.get("path")) for s in args["symbols"])
        return cls(symbols, args["reason"], args.get("contract_id"))


@frozen
class ListTokens(Request):
    TOOL: ClassVar[str] = "ck3_token"
    contract_id: str | None = given(contract_id(), default=None)


def declare_nst(session: Session, services: Services, request: DeclareNst) -> Reply:
    """Record the symbols as intended for the open contract (added to those declared before)."""
    record = owned(session, services, request.contract_id)
    problems = _nst_problems(request)
    if problems:
        return ReplyBuilder().invalid("MCP-VAL-I-001", {"errors": problems})
    declared: list[tokens.Nst] = []
    for name, address in request.symbols:
        found = _symbols(session, record, name, address)  # a refusal stores nothing
        declared += [tokens.Nst(symbol, where, request.reason) for symbol, where in found]
    every = closeout.nsts_of(services, record.contract_id) + declared
    document = {
        "nsts": [{"name": n.name, "address": n.address, "reason": n.reason} for n in every],
        "signature": services.authority.signer.sign(tokens.nst_payload(record.contract_id, every)),
    }
    _kept(services, "nst", record.contract_id, json.dumps(document), [n.address for n in declared])
    rows = [{"name": n.name, "address": n.address, "reason": n.reason} for n in every]
    shown = rows[: budget.rows_fitting(rows, budget.room(services.budget))]  # all of them are in the evidence
    return ReplyBuilder().success(
        "CT-GATE-S-010", {"contract_id": record.contract_id, "nsts": shown, "count": len(rows)}
    )


def declare_removal(session: Session, services: Services, request: DeclareRemoval) -> Reply:
    """Record removal tokens for the open contract (added to those declared before): close then accepts
    that these keys go though other files mention them (SPEC §14)."""
    record = owned(session, services, request.contract_id)
    declared = _removals(session, record, request)
    every = closeout.removals_of(services, record.contract_id) + declared
    rows = [{"key": r.key, "kind": r.kind, "address": r.address} for r in every]
    document = {
        "removals": rows,
        "reason": request.reason,
        "signature": services.authority.signer.sign(tokens.removal_payload(record.contract_id, every)),
    }
    _kept(services, "removal", record.contract_id, json.dumps(document), [r.address for r in declared])
    shown = rows[: budget.rows_fitting(rows, budget.room(services.budget))]  # all of them are in the evidence
    return ReplyBuilder().success(
        "CT-GATE-S-013", {"contract_id": record.contract_id, "removals": shown, "count": len(rows)}
    )


def _removals(session: Session, record: ContractRecord, request: DeclareRemoval) -> list[tokens.Removal]:
    """The removals declared, each file's address in root form; raises Refused naming the problem."""
    if not request.reason.strip() or not request.symbols:
        raise _refused("reason" if request.symbols else "symbols", "name the keys and say why they go")
    declared: list[tokens.Removal] = []
    for key, kind, address in request.symbols:
        if not key.strip() or len(key) > MAX_NAME or not kind or not address:
            raise _refused("symbols", f"each removal names a key (1 to {MAX_NAME} characters), kind, address")
        ref = session.world.ref(address, session.home, must_exist=False)
        place = session.world.location_of(ref)
        if place.root != record.root_category:
            raise _refused("symbols", f"{ref.address} is not in {record.root_category}, the contract's root")
        declared.append(tokens.Removal(key, kind, canonical(place.root, place.parts)))
    return declared


def propose_lxe(session: Session, services: Services, request: ProposeLxe) -> Reply:
    """Ask a human for the exception; once approved, write it under policy/tokens/ of the contract's root."""
    record = owned(session, services, request.contract_id)
    paths = _lxe_paths(session, record, request)
    summary = (
        f"Lint exception for contract {record.contract_id}: up to {request.max_violations} violations of "
        f"each of the rules {', '.join(request.rules)} in each of {', '.join(paths)}. "
        f"Reason: {request.reason}"
    )
    if not approvals.fits(summary):
        raise _refused("reason", "the request is too long to show a person whole")
    payload = json.dumps(
        [record.contract_id, list(request.rules), paths, request.max_violations, request.reason]
    )
    authority = services.authority
    state, approval = approvals.settle(
        authority, "lxe", payload.encode(), summary, session_id=session.session_id
    )
    if state is not State.APPROVED:
        return ReplyBuilder().invalid(
            "CT-GATE-I-005",
            {
                "approval_id": approval.approval_id,
                "state": state.value,
                "targets": paths,
                "hint": approvals.hint(authority, approval.approval_id, "propose the same LXE again"),
            },
        )
    now = authority.clock.now()
    lxe = tokens.Lxe(
        authority.ids.new_id("lxe"),
        record.contract_id,
        request.rules,
        tuple(paths),
        request.max_violations,
        request.reason,
        approval.approval_id,
        now.isoformat(),
        (now + tokens.LXE_TTL).isoformat(),
    )
    document = tokens.lxe_document(lxe, authority.signer)
    try:
        # the digest first, so a later close, or open, knows the file as ours: a write that then fails
        # leaves only a record of a file that is not there, never a token close would count as agent work
        digest = hashlib.sha256(document).hexdigest()
        with services.transactions.atomic():  # the token and its audit row land together
            services.evidence.put("lxe-file", f"{record.root_category}/{lxe.lxe_id}.json", digest)
            file = f"{record.root_category}:/policy/tokens/{lxe.lxe_id}.json"
            services.audit.append(
                token_row("lxe", record.contract_id, (file,), services.call, now.isoformat())
            )
        written = services.tokens.write(record.root_category, lxe.lxe_id, document)
    except PortError:
        return ReplyBuilder().error("WA-IO-E-001", {"address": f"{record.root_category}:/policy/tokens"})
    return ReplyBuilder().success(
        "CT-GATE-S-011",
        {
            "lxe_id": lxe.lxe_id,
            "contract_id": record.contract_id,
            "path": f"{record.root_category}:/{written}",
            "expires_at": lxe.expires_at,
        },
    )


def list_tokens(session: Session, services: Services, request: ListTokens) -> Reply:
    """The NSTs and live LXEs that count for the open contract."""
    record = owned(session, services, request.contract_id)
    ids = closeout.lineage(services, record)
    stored = [closeout.stored_nsts(services, i) for i in ids]
    nsts = [{"name": n.name, "address": n.address, "reason": n.reason} for kept, _ in stored for n in kept]
    try:
        lxes = [lxe.body() for lxe in closeout.live_lxes(services, record, set(ids))]
    except PortError:
        return ReplyBuilder().error("WA-IO-E-001", {"address": f"{record.root_category}:/policy/tokens"})
    half = budget.room(services.budget) // 2  # each list counted in full, shown as far as half a reply holds
    data = {"contract_id": record.contract_id, "count": len(nsts), "lxe_count": len(lxes)}
    data |= {"nsts": nsts[: budget.rows_fitting(nsts, half)], "lxes": lxes[: budget.rows_fitting(lxes, half)]}
    data["unshown"] = sum(skipped for _, skipped in stored)  # stored before the door screened them
    return ReplyBuilder().success("CT-GATE-S-012", data)


def _kept(services: Services, kind: str, contract_id: str, document: str, files: list[str | None]) -> None:
    """Store the contract's `kind` tokens with their audit row, in one transaction; raises Refused with
    the Error if the store cannot take them (nothing stored)."""
    now = services.authority.clock.now().isoformat()
    names = tuple(file for file in files if file)
    try:
        with services.transactions.atomic():
            services.evidence.put(kind, contract_id, document)
            services.audit.append(token_row(kind, contract_id, names, services.call, now))
    except PortError:
        raise Refused.error("CT-GATE-E-002", {"contract_id": contract_id}) from None


def _nst_problems(request: DeclareNst) -> list[dict[str, str]]:
    problems = []
    if not request.symbols:
        problems.append({"field": "symbols", "problem": "name at least one symbol"})
    if any(not name.strip() or len(name) > MAX_NAME for name, _ in request.symbols):
        problems.append({"field": "symbols", "problem": f"each name is 1 to {MAX_NAME} characters"})
    if not request.reason.strip():
        problems.append({"field": "reason", "problem": "say why the symbols are intended"})
    return problems


def _lxe_paths(session: Session, record: ContractRecord, request: ProposeLxe) -> list[str]:
    """The paths as canonical addresses in the contract's root; raises Refused naming the problem."""
    if not request.rules or not all(_RULE.match(rule) for rule in request.rules):
        raise _refused("rules", "rule codes such as F401 or CK3-BOM")
    if not 1 <= request.max_violations <= MAX_VIOLATIONS:
        raise _refused("max_violations", f"from 1 to {MAX_VIOLATIONS}")
    if not request.reason.strip() or not request.paths:
        raise _refused("reason" if request.paths else "paths", "give the paths and why they are excepted")
    paths = []
    for path in request.paths:
        ref = session.world.ref(path, session.home, must_exist=False)
        if session.world.location_of(ref).root != record.root_category:
            raise _refused("paths", f"{ref.address} is not in {record.root_category}, the contract's root")
        paths.append(ref.address)
    return paths


def _symbols(
    session: Session, record: ContractRecord, name: str, address: str | None
) -> list[tuple[str, str | None]]:
    """The symbols one entry of an NST declares, each with its canonical address: the name given, or, for
    EVERY_SYMBOL, every symbol the file's analyser finds in it now (still recorded one by one). An address
    is checked like every address: Invalid when it does not resolve into the contract's root."""
    if address is None:
        if name == EVERY_SYMBOL:
            raise _refused("symbols", f"{EVERY_SYMBOL} needs the file's address")
        return [(name, None)]
    ref = session.world.ref(address, session.home, must_exist=name == EVERY_SYMBOL)
    place = session.world.location_of(ref)
    if place.root != record.root_category:
        raise _refused("symbols", f"{ref.address} is not in {record.root_category}, the contract's root")
    if name != EVERY_SYMBOL:
        return [(name, ref.address)]
    return _every_symbol(session, ref)


def _every_symbol(session: Session, ref: VisibilityRef) -> list[tuple[str, str | None]]:
    """Every symbol the analyser of the file behind `ref` finds in it now."""
    kind = symbols.kind_of(session.world.location_of(ref).parts)
    try:
        text = session.world.read_file(ref, closeout.FILE_LIMIT).decode("utf-8") if kind else None
    except (PortError, UnicodeDecodeError):
        text = None
    if kind is None or text is None:
        raise _refused("symbols", f"{ref.address} is no file whose symbols ck3raven reads")
    try:
        parts = session.world.location_of(ref).parts
        return [(found, ref.address) for found in sorted(symbols.symbols_of(kind, text, parts))]
    except symbols.Unparsable:
        raise _refused("symbols", f"{ref.address} does not parse, so its symbols cannot be named") from None


def _refused(name: str, problem: str) -> Refused:
    return Refused.invalid("MCP-VAL-I-001", {"errors": [{"field": name, "problem": problem}]})
