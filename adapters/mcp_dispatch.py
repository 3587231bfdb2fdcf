"""How a tool call reaches the core: the caller's session, the core's door, and the human loop.

`Dispatcher` answers one command in the caller's governance session (`adapters.mcp_sessions`), one call
of a session at a time. `HumanLoop` answers a command whose reply may ask a human: through the client's
elicitation when it can, else the reply names the approval id for the operator's terminal.
"""

import functools
from collections.abc import Mapping
from typing import Any, Final

import anyio.to_thread
from fastmcp import Context
from mcp.types import InputRequiredResult

from adapters.elicitation import Elicitor
from adapters.mcp_sessions import MAX_WAITING, McpSessions, SessionSlot
from adapters.reply_middleware import CALL, ReplyResult
from domain.replies.builder import Reply
from domain.use_cases.core import Core
from domain.use_cases.request import Request
from ports.audit import CallFacts


class Dispatcher:
    """Answers one tool command in the caller's session, one call of a session at a time: the core admits
    the call (its request, or the refusal) and decides it; this adds what is MCP's, the session's slot, its
    lock and thread, and the call's facts. `one_client`: the server serves a single client (stdio), so a
    command that reads files alone may be answered on the event loop (`answer_at_once`), unless it reports
    progress (each report waits on the loop); a server of many clients keeps file work off it."""

    def __init__(
        self,
        core: Core,
        *,
        one_client: bool = False,
        session_idle_seconds: float | None = None,
    ) -> None:
        self.core = core
        self._sessions = McpSessions(core.start_session, idle_seconds=session_idle_seconds)
        self._one_client = one_client

    def slot(self, ctx: Context) -> SessionSlot:
        return self._sessions.slot(ctx)

    def answer(  # noqa: PLR0913 - the call, and how it is to be answered
        self,
        ctx: Context,
        tool: str,
        command: str,
        args: Mapping[str, Any],
        slot: SessionSlot | None = None,
        *,
        paced: bool = False,
    ) -> Reply:
        """The reply in the caller's session (or in `slot`, the session an approval was asked in). The
        call is admitted, and so counted against the rate limit, before the session's lock is waited for
        (`paced`: counted already)."""
        slot = slot or self._sessions.slot(ctx)
        with slot.pacing:
            request = self.core.admit(slot.session, tool, command, args, paced=paced, lasting=slot.lasting)
        if isinstance(request, Reply):
            return request
        waiting = slot.enter()
        if waiting is None:
            return self.core.busy(MAX_WAITING)
        try:
            with slot.lock:  # one call of a session at a time
                return self._decided(slot, command, request)
        finally:
            slot.leave()

    def answer_at_once(self, ctx: Context, tool: str, command: str, args: Mapping[str, Any]) -> Reply | None:
        """The reply, made on the caller's thread (the event loop), of a command that reads the session
        alone (`SESSION_ONLY`), or on a server of one client the session and files alone (`FILES_ALONE`,
        with no `progress` to report to), while its session holds no contract and no other call of it
        runs: it waits on no store and on no lock held longer than a moment (the session's pacing), and a
        thread hop would cost a small read more than its own work (a tree of depth 3 about a tenth of its
        time). None, having counted and changed nothing, for any other call: answer it with `answer` on a
        worker thread."""
        row = self.core.commands.get(tool, {}).get(command)
        if row is None or not self._at_once(row.kind, args):  # declined before any work
            return None
        slot = self._sessions.slot(ctx)
        if not slot.lock.acquire(blocking=False):
            return None
        try:
            if slot.session.contract_id is not None:  # read with the lock held: no call changes it
                return None
            with slot.pacing:
                request = self.core.admit(slot.session, tool, command, args, lasting=slot.lasting)
            if isinstance(request, Reply):
                return request
            waiting = slot.enter()
            if waiting is None:
                return self.core.busy(MAX_WAITING)
            try:
                return self._decided(slot, command, request)
            finally:
                slot.leave()
        finally:
            slot.lock.release()

    def _at_once(self, kind: type[Request], args: Mapping[str, Any]) -> bool:
        # a command reporting progress waits on the loop for each report: it must not be on the loop
        alone = self._one_client and kind.FILES_ALONE and args.get("progress") is None
        return kind.SESSION_ONLY or alone

    def _decided(self, slot: SessionSlot, command: str, request: Request) -> Reply:
        """The decision of an admitted request, the session's lock held."""
        facts = CALL.get()
        decision = self.core.decide(slot.session, request, paced=True, call=_call(facts, request, command))
        if facts is not None:  # for the audit row: the contract the call was decided under
            facts.update(command=command, session_id=decision.session_id, contract_id=decision.contract_id)
        return decision.reply


def _call(facts: dict[str, Any] | None, request: Request, command: str) -> CallFacts:
    """The call as the rows written in its decision's transaction name it."""
    if facts is None:  # answered outside the middleware (a test's dispatcher): the request names its tool
        return CallFacts(request.TOOL, command)
    return CallFacts(
        str(facts.get("tool") or request.TOOL),
        command,
        facts.get("trace_id"),
        facts.get("server_id"),
        facts.get("call"),
        facts.get("client"),
    )


ASKS_A_HUMAN: Final = frozenset({"MCP-CFG-I-002", "CT-GATE-I-005"})
"""Codes whose reply files an approval request (mode init; a contract, renewal or stash that needs one)."""


class HumanLoop:
    """Answers a command whose reply may ask a human: through the client's UI when it can elicit (the
    answer is recorded, then the command is answered again), else the reply names the approval id."""

    def __init__(self, dispatcher: Dispatcher, elicitor: Elicitor) -> None:
        self._dispatcher = dispatcher
        self._elicitor = elicitor

    async def answer(
        self, ctx: Context, tool: str, command: str, args: Mapping[str, Any]
    ) -> ReplyResult | InputRequiredResult:
        # most calls carry no answer: that is read off the request, and only an answer to record hops
        kept = (
            await anyio.to_thread.run_sync(self._elicitor.take_answer, ctx)
            if self._elicitor.carries_answer(ctx)
            else None
        )
        slot = kept if isinstance(kept, SessionSlot) else self._dispatcher.slot(ctx)
        dispatch = self._dispatcher.answer
        reply = await anyio.to_thread.run_sync(dispatch, ctx, tool, command, args, slot)
        if _asks(reply) and kept is None:
            approval_id = str(reply.data["approval_id"])
            summary = self._dispatcher.core.approval_summary(approval_id) or reply.message()
            asked = await self._elicitor.ask(ctx, approval_id, summary, keep=slot)
            if isinstance(asked, InputRequiredResult):
                return asked
            if asked:  # the same call, answered again now that a human decided: not counted twice
                again = functools.partial(dispatch, ctx, tool, command, args, slot, paced=True)
                reply = await anyio.to_thread.run_sync(again)
        return ReplyResult.of(reply)


def _asks(reply: Reply) -> bool:
    return reply.code in ASKS_A_HUMAN and reply.data.get("state", "pending") == "pending"
