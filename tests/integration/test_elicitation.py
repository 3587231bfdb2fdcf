"""The elicitation channel: a genuine request state answers once; replays and strangers decide nothing."""

from types import SimpleNamespace

import pytest
from mcp.types import ElicitResult, InputRequiredResult

from adapters.elicitation import Elicitor
from adapters.mcp_dispatch import HumanLoop
from adapters.mcp_sessions import SessionSlot

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class Decisions:
    def __init__(self) -> None:
        self.made: list[tuple[str, bool]] = []

    def __call__(self, approval_id: str, approve: bool) -> bool:
        self.made.append((approval_id, approve))
        return True


def context(*, elicits: bool = True, state: str | None = None, answer: ElicitResult | None = None):
    capabilities = SimpleNamespace(elicitation=object() if elicits else None)
    return SimpleNamespace(
        session=SimpleNamespace(client_capabilities=capabilities),
        request_context=SimpleNamespace(protocol_version="2026-07-28"),
        input_responses={"approval": answer} if answer else None,
        request_state=state,
    )


async def asked_state(elicitor: Elicitor) -> str:
    asked = await elicitor.ask(context(), "hat-1", "Switch to ck3raven-dev")
    assert isinstance(asked, InputRequiredResult)
    assert asked.request_state is not None
    return asked.request_state


async def test_a_genuine_answer_is_recorded_once():
    decisions = Decisions()
    elicitor = Elicitor(decisions)
    state = await asked_state(elicitor)
    yes = ElicitResult(action="accept", content={"approve": True})

    first = elicitor.take_answer(context(state=state, answer=yes))
    replay = elicitor.take_answer(context(state=state, answer=yes))

    assert (first, replay) == (True, None)
    assert decisions.made == [("hat-1", True)]


async def test_a_request_state_the_server_never_issued_decides_nothing():
    decisions = Decisions()
    elicitor = Elicitor(decisions)
    await asked_state(elicitor)

    taken = elicitor.take_answer(
        context(state="hat-1.0000", answer=ElicitResult(action="accept", content={"approve": True}))
    )

    assert taken is None
    assert decisions.made == []


async def test_a_nonce_issued_for_one_approval_cannot_decide_another():
    decisions = Decisions()
    elicitor = Elicitor(decisions)
    state = await asked_state(elicitor)
    forged = "hat-2." + state.rsplit(".", 1)[1]

    assert (
        elicitor.take_answer(
            context(state=forged, answer=ElicitResult(action="accept", content={"approve": True}))
        )
        is None
    )
    assert decisions.made == []


@pytest.mark.parametrize("content", [{"approve": "true"}, {"approve": 1}, {"value": True}, {}, None])
async def test_only_an_explicit_true_approves(content):
    decisions = Decisions()
    elicitor = Elicitor(decisions)
    state = await asked_state(elicitor)

    elicitor.take_answer(context(state=state, answer=ElicitResult(action="accept", content=content)))

    assert decisions.made == [("hat-1", False)]


async def test_a_client_without_elicitation_is_never_asked():
    asked = await Elicitor(Decisions()).ask(context(elicits=False), "hat-1", "s")

    assert asked is False


async def test_the_answer_gives_back_what_the_asking_call_kept():
    elicitor = Elicitor(Decisions())
    kept = object()
    asked = await elicitor.ask(context(), "hat-1", "s", keep=kept)
    assert isinstance(asked, InputRequiredResult)

    taken = elicitor.take_answer(
        context(state=asked.request_state, answer=ElicitResult(action="accept", content={"approve": True}))
    )

    assert taken is kept


class Recording(Elicitor):
    """An elicitor that notes each time it is asked for the answer a call carries."""

    def __init__(self) -> None:
        super().__init__(Decisions())
        self.taken: list[object] = []

    def take_answer(self, ctx) -> object | None:
        self.taken.append(ctx)
        return super().take_answer(ctx)


class Answering:
    """A dispatcher that answers every command with one reply and notes the session slot it was given."""

    def __init__(self) -> None:
        self.slots: list[object] = []

    def slot(self, ctx) -> str:
        return "the caller's session"

    def answer(self, ctx, tool, command, args, slot) -> object:
        self.slots.append(slot)
        return SimpleNamespace(code="CT-GATE-S-001", data={})


async def test_a_call_carrying_no_answer_is_answered_without_asking_the_elicitor_for_one():
    elicitor, dispatcher = Recording(), Answering()
    loop = HumanLoop(dispatcher, elicitor)  # type: ignore[arg-type]

    await loop.answer(context(), "ck3_contract", "open", {})
    await loop.answer(context(state="hat-1.0000"), "ck3_contract", "open", {})

    assert elicitor.taken == []
    assert dispatcher.slots == ["the caller's session", "the caller's session"]


async def test_a_retry_carrying_an_answer_is_answered_in_the_session_that_asked():
    elicitor, dispatcher = Recording(), Answering()
    loop = HumanLoop(dispatcher, elicitor)  # type: ignore[arg-type]
    kept = SessionSlot(SimpleNamespace(session_id="asking"))  # type: ignore[arg-type]
    asked = await elicitor.ask(context(), "hat-1", "Switch to ck3raven-dev", keep=kept)
    assert isinstance(asked, InputRequiredResult)
    yes = ElicitResult(action="accept", content={"approve": True})

    await loop.answer(context(state=asked.request_state, answer=yes), "ck3_contract", "open", {})

    assert len(elicitor.taken) == 1
    assert dispatcher.slots == [kept]
