"""Per-session rate limits: a burst of a minute's allowance, then one call per 60/rate seconds."""

from datetime import UTC, datetime, timedelta

from domain.policy.enforcement import pace
from domain.policy.pacing import Bucket, Rates, buckets

START = datetime(2030, 1, 1, tzinfo=UTC)


def test_a_full_bucket_allows_a_minutes_worth_of_calls_at_once():
    bucket = Bucket(3, 3.0)

    assert [bucket.take(START) for _ in range(3)] == [None, None, None]


def test_the_call_past_the_allowance_waits_for_one_call_to_refill():
    bucket = Bucket(6, 6.0)
    for _ in range(6):
        bucket.take(START)

    assert bucket.take(START) == 10.0


def test_time_refills_the_bucket():
    bucket = Bucket(6, 0.0, START)

    assert bucket.take(START + timedelta(seconds=10)) is None


def test_a_limit_of_zero_never_refuses():
    bucket = Bucket(0, 0.0)

    assert all(bucket.take(START) is None for _ in range(1000))


def test_a_refusal_is_a_denied_reply_with_the_wait_in_milliseconds():
    bucket = Bucket(60, 0.0, START)

    reply = pace(bucket, START, mutation=True)

    assert reply is not None
    assert (reply.code, reply.data["retry_after_ms"], reply.data["kind"]) == (
        "EN-EXEC-D-001",
        1000,
        "mutations",
    )


def test_reads_and_mutations_have_buckets_of_their_own():
    allowance = buckets(Rates(reads_per_minute=5, mutations_per_minute=1))

    assert (allowance[False].per_minute, allowance[True].per_minute) == (5, 1)


def test_the_bucket_refills_at_its_rate_per_second_and_no_faster():
    bucket = Bucket(120, 0.0, START)  # two calls a second

    assert bucket.take(START + timedelta(seconds=1)) is None  # two came back: one spent
    assert bucket.take(START + timedelta(seconds=1)) is None
    assert bucket.take(START + timedelta(seconds=1)) == 0.5


def test_each_call_refills_from_the_last_one_not_from_the_start():
    bucket = Bucket(60, 1.0, START)
    bucket.take(START)

    assert bucket.take(START + timedelta(seconds=0.5)) == 0.5  # half a call came back: half a second more
    assert bucket.take(START + timedelta(seconds=1)) is None


def test_a_read_over_its_limit_is_named_a_read_and_waits_at_least_a_millisecond():
    bucket = Bucket(6_000_000, 0.0, START)  # a call back every 10 microseconds

    reply = pace(bucket, START, mutation=False)

    assert reply is not None
    assert (reply.data["kind"], reply.data["rule"], reply.data["retry_after_ms"]) == (
        "reads",
        "rate-limit-reads",
        1,
    )


def test_a_session_with_too_many_calls_waiting_is_told_to_retry_in_a_second():
    from domain.policy.enforcement import busy

    reply = busy(3)

    assert reply.code == "EN-EXEC-D-002"
    assert reply.data == {"waiting": 3, "retry_after_ms": 1000, "required": None, "rule": "session-busy"}
