"""Rate limits and the socket cap of the table's socket (``games.ratelimit``), the limiter alone and through
the real ASGI stack in this process: token buckets (a tighter one for ``sync``), a flood refused unapplied
and then closed 4429, at most 5 sockets per player and match (4409), slots that expire, and a failing
cache that admits the socket."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.core.cache import cache

from games import ratelimit
from games.models import Match
from games.ratelimit import MessageLimiter, TokenBucket
from tests.factories import FriendMatchFactory
from tests.games.test_ws_errors import stored_ids
from tests.games.wsclient import choose, connect, connect_mover, recv, send

pytestmark = pytest.mark.django_db(transaction=True)


def test_token_bucket_worked_example() -> None:
    bucket = TokenBucket(rate=20.0, burst=40, now=100.0)
    assert [bucket.take(100.0) for _ in range(41)] == [True] * 40 + [False]
    assert bucket.take(100.04) is False  # 0.04 s x 20/s = 0.8 of a token
    assert bucket.take(100.06) is True  # 0.8 + 0.4 = 1.2 tokens
    assert bucket.take(100.06) is False
    assert [bucket.take(200.0) for _ in range(41)] == [True] * 40 + [False]  # refilled to the burst, no more


def steady(limiter: MessageLimiter, per_second: float, seconds: float) -> list[str]:
    """The verdicts for frames sent at a steady rate after the burst was spent at time 0."""
    return [limiter.admit(n / per_second) for n in range(1, int(per_second * seconds))]


def test_flood_is_40_refusals_within_10_seconds() -> None:
    limiter = MessageLimiter(now=0.0)
    assert [limiter.admit(0.0) for _ in range(40)] == ["ok"] * 40
    assert [limiter.admit(0.0) for _ in range(39)] == ["limited"] * 39
    assert limiter.admit(0.0) == "flood"
    # 22 frames/s after the burst: 1 in 11 refused, 2 refusals/s, 40 take 20 s: limited, never closed
    slow = MessageLimiter(now=0.0)
    [slow.admit(0.0) for _ in range(40)]
    verdicts = steady(slow, 22.0, 60.0)
    assert "flood" not in verdicts and 115 <= verdicts.count("limited") <= 125
    # 30 frames/s: 1 in 3 refused, 10 refusals/s: closed after 40 refusals, 4 s in
    fast = MessageLimiter(now=0.0)
    [fast.admit(0.0) for _ in range(40)]
    verdicts = steady(fast, 30.0, 60.0)
    assert 115 <= verdicts.index("flood") <= 125 and verdicts.count("limited") == 39


def test_sync_has_its_own_tighter_bucket() -> None:
    limiter = MessageLimiter(now=0.0)
    verdicts = [(limiter.admit(0.0), limiter.admit_sync(0.0)) for _ in range(12)]
    assert verdicts == [("ok", "ok")] * 10 + [("ok", "limited")] * 2
    assert limiter.admit_sync(0.4) == "limited"  # 0.4 s x 2/s = 0.8 of a sync
    assert limiter.admit_sync(0.6) == "ok"  # 0.8 + 0.4 = 1.2
    assert limiter.admit(0.6) == "ok"  # other messages still have their own tokens


@pytest.fixture
def tight_limits(monkeypatch: pytest.MonkeyPatch) -> None:
    """5-message bursts, no refill to speak of, a flood after 10 refusals: exact counts in a test."""
    monkeypatch.setattr(ratelimit, "MESSAGES_PER_SECOND", 0.001)
    monkeypatch.setattr(ratelimit, "BURST", 5)
    monkeypatch.setattr(ratelimit, "FLOOD_REFUSALS", 10)


async def test_flood_is_rate_limited_unapplied_then_closed_4429(
    alice: Any, bob: Any, tight_limits: None
) -> None:
    match = await database_sync_to_async(FriendMatchFactory)(host=alice, friend=bob)
    comm, state, _ = await connect_mover({0: alice, 1: bob}, match.pk)
    for n in range(5):
        await send(comm, {"type": "ping", "id": n})
        assert await recv(comm) == {"type": "pong", "id": n}
    move = {"type": "action", "action": choose(state["hand"]), "seq": state["seq"], "id": "late-1"}
    for n in range(10):  # the 6th..15th frames: the move itself is refused unread, then 9 more
        await send(comm, move if n == 0 else {"type": "sync"})
        reply = await recv(comm)
        assert (reply["type"], reply["code"], reply["id"]) == ("error", "rate_limited", None), reply
    assert "closing" in reply["message"]
    assert (await comm.receive_output()) == {"type": "websocket.close", "code": 4429}
    assert await stored_ids(match.pk) == []
    assert (await database_sync_to_async(Match.objects.get)(pk=match.pk)).last_seq == state["seq"]


async def test_pings_over_the_default_burst_are_refused(alice: Any, bob: Any) -> None:
    """The real limits: 200 pings at once get the burst's 40 pongs first (then one more per 1/20 s the
    server takes meanwhile), ``rate_limited`` errors, and the 40th refusal closes the socket with 4429."""
    match = await database_sync_to_async(FriendMatchFactory)(host=alice, friend=bob)
    comm, _ = await connect(alice, match.pk)
    for n in range(200):
        await send(comm, {"type": "ping", "id": n})
    seen = []
    while True:
        out = await comm.receive_output()
        if out["type"] == "websocket.close":
            assert out["code"] == 4429
            break
        seen.append(json.loads(out["text"]))
    assert seen[:40] == [{"type": "pong", "id": n} for n in range(40)]
    errors = [m for m in seen if m["type"] == "error"]
    assert len(errors) == 40 and {m["code"] for m in errors} == {"rate_limited"}
    assert seen[-1] == errors[-1] and "closing" in errors[-1]["message"]
    pong_ids = [m["id"] for m in seen if m["type"] == "pong"]
    assert pong_ids == sorted(pong_ids) and len(pong_ids) + 40 <= 200


async def test_sync_flood_is_closed_even_when_the_server_is_slow(alice: Any, bob: Any) -> None:
    """200 ``sync`` frames at once (each a state rebuilt from the database): the 10-sync burst is
    answered, then refusals, and the 40th closes the socket with 4429. Without the sync bucket a
    server slower than 20 syncs/s refilled the general bucket as fast as it worked and answered ~900
    of 2,000 over 165 s."""
    match = await database_sync_to_async(FriendMatchFactory)(host=alice, friend=bob)
    comm, _ = await connect(alice, match.pk)
    for _ in range(200):
        await send(comm, {"type": "sync"})
    seen = []
    while True:
        out = await comm.receive_output()
        if out["type"] == "websocket.close":
            assert out["code"] == 4429
            break
        seen.append(json.loads(out["text"]))
    assert [m["type"] for m in seen[:10]] == ["state"] * 10
    errors = [m for m in seen if m["type"] == "error"]
    assert len(errors) == 40 and {m["code"] for m in errors} == {"rate_limited"}
    assert "syncs per second" in errors[0]["message"]
    assert len(seen) - 40 < 40  # states answered: the burst plus what refilled while it worked


# --------------------------------------------------------------------------------------------- socket cap


def clear_slots(match_id: int, *users: Any) -> None:
    """Forget slot keys a previous test may have left for these ids (ids restart in each test)."""
    cache.delete_many([f"ws-socket:{match_id}:{u.pk}:{n}" for u in users for n in range(10)])


async def test_sixth_socket_of_a_player_is_refused_4409(alice: Any, bob: Any) -> None:
    match = await database_sync_to_async(FriendMatchFactory)(host=alice, friend=bob)
    await database_sync_to_async(clear_slots)(match.pk, alice, bob)
    comms = [(await connect(alice, match.pk))[0] for _ in range(5)]
    extra, refusal = await connect(alice, match.pk, expect_state=False)
    assert (refusal["type"], refusal["code"]) == ("error", "too_many_sockets"), refusal
    assert "at most 5" in refusal["message"]
    assert (await extra.receive_output()) == {"type": "websocket.close", "code": 4409}
    other, _ = await connect(bob, match.pk)  # the cap is per player
    await comms.pop().disconnect()
    again, state = await connect(alice, match.pk)  # a closed socket frees its slot
    assert state["type"] == "state"
    for comm in [*comms, again, other]:
        await comm.disconnect()
    assert await database_sync_to_async(cache.get_many)(
        [f"ws-socket:{match.pk}:{alice.pk}:{n}" for n in range(5)]
    ) == {}


async def test_slots_of_a_killed_process_expire(
    alice: Any, bob: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A process killed with sockets open never releases their slots: they expire after ``SLOT_TTL``."""
    match = await database_sync_to_async(FriendMatchFactory)(host=alice, friend=bob)
    await database_sync_to_async(clear_slots)(match.pk, alice, bob)
    monkeypatch.setattr(ratelimit, "SLOT_TTL", 1)
    acquire = database_sync_to_async(ratelimit.socket_slot_acquire)
    slots = [await acquire(match_id=match.pk, user_id=alice.pk, owner=f"dead-{n}") for n in range(5)]
    assert slots == [0, 1, 2, 3, 4]
    assert await acquire(match_id=match.pk, user_id=alice.pk, owner="dead-5") is None
    await asyncio.sleep(1.5)
    comm, state = await connect(alice, match.pk)
    assert state["type"] == "state"
    await comm.disconnect()


async def test_a_failing_cache_admits_the_socket(
    alice: Any, bob: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    match = await database_sync_to_async(FriendMatchFactory)(host=alice, friend=bob)

    class BrokenCache:
        def __getattr__(self, name: str) -> Any:
            def broken(*args: Any, **kwargs: Any) -> Any:
                raise ConnectionError("Redis is down")

            return broken

    monkeypatch.setattr(ratelimit, "cache", BrokenCache())
    slot = ratelimit.socket_slot_acquire(match_id=match.pk, user_id=alice.pk, owner="x")
    assert slot == ratelimit.UNTRACKED
    comm, state = await connect(alice, match.pk)
    assert state["type"] == "state"
    await comm.disconnect()
