"""The safety wrapper (seed 001 §4, SPEC §6): one middleware around every tool call.

It gives each call a trace id and a duration, turns exceptions and bad arguments into replies (no
exception text on the wire; the stack trace goes to the log under the trace id), refuses results that are
not Replies, and runs the leak gate over the whole envelope before anything leaves the server (behind its
one-pass screen, `adapters.leak_screen`). Then it writes the call's audit row: what the reply says, never
the arguments' contents; an audit store that fails is logged and never changes the reply (the work it
describes has happened, and its own row, written before it happened, holds). Each call is numbered as it
arrives, so a row that never reached the store is a gap. The row and the call's log line are written after
the reply is on its way (`adapters.after_reply`).
"""

import json
import re
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from time import perf_counter
from typing import Any
from uuid import uuid4

import structlog
from fastmcp.exceptions import NotFoundError, ValidationError
from fastmcp.server.middleware import CallNext, Middleware, MiddlewareContext
from fastmcp.tools.base import InputRequiredToolResult, ToolResult
from mcp.types import CallToolRequestParams, TextContent
from pydantic import PrivateAttr
from pydantic import ValidationError as PydanticValidationError

from adapters.after_reply import AfterReply
from adapters.call_facts import CALL, ServerCalls, client_name
from adapters.leak_screen import LeakScreen
from adapters.output_schemas import codes_of
from adapters.wire import Envelope, envelope_of, envelope_text, wire_data, wire_json
from domain.contracts.carry_over import PERSISTENT
from domain.leaks import LeakGate, is_address
from domain.replies.builder import Reply, ReplyBuilder
from ports.audit import AuditEntry, AuditLog

log = structlog.get_logger()
SHOWN = 20
"""Call numbers a log line of rows not yet written names at most."""
Piece = tuple[Reply | None, tuple[str, float, str | None], dict[str, Any]]
"""What a call leaves for after its reply: its reply (None: it asked the client's human a question), its
trace id, duration in ms and tool, and its facts (call number, session, contract, when it was answered)."""


class ReplyResult(ToolResult):
    """What every ck3raven tool returns: a carrier for one domain Reply, enveloped by the middleware."""

    _reply: Reply | None = PrivateAttr(default=None)

    @classmethod
    def of(cls, answer: object) -> "ReplyResult":
        """Carry `answer` if it is a Reply; anything else travels as nothing, and becomes an Error."""
        # made without the constructor, which would encode the empty structured content and parse it back
        result: ReplyResult = cls.model_construct(
            content=[], structured_content={}, meta=None, is_error=False
        )
        result._reply = answer if isinstance(answer, Reply) else None
        return result

    @property
    def reply(self) -> Reply | None:
        return self._reply


__all__ = ["CALL", "ReplyMiddleware", "ReplyResult"]


class ReplyMiddleware(Middleware):
    """Trace id, timing, exception and argument capture, non-Reply refusal, the leak gate, the audit row."""

    def __init__(
        self,
        gate: LeakGate,
        tool_names: frozenset[str],
        audit: AuditLog | None = None,
        calls: ServerCalls | None = None,
    ) -> None:
        self._gate = gate
        self._screen = LeakScreen(gate)  # the gate's candidate search in one pass: the gate decides
        self._tool_names = tool_names
        self._audit = audit
        self.calls = calls or ServerCalls()
        self.after_reply: AfterReply[Piece] = AfterReply(self._record)
        self._codes = {tool: frozenset(codes_of(tool)) for tool in tool_names}

    async def on_call_tool(
        self,
        context: MiddlewareContext[CallToolRequestParams],
        call_next: CallNext[CallToolRequestParams, ToolResult],
    ) -> ToolResult:
        trace_id = uuid4().hex
        started = perf_counter()
        # An unknown tool's name is agent text: it never reaches the envelope.
        tool = context.message.name if context.message.name in self._tool_names else None
        facts: dict[str, Any] = {
            "trace_id": trace_id,
            "tool": tool,
            "server_id": self.calls.server_id,
            "call": self.calls.next(),
            "client": client_name(),
        }
        token = CALL.set(facts)  # the dispatcher fills it in (also from its worker thread: same dict)
        try:
            with structlog.contextvars.bound_contextvars(trace_id=trace_id, tool=tool):
                result = await self._answer(context, call_next, (trace_id, started, tool))
        finally:
            CALL.reset(token)
        # the row and the log line wait for no one: the reply goes now, they follow in order
        facts["at"] = datetime.now(UTC).isoformat()
        call = (trace_id, _ms(started), tool)
        if isinstance(result, tuple):
            reply, answered = result
            self.after_reply((reply, call, facts))
            return answered
        self.after_reply((None, call, facts))
        return result

    async def _answer(
        self,
        context: MiddlewareContext[CallToolRequestParams],
        call_next: CallNext[CallToolRequestParams, ToolResult],
        call: tuple[str, float, str | None],
    ) -> tuple[Reply, ToolResult] | InputRequiredToolResult:
        trace_id, started, tool = call
        reply = await self._reply(context, call_next, trace_id)
        if isinstance(reply, InputRequiredToolResult):
            log.info("tool.input_required", duration_ms=round(_ms(started), 3))
            return reply  # a question for the client's human, not an answer: no envelope yet
        sent = _plain(envelope_of(reply, trace_id=trace_id, duration_ms=_ms(started), tool=tool))
        text = wire_json(sent)
        if self._leaks(reply, text, trace_id):
            log.error("reply.withheld", code=reply.code, pointers=self._gate.findings(json.loads(text)))
            reply = ReplyBuilder().error("MCP-SYS-E-003", {"trace_id": trace_id})
            sent = _plain(envelope_of(reply, trace_id=trace_id, duration_ms=_ms(started), tool=tool))
            text = wire_json(sent)
        if tool is not None and reply.code not in self._codes.get(tool, ()):
            # the tool's output schema does not name this code: a client that validates will refuse it
            log.error("reply.code_not_in_output_schema", code=reply.code)
        return reply, _tool_result(text, sent, is_error=reply.terminal)

    def _record(self, pieces: Sequence[Piece]) -> None:
        """The calls' log lines and rows, in the order of their replies (a piece's reply None: the call asked
        the client's human a question, and ends there); a piece's call is its trace id, its duration in
        ms and its tool. Raises when the store refuses the rows: they are written again, with what follows,
        once it answers (each call's log line is written once)."""
        for reply, (trace_id, duration_ms, tool), facts in pieces:
            if reply is not None and not facts.get("logged"):
                ms = round(duration_ms, 3)
                log.info("tool.replied", code=reply.code, duration_ms=ms, trace_id=trace_id, tool=tool)
            facts["logged"] = True
        if self._audit is None:
            return
        try:
            self._audit.append_all([_entry(reply, call, facts) for reply, call, facts in pieces])
        except Exception:  # the replies stand, and a change one made has its row already (written before it)
            log.warning("audit.unwritten", calls=[facts["call"] for _, _, facts in pieces][:SHOWN])
            raise

    def _leaks(self, reply: Reply, text: str, trace_id: str) -> bool:
        opaque = reply.spec.opaque & reply.data.keys()
        if not opaque:
            return self._screen.leaks_in_json(text)
        if all(type(reply.data[key]) is str for key in opaque) and not self._screen.candidate(text):
            # Nothing the gate could flag anywhere in the envelope, the file's text included: JSON escapes
            # text a character at a time, so a place named in it shows in the envelope as the screen
            # spells it, escaped.
            return False
        # File content is the user's own: it is checked for root paths only, the rest of the envelope fully.
        rest = {key: "" if key in opaque else value for key, value in reply.data.items()}
        without = envelope_text(reply, trace_id=trace_id, duration_ms=0, tool=None, data=rest)
        return self._screen.leaks_in_json(without) or any(
            self._gate.leaks_in_content(str(reply.data[key])) for key in opaque
        )

    async def _reply(
        self,
        context: MiddlewareContext[CallToolRequestParams],
        call_next: CallNext[CallToolRequestParams, ToolResult],
        trace_id: str,
    ) -> Reply | InputRequiredToolResult:
        try:
            result = await call_next(context)
        except ValidationError as exc:
            return ReplyBuilder().invalid("MCP-VAL-I-001", {"errors": self._argument_errors(exc)})
        except NotFoundError:
            return ReplyBuilder().invalid("MCP-VAL-I-002")
        except Exception:
            log.exception("tool.failed")
            return ReplyBuilder().error("MCP-SYS-E-001", {"trace_id": trace_id})
        if isinstance(result, InputRequiredToolResult):
            return result
        reply = result.reply if isinstance(result, ReplyResult) else None
        if reply is None:
            log.error("tool.no_reply", result_type=type(result).__name__)
            return ReplyBuilder().error("MCP-SYS-E-002", {"trace_id": trace_id})
        return reply

    def _argument_errors(self, exc: ValidationError) -> list[dict[str, Any]]:
        cause = exc.__cause__
        if not isinstance(cause, PydanticValidationError):
            return [{"field": None, "problem": "the arguments could not be read"}]
        problems = []
        for item in cause.errors(include_input=False, include_url=False, include_context=False):
            field = ".".join(str(part) for part in item["loc"])
            if self._gate.findings(field):  # an argument name can itself be a host path
                field = "<withheld>"
            problems.append({"field": field, "problem": item["msg"], "kind": item["type"]})
        return problems


def _entry(reply: Reply | None, call: tuple[str, float, str | None], facts: dict[str, Any]) -> AuditEntry:
    """The audit row of one call: what the reply says, never the arguments' contents; a call that asked
    the client's human a question has a row too (stage "question"), so its number leaves no gap."""
    trace_id, duration_ms, tool = call
    data = reply.data if reply is not None else {}
    return AuditEntry(
        at=facts["at"],
        session_id=facts.get("session_id"),
        trace_id=trace_id,
        tool=tool or "<unknown>",
        command=facts.get("command"),
        targets=_targets(data),
        reply_type=reply.reply_type.value if reply is not None else "",
        code=reply.code if reply is not None else "",
        contract_id=facts.get("contract_id"),  # the governing one: a reply may echo the agent's text
        approval_id=_server_id(data.get("approval_id")),
        duration_ms=round(duration_ms, 3),
        notes=_notes(data),
        server_id=facts.get("server_id"),
        call=facts.get("call"),
        client=facts.get("client"),
        stage="reply" if reply is not None else "question",
    )


_TARGET_KEYS = ("address", "staged", "paths", "targets", "files")


def _targets(data: Mapping[str, Any]) -> tuple[str, ...]:
    """The canonical addresses a reply names (the server spelled them; agent text is never kept)."""
    found: list[str] = []
    for key in _TARGET_KEYS:
        value = data.get(key)
        items = value if isinstance(value, list | tuple) else [value]  # reply data is frozen: tuples
        found += [item for item in items if isinstance(item, str) and is_address(item)]
        found += [
            item["address"]
            for item in items
            if isinstance(item, Mapping)
            and isinstance(item.get("address"), str)
            and is_address(item["address"])
        ]
    return tuple(dict.fromkeys(found))


def _notes(data: Mapping[str, Any]) -> tuple[str, ...]:
    """Persistent carry-over (law §13.4: a file left out of a second open) named in an open's reply."""
    section = data.get("carry_over")
    clusters = section.get("clusters", {}) if isinstance(section, Mapping) else {}
    return tuple(
        f"persistent carry-over: {item['address']} (left out of {item['opens']} opens)"
        for items in clusters.values()
        for item in items
        if isinstance(item, Mapping) and isinstance(item.get("opens"), int) and item["opens"] >= PERSISTENT
    )


_SERVER_ID = re.compile(r"[a-z]{2,4}-[0-9A-Za-z_-]{1,64}")


def _server_id(value: object) -> str | None:
    """An id the server made (a reply may echo the agent's own text in the same field: never kept)."""
    return value if isinstance(value, str) and _SERVER_ID.fullmatch(value) else None


def _ms(started: float) -> float:
    return (perf_counter() - started) * 1000


def _plain(envelope: Envelope) -> Envelope:
    """The envelope with its maps plain dicts, as it is sent and encoded: the protocol layer and its JSON
    encoder take a frozen map, a dict subclass, at about four times a dict's cost; the copy costs less,
    and nothing is parsed back."""
    return {**envelope, "data": wire_data(envelope["data"])}


def _tool_result(text: str, envelope: Envelope, *, is_error: bool) -> ToolResult:
    """The reply as it goes out: the plain envelope as structured content and its JSON text as the text
    twin. Made without ToolResult's constructor, which would encode the structured content to JSON and
    parse it back: the envelope is JSON data already (the text twin was just encoded from it)."""
    return ToolResult.model_construct(
        content=[TextContent(type="text", text=text)],
        structured_content=envelope,
        meta=None,
        is_error=is_error,
    )
