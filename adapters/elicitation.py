"""MCP elicitation as a human channel for approvals, in both protocol eras (LIBRARY_NOTES).

- 2026-07-28: the tool answers an `InputRequiredResult` carrying an elicitation form and a request state
  `<approval id>.<nonce>`; the client shows the form to its user and calls again with the answer. The nonce
  is kept here and used once, so a replayed request state (the framework seals it, but a genuine one can be
  sent twice within its lifetime) decides nothing. With the nonce the asking call's governance session is
  kept, so the retry is answered in that session: over HTTP every 2026-07-28 request is otherwise a session
  of its own, and an approval is bound to the session that asked. Unanswered nonces are bounded.
- 2025-11-25: `ctx.elicit` asks the user during the call.
- A client that declared no elicitation capability is never asked: the agent gets the approval id and
  the operator approves on a terminal (`ck3raven approve ID`).
The form has one boolean field, `approve` ("Approve this request?"); only an explicit accept with
`approve: true` approves. Anything else (a decline, a cancel, no content, a field of another name or type)
is recorded as a decline, never an error.
"""

import secrets
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import structlog
from fastmcp import Context
from mcp.types import ElicitRequest, ElicitRequestFormParams, InputRequiredResult
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import BaseModel, ConfigDict, Field

log = structlog.get_logger()
_NONCES_KEPT = 256

QUESTION = (
    "ck3raven asks for your approval.\n\n{summary}\n\nApproval id {approval_id}; it expires in five minutes."
)
_FIELD_TITLE = "Approve this request?"
_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "approve": {
            "type": "boolean",
            "title": _FIELD_TITLE,
            "description": "Yes approves exactly what is described above, once; anything else declines.",
        }
    },
    "required": ["approve"],
}


class Decision(BaseModel):
    """The legacy-era form: one clearly titled yes/no field, strictly a boolean ("yes" or 1 is no answer)."""

    model_config = ConfigDict(strict=True)
    approve: bool = Field(title=_FIELD_TITLE)


class Elicitor:
    """Asks the client's human to decide an approval; `decide(approval_id, approve)` records the answer."""

    def __init__(self, decide: Callable[[str, bool], bool]) -> None:
        self._decide = decide
        self._nonces: OrderedDict[str, tuple[str, object]] = OrderedDict()
        self._lock = threading.Lock()

    @staticmethod
    def carries_answer(ctx: Context) -> bool:
        """Whether the call is a 2026-07-28 retry carrying an answer (read off the request alone: no store,
        no lock), which `take_answer` is to record."""
        return _carried(ctx) is not None

    def take_answer(self, ctx: Context) -> object | None:
        """Record the answer a retried 2026-07-28 call carries and give back what the asking call kept with
        it (its session); None when there is no answer or it is replayed."""
        carried = _carried(ctx)
        if carried is None:
            return None
        responses, state = carried
        approval_id, nonce = state.rsplit(".", 1)
        with self._lock:
            kept = self._nonces.pop(nonce, None)
        if kept is None or kept[0] != approval_id:
            return None
        answer = responses.get("approval")
        content = getattr(answer, "content", None)
        approve = (
            getattr(answer, "action", None) == "accept"
            and isinstance(content, dict)
            and content.get("approve") is True
        )
        self._decide(approval_id, approve)
        return kept[1]

    async def ask(
        self, ctx: Context, approval_id: str, summary: str, keep: object = None
    ) -> InputRequiredResult | bool:
        """Ask now (legacy era: True when a decision was recorded) or hand back the input request to return
        (2026-07-28), keeping `keep` for the retry. False when the client cannot elicit."""
        capabilities = ctx.session.client_capabilities
        if capabilities is None or capabilities.elicitation is None:
            return False
        question = QUESTION.format(summary=summary, approval_id=approval_id)
        if _modern(ctx):
            nonce = secrets.token_hex(16)
            with self._lock:
                self._nonces[nonce] = (approval_id, True if keep is None else keep)
                while len(self._nonces) > _NONCES_KEPT:
                    self._nonces.popitem(last=False)
            form = ElicitRequestFormParams(message=question, requested_schema=_SCHEMA)
            return InputRequiredResult(
                input_requests={"approval": ElicitRequest(method="elicitation/create", params=form)},
                request_state=f"{approval_id}.{nonce}",
                result_type="input_required",
            )
        try:
            answer = await ctx.elicit(question, response_type=Decision)
        except Exception:  # noqa: BLE001 - a malformed or failed answer is a decline, never an error
            log.info("approval.elicitation_unanswered", approval_id=approval_id)
            answer = None
        data = getattr(answer, "data", None)
        approve = getattr(answer, "action", None) == "accept" and isinstance(data, Decision) and data.approve
        self._decide(approval_id, approve is True)
        return True


def _carried(ctx: Context) -> tuple[dict[str, Any], str] | None:
    """The responses and request state a retried call carries, if it carries both."""
    responses, state = ctx.input_responses, ctx.request_state
    if not responses or not state or "." not in state:
        return None
    return dict(responses), state


def _modern(ctx: Context) -> bool:
    request = ctx.request_context
    return request is not None and request.protocol_version in MODERN_PROTOCOL_VERSIONS
