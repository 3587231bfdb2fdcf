"""A session's calls run one at a time, and only so many may wait: the rest are refused as busy."""

import threading

from adapters.mcp_sessions import MAX_WAITING, SessionSlot
from tests.fakes import memory_session


def test_calls_beyond_the_waiting_limit_are_turned_away_and_a_freed_place_is_taken_again():
    slot = SessionSlot(memory_session())
    admitted = [slot.enter() for _ in range(MAX_WAITING + 1)]

    refused = slot.enter()
    slot.leave()
    again = slot.enter()

    assert None not in admitted
    assert refused is None
    assert again is not None


def test_sessionless_slots_count_their_rate_limit_under_one_lock():
    shared = threading.Lock()

    assert SessionSlot(memory_session(), shared).pacing is SessionSlot(memory_session(), shared).pacing
