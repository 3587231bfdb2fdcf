"""The safety wrapper (seed 001 §4, SPEC §6): one middleware around every tool call.

It gives each call a trace id and a duration, turns exceptions and bad arguments into replies (no
exception text on the wire; the stack trace goes to the log under the trace id), refuses results that are
not Replies, and runs the leak gate over the whole envelope before anything leaves the server.
"""

import json
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

from adapters.wire import envelope_text
from domain.leaks import LeakGate
from domain.replies.builder import Reply, ReplyBuilder

log = structlog.get_logger()


class ReplyResult(ToolResult):
    """What every ck3raven tool returns: a carrier for one domain Reply, enveloped by the middleware."""

    _reply: Reply | None = PrivateAttr(default=None)

    @classmethod
    def of(cls, answer: object) -> "ReplyResult":
        """Carry `answer` if it is a Reply; anything else travels as nothing, and becomes an Error."""
        result = cls(content=[], structured_content={})
        result._reply = answer if isinstance(answer, Reply) else None
        return result

    @property
    def reply(self) -> Reply | None:
        return self._reply


class ReplyMiddleware(Middleware):
    """Trace id, timing, exception and argument capture, non-Reply refusal and the leak gate."""

    def __init__(self, gate: LeakGate, tool_names: frozenset[str]) -> None:
        self._gate = gate
        self._tool_names = tool_names

    async def on_call_tool(
        self,
        context: MiddlewareContext[CallToolRequestParams],
        call_next: CallNext[CallToolRequestParams, ToolResult],
    ) -> ToolResult:
        trace_id = uuid4().hex
        started = perf_counter()
        # An unknown tool's name is agent text: it never reaches the envelope.
        tool = context.message.name if context.message.name in self._tool_names else None
        with structlog.contextvars.bound_contextvars(trace_id=trace_id, tool=tool):
            reply = await self._reply(context, call_next, trace_id)
            if isinstance(reply, InputRequiredToolResult):
                log.info("tool.input_required", duration_ms=round(_ms(started), 3))
                return reply  # a question for the client's human, not an answer: no envelope yet
            text = envelope_text(reply, trace_id=trace_id, duration_ms=_ms(started), tool=tool)
            if self._leaks(reply, text, trace_id):
                log.error("reply.withheld", code=reply.code, pointers=self._gate.findings(json.loads(text)))
                reply = ReplyBuilder().error("MCP-SYS-E-003", {"trace_id": trace_id})
                text = envelope_text(reply, trace_id=trace_id, duration_ms=_ms(started), tool=tool)
            log.info("tool.replied", code=reply.code, duration_ms=round(_ms(started), 3))
            return _tool_result(text, is_error=reply.terminal)

    def _leaks(self, reply: Reply, text: str, trace_id: str) -> bool:
        opaque = reply.spec.opaque & reply.data.keys()
        if not opaque:
            return self._gate.leaks_in_json(text)
        # File content is the user's own: it is checked for root paths only, the rest of the envelope fully.
        rest = {key: "" if key in opaque else value for key, value in reply.data.items()}
        without = envelope_text(reply, trace_id=trace_id, duration_ms=0, tool=None, data=rest)
        return self._gate.leaks_in_json(without) or any(
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


def _ms(started: float) -> float:
    return (perf_counter() - started) * 1000


def _tool_result(text: str, *, is_error: bool) -> ToolResult:
    return ToolResult(
        content=[TextContent(type="text", text=text)],
        structured_content=json.loads(text),
        is_error=is_error,
    )
