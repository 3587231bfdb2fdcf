"""The core's entry point: sessions made from the operator's defaults, and one door for every host.

A host hands a call to `admit` (tool, command, arguments: its request, or the one refusal) and the request
to `decide` (its one reply). The command table (domain.use_cases.commands) gives each command its
request type and its handler, a function `(session, services, request) -> Reply`; the request type says
which tool it belongs to and whether it answers before a mode is initialised (SPEC §2).
"""

from collections.abc import Mapping
from typing import Any

from attrs import Factory, evolve, frozen

from domain.contracts.lifecycle import governing
from domain.policy import approvals
from domain.policy.enforcement import busy, pace
from domain.policy.pacing import Rates, buckets
from domain.replies.builder import Reply, ReplyBuilder
from domain.replies.refusal import Refused
from domain.services import Services
from domain.session import Session, mode_required
from domain.trail import HUMAN
from domain.use_cases.admission import admitted, unknown_command
from domain.use_cases.commands import CARRIED, COMMANDS, HANDLERS, Command
from domain.use_cases.decision import Decision, KeptContracts, NotedJournal, trailed
from domain.use_cases.mode_switch import initialise
from domain.use_cases.request import Handler, Request
from domain.vocabulary import Mode, RootCategory
from domain.world.adapter import WorldAdapter
from domain.world.view import WorldView
from ports.audit import CallFacts
from ports.errors import PortError


@frozen
class Defaults:
    """What a new session starts with: the operator's home, mode and playset, and the view they give."""

    home: RootCategory
    mode: Mode | None
    playset: str | None
    view: WorldView
    rates: Rates = Factory(Rates)


class Core:
    """Starts sessions and answers their requests; holds no session state itself."""

    def __init__(
        self,
        services: Services,
        defaults: Defaults,
        handlers: Mapping[type[Request], Handler[Any]] = HANDLERS,
    ) -> None:
        self.services = services
        self.defaults = defaults
        self.handlers = handlers
        """Each request type's handler (domain.use_cases.commands)."""
        self.commands: Mapping[str, Mapping[str, Command]] = COMMANDS
        """Every tool's commands."""

    def start_session(self, session_id: str) -> Session:
        """A fresh session at the operator's defaults (the operator's mode is a human initialisation)."""
        defaults = self.defaults
        world = WorldAdapter(self.services.files, defaults.view)
        session = Session(
            session_id, defaults.home, world, defaults.playset, allowance=buckets(defaults.rates)
        )
        if defaults.mode is not None:
            initialise(session, defaults.mode, "operator", self.services.authority)
        return session

    def admit(  # noqa: PLR0913 - the call, and what the host knows of it
        self,
        session: Session,
        tool: str,
        command: str,
        args: Mapping[str, object],
        *,
        paced: bool = False,
        lasting: bool = True,
    ) -> Request | Reply:
        """The request `tool`'s `command` makes of `args` in `session`, or its one refusal: an unknown
        tool (MCP-VAL-I-002) or command, an argument out of its declared shape, carrying a host path, not
        taken or missing (MCP-VAL-I-001); a command whose success is a session state, where the session
        ends with the call (`lasting` False: MCP-CFG-I-005); over the session's rate limit. An admitted
        request has been counted against the rate limit (unless `paced`: counted already), so it is
        decided with `decide(..., paced=True)`."""
        row = self.commands.get(tool, {}).get(command)
        if row is None:
            known = self.commands.get(tool)
            return ReplyBuilder().invalid("MCP-VAL-I-002") if known is None else unknown_command(list(known))
        try:
            request = admitted(self.services.leaks, row, command, args, CARRIED.get(tool, ()))
        except Refused as refused:  # the door's hosts take the request, or the one reply that refuses it
            return refused.reply
        if row.stateful and not lasting:
            return not_kept(tool, command)
        refusal = None if paced else self._pace(session, request)
        return refusal if refusal is not None else request

    def decide(
        self, session: Session, request: Request, *, paced: bool = False, call: CallFacts | None = None
    ) -> Decision:
        """The one reply to `request` in `session`, with the facts of its decision (use_cases.decision):
        refused over the session's rate limit (unless `paced`: counted already), and while no mode is
        initialised unless modeless. The governing contract is looked up once for the whole decision.
        `call`: the tool call it answers, named by the audit rows written with its changes (by default,
        the request's tool)."""
        call = call or CallFacts(request.TOOL)
        stores = self.services
        trail = (stores.audit, stores.transactions)
        contracts = KeptContracts(stores.contracts, trail, call)
        journal = NotedJournal(stores.journal)
        approving = stores.authority
        authority = evolve(approving, store=trailed(approving.store, trail, call, approving.clock))
        services = evolve(stores, contracts=contracts, journal=journal, call=call, authority=authority)
        before = governing(session, services)
        reply = self._reply(session, services, request, paced=paced)
        under = before or governing(session, services)
        contract_id = under.contract_id if under is not None else None
        return Decision(reply, session.session_id, contract_id, tuple(journal.begun))

    def answer(self, session: Session, request: Request, *, paced: bool = False) -> Reply:
        """The reply of `decide`, without its facts."""
        return self.decide(session, request, paced=paced).reply

    def _reply(self, session: Session, services: Services, request: Request, *, paced: bool) -> Reply:
        refusal = None if paced else self._pace(session, request)
        if refusal is not None:
            return refusal
        if not request.MODELESS:
            refusal = mode_required(session, request.TOOL)
            if refusal is not None:
                return refusal
        try:
            return self.handlers[type(request)](session, services, request)
        except Refused as refused:  # the one place a refusal becomes the reply
            return refused.reply

    def _pace(self, session: Session, request: Request) -> Reply | None:
        """Count `request` against the session's rate limit: None when it may go on, else the refusal."""
        bucket = session.allowance.get(request.MUTATES)
        if bucket is None:
            return None
        return pace(bucket, self.services.authority.clock.now(), mutation=request.MUTATES)

    @staticmethod
    def busy(waiting: int) -> Reply:
        """The refusal of a call that finds too many of its session's calls waiting already."""
        return busy(waiting)

    def decide_approval(self, approval_id: str, *, approve: bool) -> bool:
        """Record a human's decision arriving through the client (elicitation); False if undecidable, or
        when the store cannot take it with its audit row (nothing is decided)."""
        try:
            return approvals.human_decision(self.human_authority(), approval_id, approve=approve) is not None
        except PortError:
            return False

    def human_authority(self) -> approvals.Authority:
        """The approval authority a person's decision is taken through (a client's UI, the terminal): a
        decision stored lands with its audit row, naming this server and no call."""
        stores = self.services
        servers = stores.servers
        facts = evolve(HUMAN, server_id=servers.own if servers is not None else None)
        store = trailed(
            stores.authority.store, (stores.audit, stores.transactions), facts, stores.authority.clock
        )
        return evolve(stores.authority, store=store)

    def approval_summary(self, approval_id: str) -> str | None:
        """The stored, escaped summary of a genuine approval request: what the human is asked to approve."""
        record = self.services.authority.store.get(approval_id)
        if record is None or not approvals.genuine(record, self.services.authority.signer):
            return None
        return record.summary


def not_kept(tool: str, command: str) -> Reply:
    """The refusal of a command whose success the session could not keep: it ends with the call."""
    hint = (
        "send the request with a client token (`ck3raven token add NAME`) as its bearer token, or open an "
        "MCP session with the 2025-11-25 handshake"
    )
    return ReplyBuilder().invalid(
        "MCP-CFG-I-005", {"command": f"{tool} {command}", "hint": hint, "required": "credential"}
    )
