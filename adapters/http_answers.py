"""How each streamable-HTTP request is answered: one JSON body when nothing but its answer can come back
while it runs, otherwise an SSE stream.

The MCP SDK's transport answers a POST either way, chosen once per server by the `json_response` it is
given. A stream has room for what a call sends before its answer: progress, which `ck3_dir` reports to a
call carrying a progress token, and a question for the client's human, which `ck3_mode`, `ck3_contract`
and `ck3_token` may ask during the call over the 2025-11-25 protocol (`adapters.elicitation`). Some
clients send a progress token with every call; only a call of a tool that reports progress needs it. A
stream costs the server the tasks and memory streams the SDK and sse-starlette run for it: on the bench's
HTTP mix with 8 clients about 1.2 ms of the server's CPU a call (6.5 ms a call with every answer
streamed, 5.3 with these answered in one body). So the choice is made per request:

- `Framing` (the outermost ASGI layer) lets each POST's body pass on to the transport unchanged and keeps
  what went by; nothing is read ahead, so a request the door or the token refuses is never parsed, and the
  transport's own body limit bounds what is kept.
- `OneBody` is the `json_response` the transport is given: the SDK only ever asks whether it holds (a
  truth test, typed as a bool; fastmcp is pinned below 5 and tests/e2e/test_http_framing.py pins the
  effect), and it holds while the current request's body is whole and `answers_alone` says so of it.

Until the body is whole (the transport checks the Accept header before reading it) and outside the task
serving the request (the transport's message router, say), `OneBody` does not hold: the SDK's stream is
the safe side, since a stream carries a lone answer as well as messages before one. A request answered
with one body must send nothing else: the transport's message router, asking outside the request's task,
would put a notification in the body's place (and the SDK refuses a request to the client outright). So
the rule names the tools that can send something, in two lists the tests hold to the code:
`ASKS_HUMAN` (the tools whose answer may be a question) and `REPORTS_PROGRESS` (those that call
`_progress`), both in `adapters.mcp_tools`.
"""

import asyncio
import json
from contextvars import ContextVar
from typing import Final

from attrs import frozen
from starlette.types import ASGIApp, Message, Receive, Scope, Send

_TOOLS_CALL: Final = "tools/call"


@frozen
class TalksBack:
    """The tools a call of which may send something before its answer: a question for the client's human
    (`asks_human`), progress when asked for it (`reports_progress`)."""

    asks_human: frozenset[str]
    reports_progress: frozenset[str]


def answers_alone(body: bytes, talks_back: TalksBack) -> bool:
    """Whether nothing but its answer can come back while the JSON-RPC request `body` runs: a request
    (not a notification, a response or a batch: those are answered the same either way) other than a
    call of a tool that may ask the client's human, or of one that reports progress when the call carries
    a progress token. A body that is not JSON is not chosen: the transport refuses it in its own words."""
    try:
        message = json.loads(body)
    except (ValueError, RecursionError):
        return False
    if not isinstance(message, dict) or "id" not in message or not isinstance(message.get("method"), str):
        return False
    if message["method"] != _TOOLS_CALL:
        return True
    params = message.get("params")
    params = params if isinstance(params, dict) else {}
    tool, meta = params.get("name"), params.get("_meta")
    if not isinstance(tool, str) or tool in talks_back.asks_human:
        return False
    asked = isinstance(meta, dict) and meta.get("progressToken") is not None
    return not (asked and tool in talks_back.reports_progress)


class _Body:
    """One POST's body as it went by, and once it is whole, whether it is answered with one body; `task` is
    the task serving the request, the only one it speaks for."""

    __slots__ = ("_chunks", "_decided", "_talks_back", "_whole", "task")

    def __init__(self, talks_back: TalksBack) -> None:
        self.task = asyncio.current_task()
        self._talks_back = talks_back
        self._chunks: list[bytes] = []
        self._whole = False
        self._decided: bool | None = None

    def went_by(self, message: Message) -> None:
        if message["type"] != "http.request" or self._whole:
            return
        self._chunks.append(message.get("body", b""))
        self._whole = not message.get("more_body", False)

    def answers_alone(self) -> bool:
        if not self._whole:
            return False
        if self._decided is None:
            self._decided = answers_alone(b"".join(self._chunks), self._talks_back)
            self._chunks = []
        return self._decided


_CURRENT: ContextVar[_Body | None] = ContextVar("ck3raven_http_body", default=None)


class OneBody:
    """The transport's `json_response`: holds while the current request is answered with one JSON body."""

    def __bool__(self) -> bool:
        body = _CURRENT.get()
        # A task started while a request is served inherits its context, body included: the session's
        # message router and server loop, begun by the request that opened the session, are such tasks.
        return body is not None and body.task is asyncio.current_task() and body.answers_alone()

    def __repr__(self) -> str:
        return "OneBody(per request)"


class Framing:
    """ASGI wrapper that keeps each POST's body as it passes, for `OneBody` to judge (module docstring)."""

    def __init__(self, app: ASGIApp, talks_back: TalksBack) -> None:
        self._app = app
        self._talks_back = talks_back

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("method") != "POST":
            await self._app(scope, receive, send)
            return
        body = _Body(self._talks_back)

        async def watched() -> Message:
            message = await receive()
            body.went_by(message)
            return message

        token = _CURRENT.set(body)
        try:
            await self._app(scope, watched, send)
        finally:
            _CURRENT.reset(token)
